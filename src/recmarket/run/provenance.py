"""Where the code that decides a run's episodes comes from, as its store records it.

A run's settings name its variants; the hash covers the names and parameters but not the
code behind a name. For every variant a run uses that recmarket does not ship (a mechanism,
policy, learning rule or role backend from another package), the manifest records the
distribution, its version and a digest of its source files, and a resume that finds any of
them changed is refused, naming the package: episodes made by two versions of a plugin
never share a store. The installed packages and whether the checkout was dirty are recorded
too, for the reader (as inspect_ai's ``EvalSpec.packages``), and not compared: recmarket and
what it requires, transitively, and the plugins' distributions.
"""

from __future__ import annotations

import functools
import re
import subprocess
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from recmarket.agents.roles import ROLE_BACKENDS, role_setting
from recmarket.config import RunConfig
from recmarket.market.behaviour.learning import LEARNING_RULES
from recmarket.mechanisms import MECHANISMS
from recmarket.policies import POLICIES
from recmarket.registry import Registry


def used_variants(cfg: RunConfig) -> list[tuple[Registry[Any], str]]:
    """Every (registry, name) whose code can decide an episode of this run."""
    market = cfg.market
    used: list[tuple[Registry[Any], str]] = [(POLICIES, p) for p in sorted(set(market.policies))]
    used += [(POLICIES, e.policy) for e in market.entrants if e.policy is not None]
    used.append((MECHANISMS, market.reputation_in_use.mechanism))
    if market.adaptive:
        used.append((LEARNING_RULES, market.learning_in_use.rule))
    used += [(ROLE_BACKENDS, role_setting(v).backend) for _, v in sorted(cfg.roles.items())]
    return used


def outside_variants(cfg: RunConfig) -> dict[str, dict[str, str]]:
    """``{"KIND NAME": {distribution, version, digest}}`` for each variant not from
    recmarket."""
    found = {}
    for registry, name in used_variants(cfg):
        origin = registry.origin(name)
        if origin is not None:
            found[f"{registry.kind} {name}"] = {
                "distribution": origin.distribution,
                "version": origin.version,
                "digest": origin.digest,
            }
    return found


def changed_variants(stored: dict[str, dict[str, str]], now: dict[str, dict[str, str]]) -> str:
    """What differs between a store's outside variants and this process's, in words; empty
    when nothing does."""
    changes = []
    for variant in sorted(stored.keys() | now.keys()):
        old, new = stored.get(variant), now.get(variant)
        if old == new:
            continue
        if old is None or new is None:
            whose = (new or old or {}).get("distribution", "?")
            was = "was not" if old is None else "was"
            changes.append(f"the {variant} from {whose} {was} in the stored run")
            continue
        was, now_ = (f"{v['distribution']} {v['version']}" for v in (old, new))
        what = [was if was == now_ else f"{was} -> {now_}"]
        if old["digest"] != new["digest"]:
            what.append(f"its source changed ({old['digest'][:12]} -> {new['digest'][:12]})")
        changes.append(f"the {variant}: {', '.join(what)}")
    return "; ".join(changes)


def installed_packages(also: tuple[str, ...] = ()) -> dict[str, str]:
    """recmarket, the distributions it requires (transitively; not the optional ones of an
    extra) and ``also``, each with its installed version."""
    found = dict(_recmarket_closure())
    _add_closure(found, list(also))
    return dict(sorted(found.items()))


@functools.cache
def _recmarket_closure() -> dict[str, str]:
    """recmarket's own requirements, read once a process: they cannot change under the code
    already loaded, and reading a hundred distributions' metadata took a quarter of a
    second for every cell a worker opened."""
    found: dict[str, str] = {}
    _add_closure(found, ["recmarket"])
    return found


def _add_closure(found: dict[str, str], waiting: list[str]) -> None:
    while waiting:
        name = canonical(waiting.pop())
        if name in found:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            continue
        found[name] = dist.version
        for requirement in dist.requires or ():
            if re.search(r"\bextra\s*==", requirement.partition(";")[2]):
                continue
            waiting.append(re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0])


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _git(*args: str) -> str | None:
    """What ``git ARGS`` prints in recmarket's own checkout (None: not a checkout, or no git)."""
    try:
        out = subprocess.run(
            ["git", *args], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


@functools.cache
def git_commit() -> str | None:
    """The checkout's commit (None: not a checkout), read once a process: the code it
    runs was loaded from it then."""
    return _git("rev-parse", "HEAD") or None


@functools.cache
def checkout_dirty() -> bool | None:
    """Whether recmarket's checkout has uncommitted changes (None: not a checkout), read
    once a process, as the commit is."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return None if status is None else bool(status)
