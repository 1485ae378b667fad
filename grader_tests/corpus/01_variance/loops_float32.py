# An independent correct solution: explicit loops, its own names, float32 input converted first.
# base: blank
# kind: correct
# %% coin_dot_products
import math


def coin_dot_products(d):
    """All 2**d equally likely values of q·k in the coin model (L3 §7)."""
    if isinstance(d, bool) or int(d) != d or not 1 <= d <= 20:
        raise ValueError(f"d must be an integer between 1 and 20, got {d!r}")
    partial_sums = [0]
    for _ in range(int(d)):
        # every outcome so far continues with a product of +1 and with one of -1
        partial_sums = [total + sign for total in partial_sums for sign in (1, -1)]
    return np.array(partial_sums, dtype=np.float64)
# %% mean_and_variance
def mean_and_variance(values):
    """Population mean and variance (ddof=0) of all entries of `values`."""
    entries = np.asarray(values, dtype=np.float64).ravel()  # float32 and ints become float64
    if entries.size == 0:
        raise ValueError("values must not be empty")
    running = 0.0
    for entry in entries:
        if not math.isfinite(entry):
            raise ValueError("values must be finite")
        running += entry
    centre = running / entries.size
    squares = 0.0
    for entry in entries:
        squares += (entry - centre) ** 2
    return float(centre), float(squares / entries.size)
# %% expansion_counts
def expansion_counts(d):
    """(diagonal, cross) terms of (q·k)² multiplied out, counted one product at a time."""
    if isinstance(d, bool) or int(d) != d or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    diagonal = cross = 0
    for i in range(int(d)):
        for j in range(int(d)):
            if i == j:
                diagonal += 1
            else:
                cross += 1
    return diagonal, cross
# %% dot_variance_theory
def dot_variance_theory(d_k, var_q=1.0, var_k=1.0):
    """Var(q·k): the variances var_q·var_k of the d_k independent products add up."""
    if isinstance(d_k, bool) or int(d_k) != d_k or d_k < 1:
        raise ValueError(f"d_k must be a positive integer, got {d_k!r}")
    for label, variance in (("var_q", var_q), ("var_k", var_k)):
        if not (math.isfinite(variance) and variance >= 0):
            raise ValueError(f"{label} must be a finite variance >= 0, got {variance!r}")
    total = 0.0
    for _ in range(int(d_k)):
        total += var_q * var_k
    return float(total)
# %% dot_variance_mc
def dot_variance_mc(d_k, n_samples, rng, var_q=1.0, var_k=1.0):
    """Monte-Carlo Var(q·k), one sample pair at a time."""
    dot_variance_theory(d_k, var_q, var_k)  # the same argument checks
    if isinstance(n_samples, bool) or int(n_samples) != n_samples or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    spread_q, spread_k = math.sqrt(var_q), math.sqrt(var_k)
    draws = []
    for _ in range(int(n_samples)):
        query = spread_q * rng.standard_normal(int(d_k))
        key = spread_k * rng.standard_normal(int(d_k))
        draws.append(float(query @ key))
    return mean_and_variance(draws)[1]
# %% answer_std_ratio
answer_std_ratio = math.sqrt(my_numbers["answer_std_ratio"]["d_k_large"]) / math.sqrt(my_numbers["answer_std_ratio"]["d_k_small"])
# %% answer_var_component4
v = my_numbers["answer_var_component4"]["component_variance"]
answer_var_component4 = my_numbers["answer_var_component4"]["d_k"] * v * v
# %% answer_sigma_divide_dk
d = my_numbers["answer_sigma_divide_dk"]["d_k"]
answer_sigma_divide_dk = math.sqrt(dot_variance_theory(d)) / d
