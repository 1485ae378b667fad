"""``ValidateNotebook``: the notebook checked against nbformat's schema where an invalid one must stop.

nbconvert checks the whole notebook after every step (sixteen times per notebook here, about
0.6 ms each). The course config has it check once, after each pass's last step
(``c.Exporter.optimistic_validation``), and the pipeline puts this step where grading must stop at
once on an invalid notebook, as it did when every step was followed by a check:

- first in the sanitizing pass: the submission as nbgrader read it (``grader autograde`` refuses an
  invalid one before that; plain ``nbgrader autograde`` does not);
- just after the kernel ran: what the kernel sent became outputs, and no later step may act on an
  invalid one (nor tidy it away);
- just before the first gradebook write: no score is saved for a notebook that then fails.

An invalid notebook raises nbformat's ``ValidationError`` (logged, as nbconvert logs it, with
nbformat's account of where it is invalid); nbgrader then records the submission as failed.
"""
from __future__ import annotations

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor


class ValidateNotebook(NbGraderPreprocessor):
    """Raise nbformat's ``ValidationError`` unless the notebook matches its schema (as nbconvert checks it)."""

    reads: set[str] = set()
    writes: set[str] = set()
    timed_as = "nbconvert"

    def preprocess(self, nb, resources):
        try:
            nbformat.validate(nb, relax_add_props=True)
        except nbformat.ValidationError:
            self.log.error("The notebook is invalid where %s checks it", type(self).__name__)
            raise
        return nb, resources
