"""Where the code that decides a run's episodes comes from, as its store records it.

A run's settings name its variants; the hash covers the names and parameters but not the
code behind a name. For every variant a run's settings use (``variants_in`` reads them off
the settings' types, nested ones included) that recmarket does not ship, of whatever kind,
the manifest records the distribution, its version and a digest of its source files, and a
resume that finds any of them changed is refused, naming the package: episodes made by two
versions of a plugin never share a store.

recmarket's own code is recorded as a digest of every file of its package (what the code
reads: prompt templates, price tables and bundled data as well as modules), with the commit of the
checkout it runs from and whether that checkout was dirty; a resume by other code is warned
of in one line (``manifest.code_changes``). The installed packages are recorded for the
reader (as inspect_ai's ``EvalSpec.packages``): recmarket and what it requires,
transitively, and the plugins' distributions. The commit is that of the checkout the
running code came from: recmarket's own directory when installed editable, or the directory
``pip install .`` built it from, if that still holds the same files (pip records the
directory; a checkout that moved on since says nothing).
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import unquote, urlparse

from recmarket.catalogue.origins import package_files, source_digest
from recmarket.catalogue.variants_used import variants_in
from recmarket.config import RunConfig


def outside_variants(cfg: RunConfig) -> dict[str, dict[str, str]]:
    """``{"KIND NAME": {distribution, version, digest}}`` for each variant the settings use
    (``variants_in``) that recmarket does not ship."""
    found = {}
    for used in variants_in(cfg):
        origin = used.registry.origin(used.name)
        if origin is not None:
            found[f"{used.kind} {used.name}"] = {
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
    """A distribution name as packaging compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


PACKAGE = Path(__file__).resolve().parents[1]  # the recmarket package these modules are in


def _git(*args: str, where: Path) -> str | None:
    """What ``git ARGS`` prints in ``where`` (None: not a checkout, or no git)."""
    try:
        out = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def installed_from() -> Path | None:
    """The local directory a plain ``pip install DIR`` built recmarket from, as pip records
    it (``direct_url.json``); None for an editable install, an index or an unknown source."""
    try:
        text = distribution("recmarket").read_text("direct_url.json")
        found = json.loads(text or "{}")
    except (PackageNotFoundError, ValueError):
        return None
    url = urlparse(str(found.get("url", "")))
    if url.scheme != "file" or "dir_info" not in found or found["dir_info"].get("editable"):
        return None
    return Path(unquote(url.path))


def same_code(package: Path, source: Path) -> bool:
    """Whether two copies of the package hold the same files (``package_files``), byte for
    byte."""

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in package_files(root)}

    return source.is_dir() and files(package) == files(source)


@functools.cache
def checkout() -> Path | None:
    """The git checkout whose working tree is the code this process runs: recmarket's own
    directory (an editable install), or the directory a plain ``pip install .`` built it
    from while that directory still holds the same files (read once a process)."""
    if _git("rev-parse", "HEAD", where=PACKAGE):
        return PACKAGE
    source = installed_from()
    if source is not None and same_code(PACKAGE, source / "src" / "recmarket"):
        return source if _git("rev-parse", "HEAD", where=source) else None
    return None


@functools.cache
def own_code_digest() -> str:
    """SHA-256 of every file of recmarket's own package (modules, prompt templates, price
    tables, bundled data), read once a process: what made a store's episodes, whether or
    not a checkout holds it (compared on resume)."""
    return source_digest("recmarket")


@functools.cache
def git_commit() -> str | None:
    """The checkout's commit (None: no checkout holds the code this process runs)."""
    where = checkout()
    return None if where is None else _git("rev-parse", "HEAD", where=where)


@functools.cache
def checkout_dirty() -> bool | None:
    """Whether that checkout has uncommitted changes (None: no checkout), read once a
    process, as the commit is."""
    where = checkout()
    status = (
        None
        if where is None
        else _git("status", "--porcelain", "--untracked-files=no", where=where)
    )
    return None if status is None else bool(status)
