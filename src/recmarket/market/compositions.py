"""How presentation policies (``recmarket.catalogue.policies``) attach to platform ids.

Policies stay attached to platform ids for the whole run, so reputation histories refer to
a stable source; inventory rotations (Appendix A.4) move catalogs, never policies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from recmarket.catalogue.policies import POLICIES, policy
from recmarket.catalogue.registry import NameIn

# Named compositions: the families that share the platforms equally, in interleaving order.
COMPOSITIONS: dict[str, tuple[str, ...]] = {
    "equal": ("strict", "balanced", "exaggeration"),
    "strict-balanced": ("strict", "balanced"),
    "strict-exaggeration": ("strict", "exaggeration"),
    "balanced-exaggeration": ("balanced", "exaggeration"),
    "all-strict": ("strict",),
    "all-balanced": ("balanced",),
    "all-exaggeration": ("exaggeration",),
}


def parse_policy(name: str) -> str:
    """A registered policy's name, from its name or its prompt card's implementation id;
    an unknown name fails with the known ones."""
    key = name.strip().lower()
    by_id = {p.implementation_id: p.name for p in POLICIES}
    return by_id[key] if key in by_id else policy(key).name


def platform_ids(n_platforms: int) -> tuple[str, ...]:
    """The ids of ``n_platforms`` platforms: P1, P2, ..."""
    return tuple(f"P{j + 1}" for j in range(n_platforms))


def _counted(composition: str) -> list[str]:
    """``strict=3,exaggeration=3`` as per-platform names, families interleaved."""
    counts = {}
    for part in composition.split(","):
        name, _, count = part.partition("=")
        if not count.strip().isdigit():
            raise ValueError(f"policy count {part!r} is not NAME=NUMBER")
        counts[parse_policy(name)] = int(count)
    names = []
    while any(counts.values()):
        for family in list(counts):
            if counts[family]:
                names.append(family)
                counts[family] -= 1
    return names


def _explicit_names(composition: str | Sequence[str]) -> list[str] | None:
    """The per-platform names of an explicit composition, None for a named one."""
    if isinstance(composition, str):
        if composition in COMPOSITIONS:
            return None
        if "=" in composition:
            return _counted(composition)
        if "," not in composition:
            known = ", ".join(COMPOSITIONS)
            raise ValueError(
                f"unknown composition {composition!r}; use one of {known}, policy counts "
                "such as strict=3,exaggeration=3, or one policy per platform, comma-separated"
            )
        return composition.split(",")
    return list(composition)


def assign_policies(composition: str | Sequence[str], n_platforms: int) -> tuple[str, ...]:
    """The policy of each platform P1..PN.

    A named composition interleaves its families (S, B, E, S, B, E, ...), so every family
    holds an equal share when N is a multiple of the number of families, and a cyclic
    inventory rotation pairs each inventory with a different family. An explicit list gives
    one policy per platform, in order.
    """
    names = _explicit_names(composition)
    if names is None:
        families = COMPOSITIONS[str(composition)]
        return tuple(families[j % len(families)] for j in range(n_platforms))
    if len(names) != n_platforms:
        raise ValueError(
            f"the composition assigns {len(names)} platforms but the market has "
            f"{n_platforms} platforms"
        )
    return tuple(parse_policy(n) for n in names)


def policies_in(composition: str | Sequence[str]) -> tuple[str, ...]:
    """The policies a composition names, each once, in the order it names them."""
    names = _explicit_names(composition)
    found = COMPOSITIONS[str(composition)] if names is None else map(parse_policy, names)
    return tuple(dict.fromkeys(found))


# A composition in a setting: a named one, policy counts, or one policy per platform; the
# policies it names are variants of the run.
Composition = Annotated[str | tuple[str, ...], NameIn(POLICIES, names=policies_in)]
