"""How much of each prompt repeats the start of an earlier one: what a provider's prompt
(prefix) cache can serve. Providers cache the longest earlier prefix of the token sequence,
so the static part of a role's prompt should come first (``prompts``)."""

from __future__ import annotations

import bisect


def prompt_text(messages: list[dict[str, str]]) -> str:
    """A chat's messages as the one sequence a prefix cache sees."""
    return "\n".join(f"{m['role']}\n{m['content']}" for m in messages)


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common start of two texts (binary search over slices,
    which compare in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


class PrefixIndex:
    """Texts seen so far, sorted: the earlier text sharing the longest prefix with a new
    one is one of its neighbours in that order."""

    def __init__(self) -> None:
        self._sorted: list[str] = []

    def add(self, text: str) -> int:
        """The length of the longest prefix ``text`` shares with an earlier text."""
        at = bisect.bisect_left(self._sorted, text)
        neighbours = self._sorted[max(at - 1, 0) : at + 1]
        shared = max((common_prefix(text, n) for n in neighbours), default=0)
        self._sorted.insert(at, text)
        return shared


def repeated_prefix_share(prompts: list[str]) -> float:
    """The share of all prompt characters that repeat an earlier prompt's start, in order."""
    index = PrefixIndex()
    total = sum(len(p) for p in prompts)
    return sum(index.add(p) for p in prompts) / total if total else 0.0
