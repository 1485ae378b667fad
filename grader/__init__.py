"""Grading machinery on top of nbgrader: checks, sandbox, parallel runs, reports, CLI."""
