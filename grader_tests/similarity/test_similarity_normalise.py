"""What the similarity check ignores in a cell: template, comments, names, literals, statement order."""
from __future__ import annotations

from grader.similarity.winnowing import WINDOW, K, winnow
from grader.similarity.normalise import IDENTIFIER, normalise

TEMPLATE = '''def softmax(x, axis=-1):
    """Numerically stable softmax along `axis`."""
    # YOUR CODE HERE
    raise NotImplementedError()
'''

ORIGINAL = '''def softmax(x, axis=-1):
    """Numerically stable softmax along `axis`."""
    z = np.asarray(x, dtype=float)
    m = z.max(axis=axis, keepdims=True)
    e = np.exp(z - m)
    return e / e.sum(axis=axis, keepdims=True)
'''


def symbols(code: str, template: str = TEMPLATE) -> list[str]:
    return [t.symbol for t in normalise(code, template)]


def test_renamed_variables_give_the_same_tokens():
    renamed = ORIGINAL.replace("z = np.asarray(x,", "logits = np.asarray(x,") \
        .replace("m = z.max", "peak = logits.max").replace("e = np.exp(z - m)", "w = np.exp(logits - peak)") \
        .replace("return e / e.sum", "return w / w.sum")
    assert renamed != ORIGINAL and symbols(renamed) == symbols(ORIGINAL)


def test_comments_blank_lines_and_a_new_docstring_change_nothing():
    edited = ORIGINAL.replace('    """Numerically stable softmax along `axis`."""\n',
                              '    """My own words."""\n\n    # shift first\n') \
        .replace("keepdims=True)\n    e", "keepdims=True)  # the peak\n\n    e")
    assert symbols(edited) == symbols(ORIGINAL)


def test_other_literal_values_give_the_same_tokens():
    assert symbols("y = f(x, 3.5, 'abc')\n", "") == symbols("y = f(x, 10, \"other\")\n", "")


def test_a_statement_split_over_lines_or_merged_with_a_semicolon_is_the_same():
    one = "a = np.exp(x)\nb = np.log(y)\nc = a + b\n"
    split = "a = np.exp(\n    x)\nb = \\\n    np.log(y)\nc = a + b\n"
    merged = "a = np.exp(x); b = np.log(y)\nc = a + b\n"
    assert symbols(one, "") == symbols(split, "") == symbols(merged, "")


def test_independent_assignments_in_another_order_give_the_same_tokens():
    first = "a = np.exp(x)\nb = np.log(y)\nc = a + b\n"
    moved = "b = np.log(y)\na = np.exp(x)\nc = a + b\n"
    assert symbols(first, "") == symbols(moved, "")


def test_a_statement_stays_after_the_one_it_depends_on():
    tokens = symbols("a = np.exp(x)\nb = np.log(a)\n", "")
    assert tokens.index("exp") < tokens.index("log")
    assert symbols("b = np.log(a)\na = np.exp(x)\n", "") != tokens


def test_the_released_template_and_stub_leave_nothing():
    assert symbols(TEMPLATE) == []


def test_library_names_keyword_arguments_and_attributes_keep_their_spelling():
    kept = set(symbols(ORIGINAL))
    assert {"np", "asarray", "exp", "max", "sum", "axis", "keepdims", "dtype", "float", "return"} <= kept
    assert {"z", "m", "e", "x"}.isdisjoint(kept) and IDENTIFIER in kept


def test_code_tokenize_cannot_read_is_still_compared():
    broken = "def f(x):\n    s = 'unterminated\n    return x\n"
    assert symbols(broken, "") and symbols(broken, "") == symbols(broken.replace("x", "y"), "")


def test_winnowing_keeps_a_kgram_in_every_window():
    tokens = normalise("a = np.exp(x)\nb = np.log(y)\nc = a + b * np.sum(a, axis=0)\n")
    prints = winnow(tokens)
    positions = sorted(p for ps in prints.positions.values() for p in ps)
    n_grams = len(tokens) - K + 1
    for start in range(n_grams - WINDOW + 1):
        assert any(start <= p < start + WINDOW for p in positions), start
