"""The docs' tables made from a local model's answers: SmolLM2-135M-Instruct, served by
llama.cpp on loopback, in four small cells and in the audit.

The model's answers are kept in docs/evidence/smollm2/ (the cells' call store and the
audit's), and every table is made by *replaying* them: the cells are run again, and the
audit's probes asked again, with every call served from those stores and none sent
(``--replay``). So a table is what today's code makes of the stored answers: a change to a
parser, a probe or the funnel that would print other figures fails
tests/test_docs_tables.py, and a change to a prompt (whose answers are not stored) fails it
too, naming the command that asks the model again:

    python scripts/llm_evidence.py make     # needs pip install ".[local]"; about 20 min on 2 cores

The cells (seed 3, Video Games, one user a profile, structured outputs in llama-cpp-python's
form, one call at a time):

- ``local-rep-text`` and ``local-rep``: the same LocalRep requests, with the plain-text
  roles (explain, review) asked for plain text, then for an array of 1-3 sentences under a
  schema (``llm.text_replies``), for the structured-outputs table of docs/llms.md;
- ``local-rep`` is also the pilot that ``calibrate`` fits, and ``no-rep`` and
  ``no-rep-strict-exaggeration`` are the cells its ``--check`` predicts (docs/calibration.md).
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from recmarket.agents.llm.audit.card import AuditCard
from recmarket.agents.llm.audit.runner import CALLS_FILE
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.formats import TextReplies
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.market.settings import MarketConfig

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE = ROOT / "docs" / "evidence" / "smollm2"
CALLS = EVIDENCE / "calls.sqlite"
AUDITS = EVIDENCE / "audits"
# A fixed port: the call key holds the endpoint, so a replay must name the one asked
PORT = 18717
KEY_ENV = "RECMARKET_LOCAL_KEY"  # llama.cpp ignores the key; the variable must exist
MAKE = "python scripts/llm_evidence.py make"
SEED, DOMAIN, PILOT_REQUESTS, CHECK_REQUESTS = 3, "Video_Games", 6, 4
AUDIT_TRIALS, AUDIT_SEED = 6, 0


def stored_name() -> str:
    """The name of the model whose answers are stored: a replay needs no model file."""
    if not CALLS.is_file():
        raise NotStored(f"{CALLS}: no stored answers; ask the model: {MAKE}")
    with sqlite3.connect(f"file:{CALLS}?mode=ro", uri=True) as db:
        names = [name for (name,) in db.execute("SELECT DISTINCT model FROM llm_calls")]
    if len(names) != 1:
        raise NotStored(f"{CALLS}: answers of {len(names)} models stored, not one: {names}")
    return names[0]


def model(name: str) -> ModelConfig:
    """The local model on the fixed port, with the settings every cell and the audit use."""
    return ModelConfig(
        name=name,
        base_url=f"http://127.0.0.1:{PORT}/v1",
        api_key_env=KEY_ENV,
        structured="json_object",  # what `auto` settles on for llama-cpp-python's server
        concurrency=1,  # the server answers one call at a time; more would only queue
        adaptive_concurrency=False,
        timeout=600,
    )


def cell(
    condition: str, requests: int, text_replies: TextReplies = "sentences", **market: str
) -> Callable[[str], RunConfig]:
    """One of the cells, for a model's name: every role played by the local model."""
    return lambda name: RunConfig(
        condition=condition,
        domains=(DOMAIN,),
        seed=SEED,
        market=MarketConfig(**market),
        episodes=EpisodeConfig(requests=requests, users_per_profile=1),
        llm=LLMConfig(
            models={"smol": model(name)}, roles={"default": "smol"}, text_replies=text_replies
        ),
    )


CELLS: dict[str, Callable[[str], RunConfig]] = {
    "local-rep-text": cell("local-rep", PILOT_REQUESTS, text_replies="text"),
    "local-rep": cell("local-rep", PILOT_REQUESTS),
    "no-rep": cell("no-rep", CHECK_REQUESTS),
    "no-rep-strict-exaggeration": cell(
        "no-rep", CHECK_REQUESTS, composition="strict=3,exaggeration=3"
    ),
}


