"""A released notebook in the student's language: what a student's Jupyter runs when it fetches.

The course's notebooks are written in English; their prose (the plain markdown cells) has a gettext
catalogue per language, kept in the course (``locales/<language>/LC_MESSAGES/notebooks.po``, one
entry per paragraph). When a student fetches an assignment, nbgrader copies the released folder and
:class:`notebook_language.fetch.TranslatingFetchAssignment` rewrites the copy's plain markdown
paragraphs into the student's language. Cells nbgrader tracks (grade, solution, locked, tests) are
never touched, so validation, autograding, hidden checks and scores are the same in every language.

Modules, one job each:

- :mod:`notebook_language.paragraphs`: a markdown text as paragraphs (the catalogue's entries);
- :mod:`notebook_language.cells`: which cells are prose, and a notebook's prose translated;
- :mod:`notebook_language.fetch`: nbgrader's fetch that delivers the translated copy;
- :mod:`notebook_language.assertions`: the kernels' extension that shows a failing visible test's
  message translated (the test cells themselves stay in English).

Standard library, nbgrader and IPython's traitlets only: this package is installed in the students' environment.
"""
