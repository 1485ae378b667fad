"""Importing the grader does not pay for optional packages it never uses."""
import subprocess
import sys


def run_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_importing_grader_then_nbgrader_skips_the_iri_grammar_package():
    out = run_python("import grader, nbgrader.converters, sys; print('rfc3987_syntax' in sys.modules and "
                     "sys.modules['rfc3987_syntax'] is not None)")
    assert out.strip() == "False"


def test_jsonschema_still_validates_schemas_and_formats_it_knows():
    out = run_python("import grader, jsonschema\n"
                     "v = jsonschema.Draft7Validator({'type': 'object', 'properties': {'d': {'format': 'date'}}},"
                     " format_checker=jsonschema.FormatChecker())\n"
                     "print(v.is_valid({'d': '2026-12-01'}), v.is_valid({'d': 'not a date'}), v.is_valid([]))")
    assert out.split() == ["True", "False", "False"]


def test_a_process_that_imported_jsonschema_first_is_left_alone():
    out = run_python("import jsonschema, grader, sys; print(sys.modules.get('rfc3987_syntax', 'absent') is None)")
    assert out.strip() == "False"
