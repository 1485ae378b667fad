"""The catalogue of the notebooks' prose: every paragraph of every plain markdown cell of the source
notebooks has a current Chinese translation, the committed template is what ``source/`` says, and
extraction keeps translations and names what changed."""
from __future__ import annotations

import json
import re
import shutil

import mistune
from babel.messages.pofile import read_po

from grader.language.notebook_catalogue import (
    catalogue_path,
    checks_files,
    extract,
    read_catalogue,
    source_notebooks,
    template,
    template_path,
    translated_languages,
    untranslated,
)
from grader_tests.checkout import REPO_ROOT
from notebook_language.paragraphs import paragraphs, pieces, translate_text


def _copy_of_the_course(tmp_path):
    for folder in ("source", "locales"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder)
    return tmp_path


def _add_markdown_cell(notebook_path, text):
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    notebook["cells"].append({"cell_type": "markdown", "id": "added", "metadata": {}, "source": text})
    notebook_path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False), encoding="utf-8")


def test_every_paragraph_of_every_source_notebook_has_a_chinese_translation():
    assert "zh" in translated_languages()
    assert [(entry.where, entry.paragraph[:60]) for entry in untranslated(REPO_ROOT, "zh")] == []


def test_the_four_source_notebooks_and_their_checks_files_are_in_the_catalogue():
    places = {path for message in template(REPO_ROOT) for path, _ in message.locations}
    assert places == {path.relative_to(REPO_ROOT).as_posix()
                      for path in [*source_notebooks(REPO_ROOT), *checks_files(REPO_ROOT)]}
    assert len(places) == 8


def test_the_committed_template_is_what_the_source_notebooks_say():
    with open(template_path(REPO_ROOT), "rb") as handle:
        committed = {message.id for message in read_po(handle) if message.id}
    assert committed == {message.id for message in template(REPO_ROOT) if message.id}, \
        "run `grader translate extract` and translate what it adds"


def test_a_new_english_paragraph_without_a_translation_is_named(tmp_path):
    course = _copy_of_the_course(tmp_path)
    _add_markdown_cell(course / "source" / "01_variance" / "variance.ipynb", "A new hint for the students.")
    missing = untranslated(course, "zh")
    assert [(entry.paragraph, entry.fuzzy) for entry in missing] == [("A new hint for the students.", False)]
    assert missing[0].where.startswith("source/01_variance/variance.ipynb:")


def test_extraction_keeps_every_translation_and_adds_the_new_paragraph_untranslated(tmp_path):
    course = _copy_of_the_course(tmp_path)
    _add_markdown_cell(course / "source" / "02_softmax" / "softmax.ipynb", "Another paragraph.")
    extract(course)
    with open(catalogue_path(course, "zh"), "rb") as handle:
        catalogue = read_po(handle, locale="zh")
    assert catalogue.get("Another paragraph.").string == ""
    assert catalogue.get("## Your numbers").string == "## 你的数字"
    assert [entry.paragraph for entry in untranslated(course, "zh")] == ["Another paragraph."]


def test_a_changed_english_paragraph_is_reported_fuzzy_until_its_translation_is_revised(tmp_path):
    course = _copy_of_the_course(tmp_path)
    path = course / "source" / "01_variance" / "variance.ipynb"
    path.write_text(path.read_text(encoding="utf-8").replace("**Total: 14 points.**", "**Total: 15 points.**"),
                    encoding="utf-8")
    extract(course)
    missing = untranslated(course, "zh")
    assert [(entry.paragraph, entry.fuzzy) for entry in missing] == [("**Total: 15 points.**", True)]


def test_extraction_of_an_unchanged_course_rewrites_no_file(tmp_path):
    course = _copy_of_the_course(tmp_path)
    before = [path.read_bytes() for path in (template_path(course), catalogue_path(course, "zh"))]
    extract(course)
    assert [path.read_bytes() for path in (template_path(course), catalogue_path(course, "zh"))] == before


def test_a_paragraph_is_a_run_of_lines_between_blank_lines():
    assert paragraphs("# Title\n\nFirst line\nsecond line.\n\n\n- a\n- b\n") == \
        ["# Title", "First line\nsecond line.", "- a\n- b"]


def test_a_fenced_code_block_is_not_a_message_even_across_blank_lines():
    text = "Run this:\n\n```python\nx = 1\n\ny = 2\n```\n\nDone."
    assert paragraphs(text) == ["Run this:", "Done."]


def test_cutting_into_paragraphs_and_joining_gives_the_text_back():
    for path in source_notebooks(REPO_ROOT):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            text = "".join(cell["source"])
            assert "".join(piece.text for piece in pieces(text)) == text


def test_only_paragraphs_are_translated_and_everything_between_them_is_kept():
    text = "One.\n\n```\ncode\n```\n\nTwo.\n"
    assert translate_text(text, str.upper) == "ONE.\n\n```\ncode\n```\n\nTWO.\n"


def _markdown_shape(text: str) -> dict[str, int]:
    """How many of each markdown construct ``text`` renders to: emphasis, code, lists, headings, tables."""
    html = mistune.create_markdown(plugins=["table"])(text)
    return {tag: len(re.findall(f"<{tag}[ >]", html)) for tag in ("em", "strong", "code", "li", "h1", "h2", "td")}


def test_every_chinese_paragraph_keeps_the_markdown_of_its_english_one():
    catalogue = read_catalogue(REPO_ROOT, "zh")
    changed = [message.id[:60] for message in catalogue
               if message.id and message.string and _markdown_shape(message.string) != _markdown_shape(message.id)]
    assert changed == []
