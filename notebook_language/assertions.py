"""A failing visible test speaks the student's language: an IPython extension for the students' kernels.

The visible-test cells stay in English, byte for byte (nbgrader checksums them), so their assert
messages cannot be translated in the notebook. Loaded into a student's kernel (the course hub
writes the environment's IPython config, :func:`kernel_config_text`), this extension shows an
``AssertionError`` whose message the catalogue of the student's language translates (the
``notebooks`` domain: the catalogue of the notebooks' prose also holds every visible-test message)
with that translation instead; the error stays an ``AssertionError``, so running, validating and
grading see the same failure. Any other error, an untranslated message, English or a missing
catalogue show the error as Python raised it.
"""
from __future__ import annotations

import os

from traitlets import Unicode, default
from traitlets.config import Configurable

from notebook_language.fetch import INSTALLED_LOCALES, LANGUAGE_VARIABLE, SOURCE_LANGUAGE, prose_translations


class TranslatedAssertions(Configurable):
    """Which catalogue translates the students' assert messages."""

    locale_dir = Unicode(help="The folder of compiled catalogues, <language>/LC_MESSAGES/notebooks.mo "
                              "(the one the students' fetch reads).").tag(config=True)
    language = Unicode(help=f"The student's language. Default: the environment variable {LANGUAGE_VARIABLE}, "
                            "else en.").tag(config=True)

    @default("locale_dir")
    def _locale_dir_default(self) -> str:
        return str(INSTALLED_LOCALES)

    @default("language")
    def _language_default(self) -> str:
        return os.environ.get(LANGUAGE_VARIABLE, "").strip() or SOURCE_LANGUAGE

    def translator(self):
        """The catalogue's ``gettext`` of :attr:`language`; None for English or without a catalogue."""
        if self.language == SOURCE_LANGUAGE:
            return None
        translations = prose_translations(self.locale_dir, self.language)
        return None if translations is None else translations.gettext


def translated(error: BaseException, gettext) -> BaseException:
    """``error`` with its message translated by ``gettext``; ``error`` itself when the message is
    not one plain string the catalogue knows."""
    if len(error.args) != 1 or not isinstance(error.args[0], str):
        return error
    text = gettext(error.args[0])
    if text == error.args[0]:
        return error
    try:
        return type(error)(text).with_traceback(error.__traceback__)
    except TypeError:  # a subclass built from other arguments: shown as raised
        return error


def load_ipython_extension(shell) -> None:
    """Show a translated ``AssertionError`` in ``shell`` (IPython's ``%load_ext`` and its config's
    ``InteractiveShellApp.extensions``); nothing happens for English or without a catalogue."""
    gettext = TranslatedAssertions(config=shell.config).translator()
    if gettext is None:
        return

    def show(shell, etype, value, tb, tb_offset=None):
        shell.showtraceback((etype, translated(value, gettext), tb), tb_offset=tb_offset)

    shell.set_custom_exc((AssertionError,), show)


def kernel_config_text(locale_dir: os.PathLike | str) -> str:
    """An ``ipython_kernel_config.py`` that loads this extension with the catalogues in ``locale_dir``."""
    return ("# Written by the course hub: failing visible tests in the student's language.\n"
            "c = get_config()  # noqa: F821\n"
            f"c.InteractiveShellApp.extensions = [{__name__!r}]\n"
            f"c.TranslatedAssertions.locale_dir = {str(locale_dir)!r}\n")
