"""Tick labels a reader can read: short display names for cells, and labels that never
overlap, checked from matplotlib's own text extents after drawing (a fixed rotation or font
size guesses; the extents know)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

ROTATIONS = (0, 30, 60, 90)


def display_names(names: Sequence[str]) -> list[str]:
    """Cell names as labels: the parts every name shares dropped, and "setting=value" shown
    as its value where the value says what it is. "composition=all-strict/seed=42" beside
    "composition=all-balanced/seed=42" reads "all-strict" and "all-balanced"; a number keeps
    its setting ("rotation=1"). Names that would no longer differ stay whole."""
    split = [name.split("/") for name in names]
    width = max((len(parts) for parts in split), default=0)
    shared = {i for i in range(width) if len({p[i] if i < len(p) else None for p in split}) == 1}
    shown = []
    for name, parts in zip(names, split, strict=True):
        kept = [p for i, p in enumerate(parts) if i not in shared or len(names) == 1]
        shown.append("/".join(_value(p) for p in kept) or name)
    return shown if len(set(shown)) == len(shown) else list(names)


def _value(part: str) -> str:
    _, equals, value = part.partition("=")
    if not equals or re.fullmatch(r"[-+.\d]+", value):
        return part
    return value


def _extents(labels: list[Any], renderer: Any) -> list[Any]:
    return [t.get_window_extent(renderer) for t in labels if t.get_visible() and t.get_text()]


def overlapping(labels: list[Any], renderer: Any) -> list[tuple[str, str]]:
    """Pairs of tick labels of one axis whose drawn boxes overlap."""
    shown = [t for t in labels if t.get_visible() and t.get_text()]
    boxes = _extents(shown, renderer)
    return [
        (shown[i].get_text(), shown[j].get_text())
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].overlaps(boxes[j])
    ]


def overlaps(fig: Any) -> list[tuple[str, str]]:
    """Every pair of overlapping tick labels in a figure (empty: none)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        found += overlapping(ax.get_xticklabels(), renderer)
        found += overlapping(ax.get_yticklabels(), renderer)
    return found


def untangle(fig: Any) -> None:
    """Rotate x tick labels, then shrink the font of x and y labels, until no two overlap
    (what still overlaps at the smallest font is left for the test to catch)."""
    for ax in fig.axes:
        for rotation in ROTATIONS:
            fig.canvas.draw()
            if not overlapping(ax.get_xticklabels(), fig.canvas.get_renderer()):
                break
            for label in ax.get_xticklabels():
                label.set_rotation(rotation)
                label.set_horizontalalignment("right" if 0 < rotation < 90 else "center")
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            size = labels[0].get_fontsize() if labels else 0
            while labels and size > 5:
                fig.canvas.draw()
                if not overlapping(labels, fig.canvas.get_renderer()):
                    break
                size -= 1
                for label in labels:
                    label.set_fontsize(size)
