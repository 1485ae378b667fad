"""Writing a course: scaffolding a new assignment (``grader new-assignment``) and saying what a
course still lacks (``grader check-course``)."""
