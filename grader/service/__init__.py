"""The grading service: students hand in through nbgrader's exchange and get feedback in seconds.

``grader watch`` (:func:`grader.service.watch.serve`) collects each submission through
nbgrader's exchange classes, grades it with ``grader.grading.grade_one.grade_one`` (sandbox, trusted
verdicts), generates its feedback and releases it, following the course policy
(``grader.service_policy``). Its state is on disk (``grader.service.journal``), and it refuses to
run while other accounts can read the course (``grader.service.privacy``).
"""
