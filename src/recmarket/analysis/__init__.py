"""Reading what runs stored: funnels, contrasts with bootstrap intervals, DataFrames.

``episodes_frame(run_dirs)`` gives every episode of the given runs as one pandas DataFrame,
with the cell's settings as columns.
"""

from recmarket.analysis.frame import calls_frame, episodes_frame

__all__ = ["calls_frame", "episodes_frame"]
