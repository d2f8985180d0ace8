"""Where an outside variant's code comes from, as a run records it: its distribution,
version and a digest of every file it ships (``plugin_digest``), and the digest of every
file of recmarket's own package (``source_digest``). The registry asks for an ``Origin`` of each
variant a run's settings name; a resume that finds another is refused."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Origin:
    """Where an outside variant's code comes from, as a run records it."""

    distribution: str
    version: str
    digest: str  # SHA-256 of the source files of the variant's top-level package

    def describe(self) -> str:
        """The origin in words: distribution, version and the start of the source digest."""
        return f"{self.distribution} {self.version} (source {self.digest[:12]})"


def package_files(root: Path) -> list[Path]:
    """Every file a package directory holds that its code may read (modules, prompt
    templates, price tables, bundled data, model files), in path order; never a compiled
    cache, which the interpreter writes beside the source."""
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.relative_to(root).parts and p.suffix != ".pyc"
    )


def source_digest(module: str) -> str:
    """SHA-256 over every file of ``module``'s top-level package (``package_files``: path
    and bytes, in path order): an edit of any file its code reads changes it, a prompt
    template or a price table as much as a module, whatever the version says."""
    top = module.split(".")[0]
    spec = importlib.util.find_spec(top)
    digest = hashlib.sha256()
    if spec is None:
        return digest.hexdigest()
    roots = [Path(p) for p in spec.submodule_search_locations or ()]
    files = [(f.relative_to(root), f) for root in roots for f in package_files(root)]
    if not roots and spec.origin:
        files = [(Path(Path(spec.origin).name), Path(spec.origin))]
    for name, file in files:
        digest.update(name.as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def plugin_digest(module: str, dist: importlib.metadata.Distribution | None) -> str:
    """SHA-256 over every file a plugin ships (path and bytes, in path order): the files its
    distribution's RECORD lists (modules, sibling modules, package data; not its metadata
    nor compiled caches), and every file under the top-level package of ``module`` (which
    covers an editable install, whose RECORD lists only its link). An edit of any file it
    reads changes it. A file that cannot be read raises ``OSError`` naming it."""
    files: dict[Path, str] = {}
    for listed in (dist.files or []) if dist is not None else []:
        path = Path(str(listed.locate()))
        if not any(part.endswith(".dist-info") for part in listed.parts):
            files.setdefault(path.resolve(), listed.as_posix())
    top = module.split(".")[0]
    spec = importlib.util.find_spec(top)
    roots = [Path(p) for p in (spec.submodule_search_locations or ())] if spec else []
    for root in roots:
        for path in package_files(root):
            files.setdefault(path.resolve(), f"{top}/{path.relative_to(root).as_posix()}")
    if spec is not None and not roots and spec.origin:
        files.setdefault(Path(spec.origin).resolve(), Path(spec.origin).name)
    digest = hashlib.sha256()
    for path, name in sorted(files.items(), key=lambda item: item[1]):
        if "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def module_of(item: object) -> str:
    """The module whose code makes the variant behave: the variant's class, or for a
    variant that wraps a callable (a learning rule's ``make``), that callable's."""
    for value in vars(item).values() if hasattr(item, "__dict__") else ():
        if callable(value) and not isinstance(value, type(len)):
            owner = getattr(value, "__module__", None)
            if owner and not owner.startswith("recmarket"):
                return owner
    return type(item).__module__


def owning_distribution(module: str) -> importlib.metadata.Distribution | None:
    """The installed distribution whose code ``module`` is: of those that claim its
    top-level name, the first whose RECORD lists the module's file, or that lists no file
    of that name at all (an editable install, whose RECORD holds only its link). One that
    ships other files under the name does not own this module: some distributions ship a
    stray top-level ``tests`` package, which would otherwise claim every ``tests.*``."""
    top = module.split(".")[0]
    names = importlib.metadata.packages_distributions().get(top, [])
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    here = Path(spec.origin).resolve() if spec is not None and spec.origin else None
    for name in names:
        dist = importlib.metadata.distribution(name)
        under = [f for f in dist.files or [] if f.parts and f.parts[0] == top]
        if not under or any(Path(str(f.locate())).resolve() == here for f in under):
            return dist
    return None
