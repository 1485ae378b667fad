"""Grading machinery on top of nbgrader: one submission (grading), where it runs (scheduling, service), the sandbox, checks, pages, reports, CLI."""
import sys

# jsonschema (imported by nbformat and nbgrader) imports rfc3987_syntax when it is installed, only
# to check the "iri" string format, which no notebook or gradebook schema uses; that package
# compiles a grammar on import: 0.7 s of every grader process's 1.3 s to import nbgrader. Marking
# it absent, before anything imports jsonschema, makes jsonschema skip that one format checker.
if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)
