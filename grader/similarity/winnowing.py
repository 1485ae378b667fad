"""Token k-grams selected by winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003).

Each kept k-gram is known by a hash of its tokens.

The method of MOSS: hash every run of ``K`` consecutive normalised tokens, then slide a window of
``WINDOW`` hashes over them and keep the smallest hash of each window (the rightmost one on a tie),
recording each kept hash once per position. Two cells that share a run of at least
``K + WINDOW - 1`` tokens are guaranteed to share a selected k-gram; a shared run shorter than ``K``
never counts. Inserted dead code, a comment or a moved block only changes the k-grams that overlap
it, so the rest of a copy still matches.

Hashes are deterministic across processes (a token's code is its CRC-32, a k-gram's hash that of
the tuple of codes, which Python does not randomise), so a report is the same on every run.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from grader.similarity.normalise import Token

K = 6  # tokens per k-gram: `x = np . exp (` is one; JPlag and MOSS use runs of this order
WINDOW = 4  # hashes per winnowing window: any shared run of K + WINDOW - 1 = 9 tokens is found


@dataclass(frozen=True)
class SelectedKgrams:
    """The selected k-grams of one cell: hash -> start positions (token indices) of its k-grams."""

    positions: dict[int, tuple[int, ...]]

    @property
    def hashes(self) -> frozenset[int]:
        return frozenset(self.positions)

    def __len__(self) -> int:
        return len(self.positions)


@lru_cache(maxsize=4096)
def _code(symbol: str) -> int:
    return zlib.crc32(symbol.encode("utf-8"))


def kgram_hashes(tokens: list[Token], k: int = K) -> list[int]:
    """The hash of every run of ``k`` consecutive tokens (len(tokens) - k + 1 of them)."""
    codes = [_code(t.symbol) for t in tokens]
    return [hash(tuple(codes[i:i + k])) for i in range(len(codes) - k + 1)]


def winnow(tokens: list[Token], k: int = K, window: int = WINDOW) -> SelectedKgrams:
    """The k-grams winnowing selects of a token sequence; a sequence shorter than ``k`` has none."""
    hashes = np.array(kgram_hashes(tokens, k), dtype=np.int64)
    if hashes.size == 0:
        return SelectedKgrams({})
    if hashes.size <= window:
        windows = hashes[None, :]
    else:
        windows = np.lib.stride_tricks.sliding_window_view(hashes, window)  # [n - w + 1, w]
    # the rightmost smallest hash of each window: argmin over the window read backwards
    picked = np.arange(len(windows)) + (windows.shape[1] - 1 - np.argmin(windows[:, ::-1], axis=1))
    values = hashes.tolist()
    selected: dict[int, list[int]] = {}
    for position in np.unique(picked).tolist():  # ascending
        selected.setdefault(values[position], []).append(position)
    return SelectedKgrams({h: tuple(p) for h, p in selected.items()})
