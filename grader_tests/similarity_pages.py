"""A report page whose "Possibly written together" section holds hostile student text.

Two students hand in the same code (the similarity corpus's copied pair) with a script, an event
handler and a closing ``</pre>`` written into a comment and a string; one of them has an id that
is itself markup. Eight honest classmates give the comparison a class to weigh rarity against.
"""
from __future__ import annotations

from similarity_class import cells_of, honest_class
from similarity_harness import corpus_class

from grader.reporting.analysis import AssignmentSummary, assignment_summary
from grader.reporting.class_report import ClassReport, StudentResult
from grader.similarity.compare import compare_class

HOSTILE_CODE = "</pre><script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">"
HOSTILE_ID = '"><svg onload="window.pwned = 3">'


def hostile_summary() -> AssignmentSummary:
    found, _ = corpus_class(honest=0)
    origin = found.cells["loops_float32"]
    found.cells = {name: cells_of(student) for name, student in
                   ((s.name, s) for s in honest_class(8, seed=3))}
    copied = {grade_id: code.replace("def softmax(x, axis=-1):", f"def softmax(x, axis=-1):  # {HOSTILE_CODE}")
              for grade_id, code in origin.items()}
    found.cells["ben"] = copied
    found.cells[HOSTILE_ID] = {g: c.replace("import math", f"import math\nNOTE = {HOSTILE_CODE!r}")
                               for g, c in copied.items()}
    report = ClassReport("02_softmax", [StudentResult(s, 1.0, 2.0, "graded", {}) for s in sorted(found.cells)])
    summary = assignment_summary(report)
    summary.similarity = compare_class(found)
    assert summary.similarity.pairs, "the copied pair must be found for the page to show it"
    return summary
