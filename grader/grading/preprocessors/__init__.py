"""The course's own nbgrader preprocessors, one per module named after its class.

They run in the order ``grader.grading.pipeline`` declares, between nbgrader's own preprocessors;
``SandboxedExecute`` (``grader.sandbox.execute``) and ``RemoveActiveContent``
(``grader.pages.notebook``) belong to the sandbox and to the page rules and live there.
"""

from grader.grading.nbgrader_compat import declare_display_data_priority_configurable

declare_display_data_priority_configurable()  # before any page's exporter is configured
