"""Grading one submission: screen it, run the nbgrader pipeline on it, record the outcome.

Where to look:

- ``pipeline``: every step nbgrader runs on a submission, in order (``nbgrader_config.py`` imports it).
- ``step_contracts``: what each step reads and writes, and the check that an order satisfies it.
- ``screen``: what is refused before anything runs (a bad student id, an unreadable notebook).
- ``grade_one``: one (assignment, student) pair graded in this process; every scheduler calls it.
- ``preprocessors/``: the course's own steps of the pipeline, one module per class.
- ``probe_cells``, ``kernel_side``, ``verdict_records``: hidden checks — which cells hold them, the
  code that runs inside the student's kernel, and the records verdicts leave for the report.
- ``seeds``, ``submission_fingerprint``, ``student_numbers``, ``attempt_credit``: what a student's
  hidden inputs, numbers and credit depend on.
- ``run_record``, ``ungradable_record``, ``step_times``: what is kept about a grading.
- ``nbgrader_apps``: nbgrader's applications run in-process.
- ``nbgrader_compat``: every change the grader makes to nbgrader's classes, and the nbgrader
  versions they were written for (``metadata_validation``: the cheaper cell-metadata validation one
  of them installs).

The schedulers (``grader.scheduling``: ``grader autograde``'s pool and Dask; ``grader.service``:
``grader watch``) only decide where and when ``grade_one`` runs.
"""
