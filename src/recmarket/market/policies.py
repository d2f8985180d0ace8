"""Presentation policies (Table 5, Appendix B.2) and how they attach to platform ids.

Policies stay attached to platform ids for the whole run, so reputation histories refer to
a stable source; inventory rotations (Appendix A.4) move catalogs, never policies.
"""

from __future__ import annotations

from collections.abc import Sequence

from recmarket.vocabulary import IMPLEMENTATION_IDS, Policy

_ALIASES = {alias: policy for policy, alias in IMPLEMENTATION_IDS.items()} | {
    p.value: p for p in Policy
}

# Named compositions: the families that share the platforms equally, in interleaving order.
COMPOSITIONS: dict[str, tuple[Policy, ...]] = {
    "equal": (Policy.STRICT, Policy.BALANCED, Policy.EXAGGERATION),
    "strict-balanced": (Policy.STRICT, Policy.BALANCED),
    "strict-exaggeration": (Policy.STRICT, Policy.EXAGGERATION),
    "balanced-exaggeration": (Policy.BALANCED, Policy.EXAGGERATION),
    "all-strict": (Policy.STRICT,),
    "all-balanced": (Policy.BALANCED,),
    "all-exaggeration": (Policy.EXAGGERATION,),
}


def parse_policy(name: str) -> Policy:
    """A policy from its short name or its implementation id; a clear error otherwise."""
    try:
        return _ALIASES[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(_ALIASES))
        raise ValueError(f"unknown policy name {name!r}; known policies: {known}") from None


def platform_ids(n_platforms: int) -> tuple[str, ...]:
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
        for policy in list(counts):
            if counts[policy]:
                names.append(policy.value)
                counts[policy] -= 1
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


def check_composition(composition: str | Sequence[str]) -> None:
    """Raise a clear error if the composition names an unknown composition or policy."""
    for name in _explicit_names(composition) or ():
        parse_policy(name)


def assign_policies(composition: str | Sequence[str], n_platforms: int) -> tuple[Policy, ...]:
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
