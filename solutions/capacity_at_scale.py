"""The softmax read-out's capacity at d = 64, β = 8 lies in the millions: ``python -m solutions.capacity_at_scale``.

``retrieval_accuracy`` holds every trial's keys and values at once, which is fine for the thousands of
pairs a notebook searches but not for millions. Here one memory at a time is streamed in chunks of
stored pairs (memory O(chunk · d)): the first pass accumulates the softmax read-out Vᵀ softmax(β K x),
the second regenerates the same values chunk by chunk and finds the stored value closest to it. The
model is that of ``retrieval_accuracy``: random unit keys and values, the query is a stored key (the
first one, which loses no generality as the pairs are exchangeable), success when the read-out is
closest in cosine to that key's value. Slow by design: about a minute per trial at 2**22 pairs.
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

import numpy as np

from solutions.validation import as_positive_int, as_real

#: Stored pairs generated at once; 65536 × 64 floats is 32 MiB per array.
DEFAULT_CHUNK = 2**16


def _unit_rows(seed: np.random.SeedSequence, rows: int, d: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, d))  # [rows, d]
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def streamed_softmax_retrieval(
    n_pairs: int, d: int, beta: float, seed: int | Sequence[int], chunk: int = DEFAULT_CHUNK
) -> bool:
    """One trial of softmax retrieval with n_pairs stored pairs, streamed in chunks; True on success.

    The keys and values of chunk c come from their own child seeds of ``seed``, so the second pass
    sees exactly the values of the first. Scores are shifted by β (the query's score against itself,
    the largest possible), so no exponential overflows.
    """
    n_pairs, d, chunk = as_positive_int(n_pairs, "n_pairs"), as_positive_int(d, "d"), as_positive_int(chunk, "chunk")
    beta = as_real(beta, "beta")
    sizes = [min(chunk, n_pairs - start) for start in range(0, n_pairs, chunk)]
    key_seeds = np.random.SeedSequence(seed).spawn(2 * len(sizes))
    value_seeds, key_seeds = key_seeds[len(sizes):], key_seeds[:len(sizes)]
    query = _unit_rows(key_seeds[0], sizes[0], d)[0]  # [d], the first stored key
    readout = np.zeros(d)  # [d], Σ exp(β(k·x − 1)) v, normalised at the end
    total = 0.0
    for key_seed, value_seed, size in zip(key_seeds, value_seeds, sizes):
        weights = np.exp(beta * (_unit_rows(key_seed, size, d) @ query - 1.0))  # [size]
        readout += weights @ _unit_rows(value_seed, size, d)
        total += float(weights.sum())
    readout /= total
    best_other, own = -np.inf, None
    for index, (value_seed, size) in enumerate(zip(value_seeds, sizes)):
        similarity = _unit_rows(value_seed, size, d) @ readout  # [size], cosine times |readout|
        if index == 0:
            own, similarity[0] = float(similarity[0]), -np.inf
        best_other = max(best_other, float(similarity.max()))
    return own > best_other


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solutions.capacity_at_scale", description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--beta", type=float, default=8.0)
    parser.add_argument("--seed", type=int, default=20240607)
    parser.add_argument("--runs", default="20:30,22:12", help="log2(n_pairs):trials, comma-separated")
    arguments = parser.parse_args(argv)
    for run in arguments.runs.split(","):
        log2_pairs, trials = (int(part) for part in run.split(":"))
        n_pairs = 2**log2_pairs
        successes = sum(streamed_softmax_retrieval(n_pairs, arguments.d, arguments.beta, [arguments.seed, n_pairs, t])
                        for t in range(trials))
        print(f"d = {arguments.d}, beta = {arguments.beta:g}, n_pairs = 2**{log2_pairs}: "
              f"{successes} of {trials} trials retrieved", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
