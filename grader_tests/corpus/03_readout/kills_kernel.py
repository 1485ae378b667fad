# Fault: the kernel process dies in the middle of the notebook (killed, as the out-of-memory killer does).
# Nothing after that cell runs; everything before it is graded as usual.
# base: model
# kind: fault
# sandbox: required
# %% normalize_rows
import os
import signal

os.kill(os.getpid(), signal.SIGKILL)


def normalize_rows(X):
    """Each row of X scaled to unit length."""
    X = np.asarray(X, dtype=float)
    return X / np.linalg.norm(X, axis=1, keepdims=True)
