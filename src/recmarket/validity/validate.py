"""``recmarket validate``: the held-out protocol on a data directory's domains, scored with
the offline user (or any role bundle), written as the validity card."""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recmarket import __version__
from recmarket.agents.llm.backend import LLMBackend
from recmarket.agents.roles import Agents
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.data.domain import DomainFiles, load_domain
from recmarket.data.fingerprint import digests
from recmarket.data.raw import DataError
from recmarket.embedding import Embedder, load_embedder
from recmarket.embedding.similarity import similarity_for
from recmarket.files import replaced
from recmarket.locks import WriterLock
from recmarket.run.provenance import git_commit
from recmarket.validity.card import CardRow, card_rows, write_csv, write_page
from recmarket.validity.differences import differences
from recmarket.validity.heldout import (
    Skipped,
    domain_files_of,
    held_outs,
    in_half,
)
from recmarket.validity.kept import KeptCard, default_cards, keep_card
from recmarket.validity.scoring import Scored, UserScorer, score_every


async def validate(
    data: Path,
    domains: Sequence[str],
    agents: Agents,
    embedder: Embedder,
    out: Path,
    *,
    negatives: Sequence[int] = (9,),
    pairs: int | None = None,
    seed: int = 42,
    half: str = "all",
    concurrency: int = 1,
    keep: Callable[[list[CardRow], KeptCard], object] | None = None,
) -> list[CardRow]:
    """Score every person of ``domains`` (all of ``data``'s where empty), or those of one
    half (``heldout.HALVES``), among ``1 + n`` candidates for each ``n`` of ``negatives``
    from every pool, and 1:1 against each of the first ``pairs`` (every negative of the
    smallest draw where None), and write ``out/validity.csv``, ``out/validity.md`` and
    ``out/skipped.csv``, holding ``out``'s writer lock (``DirectoryInUse`` while another
    process writes there); ``keep`` is given the card's rows and what the card says of
    itself (``KeptCard``)."""
    counts = tuple(sorted(set(negatives)))
    if not counts or counts[0] < 1:
        raise ValueError(f"negatives {list(negatives)}: give one or more counts of at least 1")
    paired = counts[0] if pairs is None else pairs
    if not 1 <= paired <= counts[0]:
        raise ValueError(
            f"pairs {pairs}: pair the held-out with 1 to {counts[0]} negatives "
            "(the fewest --negatives draws)"
        )
    with WriterLock(out):
        return await _validate(
            data, domains, agents, embedder, out, counts, paired, seed, half, concurrency, keep
        )


@dataclass
class Gathered:
    """Every domain's scored held-outs and what was left out."""

    scored: list[Scored] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    silent: dict[str, dict[str, str]] = field(default_factory=dict)
    repeats: int = 0
    of_kind: dict[str, tuple[int, int]] = field(default_factory=dict)  # Drawn.of_kind, summed


async def _gather(
    files: Sequence[DomainFiles],
    agents: Agents,
    embedder: Embedder,
    negatives: tuple[int, ...],
    pairs: int,
    seed: int,
    half: str,
    concurrency: int,
) -> Gathered:
    found = Gathered()
    for f in files:
        try:
            domain = load_domain(f)
        except DataError as error:  # a category the loader cannot use: the others go on
            found.skipped.append(Skipped(f.name, "", str(error)))
            continue
        report = domain.report
        for name, issues in (("review", report.review_issues), ("meta", report.meta_issues)):
            found.skipped += [
                Skipped(f.name, "", f"{UNUSABLE}{name} line: {reason}", n)
                for reason, n in sorted(issues.items())
            ]
        drawn = held_outs(domain, negatives[-1], seed)
        found.skipped += drawn.skipped
        found.repeats += drawn.repeats
        chosen = [h for h in drawn.held if in_half(h, half)]
        scorer = UserScorer(
            agents,
            similarity_for(embedder),
            domain,
            seed,
            tuple(1 + n for n in negatives),
            pairs=pairs,
        )
        if chosen:  # a category none of whose people is judged leaves no baseline out
            found.silent[f.name] = {
                name: why for name, b in scorer.baselines.items() if (why := b.note(scorer.data))
            }
        for pool, (same, total) in drawn.of_kind(chosen).items():
            before = found.of_kind.get(pool, (0, 0))
            found.of_kind[pool] = (before[0] + same, before[1] + total)
        scorer.prepare()
        found.scored += await score_every(scorer, chosen, concurrency)
    return found


