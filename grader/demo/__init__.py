"""``grader demo``: the main job end to end, and the simulated class it grades.

Not used when grading a real course: the corpus of realistic hand-ins (``corpus``), the simulated
class drawn from it, the demo's folder and its student hand-in through the service.
"""
