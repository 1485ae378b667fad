"""The course's own nbgrader preprocessors, one per module named after its class.

They run in the order ``grader.grading.pipeline`` declares, between nbgrader's own preprocessors;
``SandboxedExecute`` (``grader.sandbox.execute``) and ``RemoveActiveContent``
(``grader.pages.notebook``) belong to the sandbox and to the page rules and live there.
"""

from nbgrader.preprocessors import NbGraderPreprocessor

# nbgrader's preprocessors declare NbConvertBase's configurable display_data_priority again without
# config=True, so the HTML exporters' default config (NbConvertBase.display_data_priority) made
# traitlets warn "not recognized" for each of them on every page; none of them reads it.
NbGraderPreprocessor.class_traits()["display_data_priority"].tag(config=True)
