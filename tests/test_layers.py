"""The import graph: layers point one way and no module imports itself back.

From the top: the command line, a study and its add-ons, the report, analysis, running
(run, then experiments), the settings that compose every layer's own, the market, the
agents, then data and embedding, the catalogue of variants, and the leaf modules every layer
shares. A module may import its own package or a lower layer, never a higher one or a
sibling at its own level, and no chain of imports returns to where it started.
"""

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "recmarket"
LAYERS = (
    ("recmarket",),  # the version
    (
        "vocabulary",
        "profiles",
        "streams",
        "sqlite_files",
        "locks",
        "files",
        "tasks",
        "hashing",
        "numbers_given",
        "deprecation",
        "resampling",
    ),
    ("catalogue",),  # every kind of variant, its registry and entry points
    ("data", "embedding"),
    ("agents",),
    ("market",),
    ("config",),  # composes every layer's settings
    ("config_file",),  # reads them from a file
    ("experiments",),
    ("run",),
    ("analysis", "calibration", "validity"),
    ("report",),
    ("study",),  # a study: its add-ons (a pilot, calibrated on folds) and its cards
    ("api", "cli", "testing"),
    ("__main__",),
)
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports() -> dict[str, set[str]]:
    """Module -> the recmarket modules it imports (``from pkg import sub`` is ``pkg.sub``),
    wherever the import statement sits (a deferred import is still a dependency)."""
    known = modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = absolute(name, path, node.level, node.module)
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                ]
            else:
                continue
            graph[name] |= {t for t in targets if t.split(".")[0] == "recmarket"}
    return graph


def absolute(module: str, path: Path, level: int, target: str | None) -> str:
    """The module a ``from ... import`` names, relative ones (``from .x import y``) resolved
    against the importing module's package."""
    if level == 0:
        return target or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, target] if target else base)


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_every_module_has_a_layer() -> None:
    assert {layer(m) for m in modules()} <= set(RANK)


def test_no_module_imports_upward_or_sideways() -> None:
    wrong = sorted(
        f"{source} imports {target}"
        for source, targets in imports().items()
        for target in targets
        if layer(source) != layer(target) and RANK[layer(target)] >= RANK[layer(source)]
    )
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle() -> None:
    graph = imports()
    seen: dict[str, int] = {}  # 1: on the current path, 2: finished
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in seen:
                visit(nxt, [*path, nxt])
        seen[node] = 2

    for start in sorted(modules()):
        if start not in seen:
            visit(start, [start])
    assert not cycles, "\n".join(cycles)


@pytest.mark.parametrize(
    "module", ["recmarket.data.episodes", "recmarket.data.domain", "recmarket.config"]
)
def test_data_and_settings_load_neither_the_llm_sdk_nor_plotting(module: str) -> None:
    code = (
        f"import sys, {module}; "
        "print(sorted(m for m in ('openai', 'matplotlib', 'httpx') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("recmarket.agents.llm", "recmarket.agents.rules"),
        ("recmarket.agents.rules", "recmarket.agents.llm"),
        ("recmarket.market", "recmarket.agents.rules"),
        ("recmarket.market", "recmarket.agents.llm"),
    ],
)
def test_the_backends_stand_apart_and_the_market_knows_neither(source: str, forbidden: str) -> None:
    """The offline and LLM backends implement the same contracts without reading each
    other, and the market calls roles and measures episodes (agents.judgement) without
    knowing which backend answers."""
    wrong = sorted(
        f"{m} imports {t}"
        for m, targets in imports().items()
        if m == source or m.startswith(source + ".")
        for t in targets
        if t == forbidden or t.startswith(forbidden + ".")
    )
    assert not wrong, "\n".join(wrong)


def test_relative_imports_are_resolved_like_absolute_ones() -> None:
    init, module = PACKAGE / "agents" / "__init__.py", PACKAGE / "agents" / "roles.py"
    assert absolute("recmarket.agents", init, 1, "contracts") == "recmarket.agents.contracts"
    assert (
        absolute("recmarket.agents.roles", module, 1, "contracts") == "recmarket.agents.contracts"
    )
    assert absolute("recmarket.agents.roles", module, 2, "policies") == "recmarket.policies"
    assert absolute("recmarket.agents.roles", module, 0, "recmarket.streams") == "recmarket.streams"
