"""Worker processes that die with their parent.

A reproduce worker plays a unit and hands its rows back; the parent is every store's only
writer. If the parent is killed outright (SIGKILL, the OOM killer), nothing tells the pool's
workers: they used to finish their unit and then block for ever on the task queue, holding
hundreds of megabytes each. So each worker asks the kernel for SIGKILL when the process that
started it dies (Linux's parent-death signal), and, where that is not to be had or the
parent died before it was asked, a daemon thread notices the parent is gone (the worker is
re-parented) within ``POLL_SECONDS`` and ends the process. Either way the worker ends
without writing anything: a unit is only ever committed by the parent, whole.

A server that a command starts (``llm serve``'s llama.cpp) is tethered the same way: it is
started as ``python -m recmarket.run.lifeline PARENT MODULE ARGS...``, which asks for the
signal and the watch on PARENT and then runs MODULE as ``python -m MODULE ARGS...`` would.

Ray tasks need none of this: the local cluster that ``ray.init`` starts from the driver
shares the driver's fate on Linux (Ray sets the same signal on its raylet), and the task
workers end with the raylet (tests/run/test_lifeline.py kills a driver to check).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import runpy
import signal
import sys
import threading
import time

POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _ask_for_parent_death_signal() -> None:
    """The kernel's SIGKILL when the parent thread that forked us ends (Linux only)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the watch below does it alone
        return


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(1)  # no cleanup to run: the worker owns nothing the parent would commit


def die_with_parent(parent: int | None = None) -> None:
    """Make this process end when ``parent`` (by default its parent now) does."""
    parent = os.getppid() if parent is None else parent
    _ask_for_parent_death_signal()
    if os.getppid() != parent:  # gone before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="lifeline", daemon=True).start()


def run_tethered(argv: list[str]) -> None:
    """``PARENT MODULE ARGS...``: end with PARENT, then run MODULE as its own ``__main__``
    with ARGS (what ``python -m MODULE ARGS...`` does)."""
    parent, module, *args = argv
    die_with_parent(int(parent))
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    run_tethered(sys.argv[1:])
