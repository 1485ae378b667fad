"""Where and when submissions are graded: ``grader autograde``'s process pool, a Dask cluster.

Every scheduler hands each (assignment, student) pair to ``grader.grading.grade_one``; nothing here
changes how one submission is graded. The grading service (``grader watch``) schedules in
``grader.service``.
"""
