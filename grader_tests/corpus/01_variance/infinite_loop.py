# Fault: a loop that never ends (the outer counter is never increased); its test runs until the cell timeout.
# base: model
# kind: fault
# sandbox: required
# %% expansion_counts
def expansion_counts(d):
    """(diagonal, cross) terms of (q·k)², counted pair by pair."""
    diagonal = cross = 0
    i = 0
    while i < d:
        j = 0
        while j < d:
            if i == j:
                diagonal += 1
            else:
                cross += 1
            j += 1
    return diagonal, cross
