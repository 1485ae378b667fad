"""The course's own nbgrader preprocessors, one per module named after its class.

They run in the order ``grader.grading.pipeline`` declares, between nbgrader's own preprocessors;
``SandboxedExecute`` (``grader.sandbox.execute``) and ``RemoveActiveContent``
(``grader.pages.notebook``) belong to the sandbox and to the page rules and live there.
"""
