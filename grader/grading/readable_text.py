"""Text safe to store, log and show, made from names that may hold any bytes.

A student names files inside a hand-in as they like; on Linux a name is bytes, and Python reads a
name that is not UTF-8 with lone surrogates (``b'\\xff.ipynb'`` -> ``'\\udcff.ipynb'``), which UTF-8
files, SQLite and nbgrader's feedback hashes refuse to encode. Every text that may hold such a name
passes through :func:`readable` before it is written anywhere.
"""
from __future__ import annotations


def readable(text: str | bytes) -> str:
    """``text`` (a name as bytes, or text that may hold lone surrogates) as valid text: every byte
    that is not UTF-8 shown as ``\\xff``, everything else unchanged."""
    if isinstance(text, bytes):
        return text.decode("utf-8", "backslashreplace")
    if not _has_surrogates(text):
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")  # the bytes of a name read from the disk
    except UnicodeEncodeError:  # a surrogate no file name makes: shown as its code point
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def is_page_name(name: str) -> bool:
    """Whether ``name`` (a notebook's name without ``.ipynb``) can name a feedback page that
    nbgrader's ``release_feedback`` and ``fetch_feedback`` handle: printable UTF-8 text on one line."""
    return bool(name) and name.isprintable() and not _has_surrogates(name)