def _audit(name: str, audits: Path, replay: bool = False) -> AuditCard:
    from recmarket.agents.llm.audit.probes import Material
    from recmarket.agents.llm.audit.runner import audit_model
    from recmarket.data import BUNDLED_DATA_DIR
    from recmarket.data.domain import domain_files, load_domain

    items = load_domain(domain_files(BUNDLED_DATA_DIR, DOMAIN)).items
    llm = LLMConfig(models={"smol": model(name)}, roles={"default": "smol"})
    material = Material(DOMAIN, items, AUDIT_SEED)
    return asyncio.run(audit_model(llm, "smol", material, AUDIT_TRIALS, audits, replay=replay))


def make() -> None:
    """Serve the model on the fixed port and ask it everything the tables need, keeping
    its answers in fresh evidence stores (so no answer the code no longer asks for lingers;
    git keeps the old ones)."""
    from recmarket.agents.llm.local import LocalServer
    from recmarket.run.play_options import PlayOptions
    from recmarket.run.runner import run

    os.environ.setdefault(KEY_ENV, "local")
    shutil.rmtree(EVIDENCE, ignore_errors=True)
    EVIDENCE.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp, LocalServer(port=PORT) as server:
        print(f"serving {server.alias} at {server.base_url}", flush=True)
        for name, config in CELLS.items():
            result = run(config(server.alias), Path(tmp) / name, PlayOptions(llm_cache=CALLS))
            failed = sum(1 for e in result.store.episodes() if e["failed_role"])
            result.store.close()
            print(f"{name}: {failed} failed episodes", flush=True)
        card = _audit(server.alias, AUDITS)
        print(f"audit: {sum(r.trials for r in card.results)} trials", flush=True)
    for store in (CALLS, *AUDITS.glob(f"*/{CALLS_FILE}")):
        with sqlite3.connect(store) as db:  # committed files: compact, one file each
            db.execute("PRAGMA journal_mode=DELETE")
        with sqlite3.connect(store) as db:
            db.execute("VACUUM")


def _copy(store: Path, to: Path) -> None:
    """A whole copy of a SQLite store (what its write-ahead log holds too)."""
    to.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as src, sqlite3.connect(to) as dst:
        src.backup(dst)


class NotStored(RuntimeError):
    """A call the evidence stores do not answer: the code asks what the model was not."""


_SCRATCH: list[tempfile.TemporaryDirectory[str]] = []  # removed when the process ends


def _scratch() -> Path:
    """A directory for replayed runs that lives as long as the process."""
    _SCRATCH.append(tempfile.TemporaryDirectory(prefix="recmarket-evidence-"))
    return Path(_SCRATCH[-1].name)


@functools.cache
def replayed() -> dict[str, Path]:
    """Each cell run again from the stored answers (no call sent), in a directory that
    lives as long as the process."""
    from recmarket.agents.llm.client import ReplayMiss
    from recmarket.run.play_options import PlayOptions
    from recmarket.run.runner import run

    os.environ.setdefault(KEY_ENV, "local")
    stored = stored_name()
    scratch = _scratch()
    cache = scratch / "calls.sqlite"
    _copy(CALLS, cache)  # the committed store stays as it is
    runs = {}
    for name, config in CELLS.items():
        try:
            result = run(config(stored), scratch / name, PlayOptions(llm_cache=cache, replay=True))
        except ReplayMiss as exc:
            raise NotStored(f"{name}: {exc}; ask the model again: {MAKE}") from None
        result.store.close()
        runs[name] = scratch / name
    return runs


def audit_card() -> tuple[AuditCard, Path]:
    """The audit made again from its stored answers, and the store of its calls."""
    scratch = _scratch()
    for store in AUDITS.glob(f"*/{CALLS_FILE}"):
        _copy(store, scratch / "audits" / store.parent.name / CALLS_FILE)
    from recmarket.agents.llm.client import ReplayMiss

    try:
        card = _audit(stored_name(), scratch / "audits", replay=True)
    except ReplayMiss as exc:
        raise NotStored(f"the audit: {exc}; ask the model again: {MAKE}") from None
    (store,) = (scratch / "audits").glob(f"*/{CALLS_FILE}")
    return card, store


if __name__ == "__main__":
    if sys.argv[1:] != ["make"]:
        raise SystemExit(__doc__)
    make()
