"""A run's stored records in a canonical form, to compare runs made by different versions.

Episode rows are kept whole (they are small and show what changed); each episode's role
calls, inputs and outputs, are kept as one SHA-256, which changes with any byte of them.
``python -m tests.run.records OUT.json.gz`` writes the records of ``CELLS`` (run by the
installed or PYTHONPATH version): how the committed golden file was made.
"""

import gzip
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.run.runner import run
from recmarket.run.store import RunStore

BASE = {"domains": ["Video_Games"], "episodes": {"requests": 12, "users_per_profile": 1}}
CELLS: dict[str, dict[str, Any]] = {
    "local-rep": {**BASE, "condition": "local-rep", "seed": 5},
    "no-rep": {**BASE, "condition": "no-rep", "seed": 6},
    "platform-centric": {**BASE, "condition": "platform-centric", "seed": 7},
    "shared-scope-rotated": {
        **BASE,
        "condition": "local-rep",
        "reputation_scope": "shared",
        "seed": 8,
        "market": {"rho": 1.0, "rotation": 1, "composition": "strict-exaggeration"},
    },
}


def stored_calls(store: RunStore) -> Any:
    """Every call of the run: played again where it was not kept (this version's
    ``recmarket.run.replay``), as stored by a version that kept every call."""
    try:
        from recmarket.run.replay import all_calls
    except ImportError:
        return store.all_calls()
    return all_calls(store)


def records(run_dir: Path) -> dict[str, Any]:
    store = RunStore.read(run_dir)  # closed explicitly: older versions are no context manager
    episodes = store.episodes()
    calls: dict[str, Any] = {}
    for domain, order, call in stored_calls(store):
        digest = calls.setdefault(f"{domain}:{order}", hashlib.sha256())
        digest.update(json.dumps([call.role, call.input, call.output], sort_keys=True).encode())
    store.close()
    return {"episodes": episodes, "calls": {k: d.hexdigest() for k, d in sorted(calls.items())}}


def run_cells(out: Path, cells: dict[str, dict[str, Any]] = CELLS) -> dict[str, Any]:
    result = {}
    for name, settings in cells.items():
        run(RunConfig.model_validate(settings), out / name).store.close()
        result[name] = records(out / name)
    return result


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        made = run_cells(Path(tmp))
    Path(sys.argv[1]).write_bytes(gzip.compress(json.dumps(made, sort_keys=True).encode(), mtime=0))
