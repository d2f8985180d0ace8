"""``recmarket validate``: the held-out protocol on a data directory's domains, scored with
the offline user (or any role bundle), written as the validity card."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from recmarket import __version__
from recmarket.agents.llm.backend import LLMBackend
from recmarket.agents.roles import Agents
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.data.domain import load_domain
from recmarket.data.fingerprint import digests
from recmarket.data.raw import DataError
from recmarket.embedding import Embedder, load_embedder
from recmarket.embedding.similarity import similarity_for
from recmarket.locks import WriterLock
from recmarket.run.provenance import git_commit
from recmarket.validity.card import CardRow, card_rows, write_csv, write_page
from recmarket.validity.differences import differences
from recmarket.validity.heldout import domain_files_of, held_outs, in_half
from recmarket.validity.kept import KeptCard, default_cards, keep_card
from recmarket.validity.scoring import Scored, UserScorer, score_every


async def validate(
    data: Path,
    domains: Sequence[str],
    agents: Agents,
    embedder: Embedder,
    out: Path,
    *,
    negatives: int = 9,
    seed: int = 42,
    half: str = "all",
    concurrency: int = 1,
    keep: Callable[[list[CardRow], KeptCard], object] | None = None,
) -> list[CardRow]:
    """Score every person of ``domains`` (all of ``data``'s where empty), or those of one
    half (``heldout.HALVES``), and write ``out/validity.csv`` and ``out/validity.md``,
    holding ``out``'s writer lock (``DirectoryInUse`` while another process writes there);
    ``keep`` is given the card's rows and what the card says of itself (``KeptCard``)."""
    with WriterLock(out):
        return await _validate(
            data, domains, agents, embedder, out, negatives, seed, half, concurrency, keep
        )


async def _validate(
    data: Path,
    domains: Sequence[str],
    agents: Agents,
    embedder: Embedder,
    out: Path,
    negatives: int,
    seed: int,
    half: str,
    concurrency: int,
    keep: Callable[[list[CardRow], KeptCard], object] | None,
) -> list[CardRow]:
    files = domain_files_of(data, domains)
    read = digests(path for f in files for path in (f.reviews, f.meta))
    scored: list[Scored] = []
    for f in files:
        domain = load_domain(f)
        scorer = UserScorer(agents, similarity_for(embedder), domain, seed)
        chosen = [h for h in held_outs(domain, negatives, seed) if in_half(h, half)]
        scored += await score_every(scorer, chosen, concurrency)
    if not scored:
        raise DataError(f"{data}: no person has a history before their latest review")
    rows = card_rows(scored, 1 + negatives, seed)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "validity.csv")
    names = ", ".join(f.name for f in files)
    commit = f" at {found[:10]}" if (found := git_commit()) else ""
    made = (
        f"_Made by `recmarket validate --data {data} --negatives {negatives} --seed {seed} "
        f"--half {half}` "
        f"(recmarket {__version__}{commit}) on {names}: {len(scored)} held-outs of "
        f"{len({s.person for s in scored})} people._"
    )
    failed = Counter(role for s in scored for role in s.failures)
    if failed:
        made += " Role failures, each scored as the market scores it (a ranking not made puts "
        made += "the held-out last, a decision not made buys nothing): "
        made += ", ".join(f"{role} {n}" for role, n in sorted(failed.items())) + "."
    paired = [d.cells() for d in differences(scored, seed)]
    write_page(rows, out / "validity.md", made, paired)
    if keep is not None:
        about = KeptCard(
            data=str(data),
            files={name: d.sha256 for name, d in read.items()},
            domains=tuple(f.name for f in files),
            negatives=negatives,
            seed=seed,
            half=half,
            made=made,
        )
        keep(rows, about)
    return rows


CALLS_FILE = "calls.sqlite"  # a model's calls, kept beside the card: a rerun costs nothing
LLM_HELD_OUTS_AT_ONCE = 32  # the endpoint's adaptive limit paces the calls themselves


async def validate_settings(
    settings: RunConfig,
    data: Path,
    domains: Sequence[str],
    out: Path,
    *,
    replay: bool = False,
    budget: float | None = None,
    cards: Path | None = None,
    **protocol: Any,
) -> list[CardRow]:
    """``validate`` with the roles a settings file gives: its ``[agents]``, and where it
    has an ``[llm]`` table, the models of the roles it names, through the run's LLM path
    (cards, structured outputs, retries, limits, spend), every call kept in
    ``out/calls.sqlite``; ``replay`` serves them from there and sends none. The card is
    kept in ``cards`` (``kept.default_cards()`` unless told) for the report."""
    with WriterLock(out):  # first: a second validate into ``out`` stops before any work
        embedder = load_embedder(settings.embedder)
        agents = offline_agents(embedder, settings.agents, settings.roles)
        kept_in = cards or default_cards()

        def keep(rows: list[CardRow], about: KeptCard) -> None:
            keep_card(rows, about, settings, kept_in)

        protocol["keep"] = keep
        if settings.llm is None:
            return await validate(data, domains, agents, embedder, out, **protocol)
        backend = LLMBackend(settings.llm, [out / CALLS_FILE], replay=replay, budget=budget)
        try:
            return await validate(
                data,
                domains,
                backend.agents(agents),
                embedder,
                out,
                concurrency=LLM_HELD_OUTS_AT_ONCE,
                **protocol,
            )
        finally:
            await backend.aclose()
            backend.close()
