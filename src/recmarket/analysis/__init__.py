"""Reading what runs stored: funnels, contrasts with bootstrap intervals, DataFrames.

``episodes_frame(run_dirs)`` gives every episode of the given runs as one pandas DataFrame,
with the cell's settings as columns. pandas is imported on first use of the two frames, so a
module that only needs a funnel or an interval (the CLI, workers) never pays for it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["calls_frame", "episodes_frame"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from recmarket.analysis import frame

        return getattr(frame, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
