"""nbgrader's fetch, delivering the released notebooks in the student's language.

The students' nbgrader config chooses it (nbgrader's own extension point)::

    c.ExchangeFactory.fetch_assignment = "notebook_language.fetch.TranslatingFetchAssignment"

Both the Assignment List's Fetch button and ``nbgrader fetch_assignment`` use it. It copies the
released folder as nbgrader's folder exchange does, then rewrites the prose of each fetched notebook
(:mod:`notebook_language.cells`) with the compiled catalogue of the student's language,
``<locale_dir>/<language>/LC_MESSAGES/notebooks.mo``. The language is
``c.TranslatingFetchAssignment.language``, by default the environment variable
:data:`LANGUAGE_VARIABLE` that the course hub sets for each student's server from the course's
roster. English, an unknown language or a missing catalogue leave the English notebook: a fetch
never fails for a translation.
"""
from __future__ import annotations

import gettext
import os
from pathlib import Path

from nbgrader.exchange.default import ExchangeFetchAssignment
from traitlets import Unicode, default

from notebook_language.cells import translate_notebook_file

#: The environment variable naming the student's language (``en``, ``zh``), set by the hub's spawner.
LANGUAGE_VARIABLE = "STUDENT_LANGUAGE"
#: The language the notebooks are written in: fetching in it changes nothing.
SOURCE_LANGUAGE = "en"
#: The gettext domain of the notebooks' prose.
DOMAIN = "notebooks"
#: The class's import path, as nbgrader's ExchangeFactory takes it.
FETCH_CLASS = "notebook_language.fetch.TranslatingFetchAssignment"
#: Where the students' environment keeps the compiled catalogues (``<language>/LC_MESSAGES/notebooks.mo``).
INSTALLED_LOCALES = Path(__file__).parent / "locales"


def prose_translations(locale_dir: Path | str, language: str) -> gettext.NullTranslations | None:
    """The compiled catalogue of ``language`` under ``locale_dir``; None when there is none."""
    found = gettext.find(DOMAIN, str(locale_dir), languages=[language])
    if found is None:
        return None
    with open(found, "rb") as handle:
        return gettext.GNUTranslations(handle)


def nbgrader_config_lines(locale_dir: Path | str) -> str:
    """The lines of a students' ``nbgrader_config.py`` that make fetching use this class, reading
    the compiled catalogues from ``locale_dir``."""
    return (f"c.ExchangeFactory.fetch_assignment = {FETCH_CLASS!r}\n"
            f"c.TranslatingFetchAssignment.locale_dir = {str(locale_dir)!r}\n")


class TranslatingFetchAssignment(ExchangeFetchAssignment):
    """nbgrader's folder-exchange fetch, then the fetched notebooks' prose in :attr:`language`."""

    language = Unicode(help="The language the student reads the notebooks in (en, zh). "
                            f"Default: the environment variable {LANGUAGE_VARIABLE}, else en.").tag(config=True)
    locale_dir = Unicode(help="The folder of compiled catalogues, <language>/LC_MESSAGES/notebooks.mo. "
                              "Default: the one installed beside this module.").tag(config=True)

    @default("language")
    def _language_default(self) -> str:
        return os.environ.get(LANGUAGE_VARIABLE, "").strip() or SOURCE_LANGUAGE

    @default("locale_dir")
    def _locale_dir_default(self) -> str:
        return str(INSTALLED_LOCALES)

    def copy_files(self):
        already_there = set(self._notebooks())
        super().copy_files()
        self.translate_fetched([path for path in self._notebooks() if path not in already_there])

    def _notebooks(self) -> list[Path]:
        return sorted(path for path in Path(self.dest_path).rglob("*.ipynb")
                      if ".ipynb_checkpoints" not in path.parts)

    def translate_fetched(self, notebooks: list[Path]) -> None:
        """Rewrite the prose of ``notebooks`` (the ones this fetch copied; a student's own copy is
        never rewritten) in :attr:`language` (nothing for English)."""
        if self.language == SOURCE_LANGUAGE or not notebooks:
            return
        translations = prose_translations(self.locale_dir, self.language)
        if translations is None:
            self.log.warning("No notebook catalogue for %r in %s; the notebooks stay in English",
                             self.language, self.locale_dir)
            return
        for notebook in notebooks:
            try:
                translate_notebook_file(notebook, translations.gettext)
            except (OSError, ValueError, TypeError, AttributeError) as exc:  # not a notebook: keep the copy as it is
                self.log.warning("%s stays as released (%s)", notebook.name, exc)
            else:
                self.log.info("Fetched %s in %s", notebook.name, self.language)
