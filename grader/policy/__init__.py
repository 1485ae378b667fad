"""One course policy: deadlines, late windows and penalties, late days, accommodations, limits.

Declared in the course's ``nbgrader_config.py`` (``c.CoursePolicy``, with ``c.AttemptCredit.schedule``
and ``c.GradingService.max_graded_per_hour`` as the class's defaults) and per student or group in
the course's policy file (``policy.csv``), edited with ``grader policy``. One module per job:

- ``declaration``: the policy file's format, parsed and checked line by line;
- ``resolution``: ``resolve(student, assignment) -> ResolvedPolicy``, the precedence of overrides;
- ``late_days``: late days spent and late penalties, derived from hand-in times only;
- ``course_policy``: ``PolicyBook.of(course)``, the above read from a course folder and its gradebook;
- (the grading step that writes the gradebook's late penalty is
  ``grader.grading.preprocessors.assign_policy_late_penalties``);
- ``standing``: one student's dates and late days in words, for the feedback page and the reports;
- ``command``: ``grader policy show | set | grant-late-days | late-days | validate``.
"""
