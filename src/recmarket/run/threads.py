"""One native thread per process that plays episodes.

numpy's BLAS (OpenBLAS or MKL), OpenMP and the tokenizers' Rayon pool each start one thread
per core by default. A process playing episodes gains nothing from them (its matrices have a
few hundred rows), and several such processes on one machine run cores-squared busy threads:
16 reproduce workers on 16 cores were several times slower than pinned ones (measured, issue
20). So every process that plays episodes (reproduce workers, Ray tasks, the main process
when it runs a cell itself) limits those pools to one thread.

An explicit setting wins: a pool whose environment variable the user set keeps that size.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

# The variables each pool reads: a user who set one chose that pool's size.
POOL_VARIABLES = {
    "blas": ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"),
    "openmp": ("OMP_NUM_THREADS",),
}
# Read once, when the tokenizers start their pool (at their first parallel batch).
STARTUP_VARIABLES = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


def _limits() -> dict[str, int]:
    """Each pool's size: the one its variable names, else one thread, with the environment
    set to match so that a library loaded later (or a process started from this one)
    starts that way."""
    for variable, value in STARTUP_VARIABLES.items():
        os.environ.setdefault(variable, value)
    limits = {}
    for api, variables in POOL_VARIABLES.items():
        chosen = next((os.environ[v] for v in variables if os.environ.get(v)), None)
        if chosen is None:
            os.environ.update(dict.fromkeys(variables, "1"))
            chosen = "1"
        if chosen.strip().isdigit() and int(chosen) > 0:  # else the library's own reading
            limits[api] = int(chosen)
    return limits


def pin_native_threads() -> None:
    """For the rest of this process's life (a worker calls it before it plays anything)."""
    threadpool_limits(limits=_limits())


@contextmanager
def pinned_native_threads() -> Iterator[None]:
    """For the duration of a run in a process that goes on afterwards (a notebook, a test):
    the pools already started get their sizes back at the end."""
    with threadpool_limits(limits=_limits()):
        yield
