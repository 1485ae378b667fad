"""Reference numerics for the course: the lessons' mathematics, imported by the grader only."""