def _made(about: KeptCard, names: str, found: Gathered) -> str:
    """What the card says of how it was made, and of what it left out."""
    commit = f" at {hit[:10]}" if (hit := git_commit()) else ""
    scored = found.scored
    made = (
        f"_Made by `recmarket validate --data {about.data} --negatives "
        f"{','.join(map(str, about.negatives))} --pairs {about.pairs} --seed {about.seed} "
        f"--half {about.half}` "
        f"(recmarket {__version__}{commit}) on {names}: {len(scored)} held-outs of "
        f"{len({(s.domain, s.person) for s in scored})} people._"
    )
    made += f" Left out ({SKIPPED_CSV}): {left_out(found.skipped)}."
    made += (
        f" {found.repeats} held-out items the person had reviewed before: those earlier "
        "reviews left out of their history (and every held-out item out of every pool)."
    )
    if shares := [f"{pool} {same / total:.0%}" for pool, (same, total) in found.of_kind.items()]:
        made += f" Negatives of the held-out's own kind, by pool: {', '.join(shares)}."
    if about.half == "all":
        made += (
            " All people: in-sample for every parameter of the defaults fitted on the fit "
            "half (docs/people.md); --half report is the held-out reading."
        )
    failed = Counter(role for s in scored for role in s.failures)
    if failed:
        made += " Role failures, each scored as the market scores it (a ranking not made puts "
        made += "the held-out last, a decision not made buys nothing): "
        made += ", ".join(f"{role} {n}" for role, n in sorted(failed.items())) + "."
    return made


async def _validate(
    data: Path,
    domains: Sequence[str],
    agents: Agents,
    embedder: Embedder,
    out: Path,
    negatives: tuple[int, ...],
    pairs: int,
    seed: int,
    half: str,
    concurrency: int,
    keep: Callable[[list[CardRow], KeptCard], object] | None,
) -> list[CardRow]:
    files = domain_files_of(data, domains)
    read = digests(path for f in files for path in (f.reviews, f.meta))
    found = await _gather(files, agents, embedder, negatives, pairs, seed, half, concurrency)
    out.mkdir(parents=True, exist_ok=True)
    write_skipped(found.skipped, out / SKIPPED_CSV)
    if not found.scored:
        raise DataError(
            f"{data}: no person could be judged (every category or person was left out; "
            f"{out / SKIPPED_CSV} says why)"
        )
    rows = card_rows(found.scored, seed, found.silent)
    write_csv(rows, out / "validity.csv")
    about = KeptCard(
        data=str(data),
        files={name: d.sha256 for name, d in read.items()},
        domains=tuple(f.name for f in files),
        negatives=negatives,
        pairs=pairs,
        seed=seed,
        half=half,
        made="",
    )
    made = _made(about, ", ".join(f.name for f in files), found)
    paired = [d.cells() for d in differences(found.scored, seed)]
    write_page(rows, out / "validity.md", made, paired)
    if keep is not None:
        keep(rows, about.model_copy(update={"made": made}))
    return rows


SKIPPED_CSV = "skipped.csv"
UNUSABLE = "unusable "  # how a skipped row of lines starts its reason


def left_out(skipped: Sequence[Skipped]) -> str:
    """How many categories, people and lines were left out, in words."""
    lines = sum(s.count for s in skipped if s.reason.startswith(UNUSABLE))
    categories = sum(1 for s in skipped if not s.person and not s.reason.startswith(UNUSABLE))
    people = len({(s.domain, s.person) for s in skipped if s.person})
    return (
        f"{categories} categories, {people} people (wholly, or at the larger candidate "
        f"counts), {lines} unusable lines"
    )


def skipped_summary(path: Path) -> str:
    """``left_out`` of a written ``skipped.csv``."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = [
            Skipped(r["domain"], r["person"], r["reason"], int(r["count"]))
            for r in csv.DictReader(f)
        ]
    return left_out(rows)


def write_skipped(skipped: Sequence[Skipped], path: Path) -> None:
    """``skipped.csv``: every category, person and kind of line left out, and why (whole)."""
    with replaced(path) as temporary, temporary.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(("domain", "person", "reason", "count"))
        writer.writerows((s.domain, s.person, s.reason, s.count) for s in skipped)


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
        calls = out / CALLS_FILE  # its spend too: --budget counts every rerun into ``out``
        backend = LLMBackend(settings.llm, [calls], calls, replay=replay, budget=budget)
        backend.ledger.account.clear_reservations()  # ``out``'s lock: none other is live
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
