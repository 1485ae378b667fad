"""A markdown text as paragraphs: the units a translator translates.

A paragraph is a run of non-blank lines; a fenced code block (```` ``` ```` or ``~~~``) is one
piece even across blank lines and is not translated. Splitting keeps every character, so joining
the pieces gives the text back exactly, and a paragraph without a translation stays as it was.
"""
from __future__ import annotations

from dataclasses import dataclass

_FENCES = ("```", "~~~")


@dataclass(frozen=True)
class Piece:
    """A part of a markdown text: a paragraph (``translatable``), or blank lines or code (not)."""

    text: str
    translatable: bool


def _is_blank(line: str) -> bool:
    return not line.strip()


def _fence(line: str) -> str | None:
    stripped = line.lstrip()
    return next((fence for fence in _FENCES if stripped.startswith(fence)), None)


def pieces(text: str) -> list[Piece]:
    """``text`` cut into paragraphs, runs of blank lines and fenced code blocks, in order."""
    lines = text.splitlines(keepends=True)
    found: list[Piece] = []
    i = 0
    while i < len(lines):
        start = i
        if _is_blank(lines[i]):
            while i < len(lines) and _is_blank(lines[i]):
                i += 1
            found.append(Piece("".join(lines[start:i]), False))
        elif fence := _fence(lines[i]):
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(fence):
                i += 1
            i = min(i + 1, len(lines))
            found.append(Piece("".join(lines[start:i]), False))
        else:
            while i < len(lines) and not _is_blank(lines[i]) and not _fence(lines[i]):
                i += 1
            found.append(Piece("".join(lines[start:i]), True))
    return _trim(found)


def _trim(found: list[Piece]) -> list[Piece]:
    """Move each paragraph's closing line end to the piece after it, so a message id is the
    paragraph's text alone (what a translator sees), and the line break survives translation."""
    trimmed: list[Piece] = []
    for piece in found:
        if piece.translatable and piece.text.endswith("\n"):
            trimmed += [Piece(piece.text[:-1], True), Piece("\n", False)]
        else:
            trimmed.append(piece)
    return trimmed


def paragraphs(text: str) -> list[str]:
    """The translatable paragraphs of ``text``, in order (each a catalogue's message id)."""
    return [piece.text for piece in pieces(text) if piece.translatable]


def translate_text(text: str, translate) -> str:
    """``text`` with each paragraph replaced by ``translate(paragraph)``; everything else kept."""
    return "".join(translate(piece.text) if piece.translatable else piece.text for piece in pieces(text))
