"""Older names and forms recmarket still reads, and the release that reads them no more.

Every deprecation says when it ends, so a user knows how long a plugin, a script or a
settings file written against an older name has (``recmarket migrate`` rewrites settings
files and stored runs at once)."""

from __future__ import annotations

import warnings

REMOVED_IN = "0.2"  # the release that drops every older name and form read today


def warn_older(message: str, stacklevel: int = 3) -> None:
    """A ``DeprecationWarning``: ``message`` (what is older, what to write instead) and the
    release that reads the older one no more."""
    warnings.warn(
        f"{message} (read until recmarket {REMOVED_IN})", DeprecationWarning, stacklevel=stacklevel
    )
