"""What calibration learns from: the stored role calls of finished runs, as choice
situations described by the features the offline model reads.

Each observation holds what its role saw, read the way the offline role reads it (judged
fit by the judge, claim levels, disclosures and credibility through the shared lexicon),
and what the role answered. Any backend's runs can be read: an LLM's explanation whose
words the lexicon cannot place claims nothing, which leaves the claim weights unidentified
rather than wrong (the fit report says so).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from recmarket.agents.contracts import (
    DecisionInput,
    ReputationRecord,
    Shortlist,
    ShortlistInput,
    UpdateInput,
)
from recmarket.agents.judgement import Judge
from recmarket.agents.rules import lexicon
from recmarket.agents.rules.agent import need_fit
from recmarket.embedding.similarity import visible_text
from recmarket.profiles import PROFILE_BY_INSTRUCTION
from recmarket.run.replay import all_calls
from recmarket.run.store import RunStore

EpisodeKey = tuple[str, str, int]  # (run directory, domain, order)


@dataclass(frozen=True)
class Candidate:
    """One shortlist candidate as the calibration sees it: its fit, its claim's distance,
    its disclosures, its place and its records' evidence."""

    fit: float  # the judge's noiseless fit of the visible fields to the current need
    distance: float  # the claim's level minus the fit as words carry it (0: nothing claimed)
    disclosures: int
    position: float  # place in the prompt's candidate list, 0 (first) to 1 (last)
    product: tuple[str, str]  # title and category: offers of one item are one product
    records: tuple[ReputationRecord, ...] | None  # None without reputation


@dataclass(frozen=True)
class RankingObservation:
    """One shortlist: its candidates and the order the user agent chose."""

    episode: EpisodeKey
    candidates: tuple[Candidate, ...]
    ranked: tuple[int, ...]  # indices of the candidates the user agent ranked, best first


@dataclass(frozen=True)
class Option:
    """One shown option as the calibration sees it: fit, claim distance, the belief the
    reason states, rank and product."""

    fit: float  # noiseless fit of the visible fields to the request
    distance: float
    belief: float | None  # the credibility the user agent's reason states, if any
    rank: int
    product: tuple[str, str]


@dataclass(frozen=True)
class DecisionObservation:
    """One decision: the profile, the options and which was bought (None: nothing)."""

    episode: EpisodeKey
    profile: str
    options: tuple[Option, ...]
    chosen: int | None  # index of the option bought, None for nothing


@dataclass(frozen=True)
class LabelObservation:
    """One record: the claim's excess over the reported experience and the label it got."""

    episode: EpisodeKey
    gap: float  # claim (less disclosure relief) over the experience the review reports
    label: str


@dataclass(frozen=True)
class Observations:
    """Everything the stored calls of the runs show of the three fitted roles, and how many
    claims the lexicon could not read."""

    rankings: tuple[RankingObservation, ...]
    decisions: tuple[DecisionObservation, ...]
    labels: tuple[LabelObservation, ...]
    unread_claims: int  # explanations whose claimed level the lexicon could not place
    explanations: int


def _distance(explanation: str, fit: float) -> float | None:
    claim = lexicon.CLAIM.read(explanation)
    return None if claim is None else claim - lexicon.as_said(float(fit))


def ranking(
    key: EpisodeKey, inp: ShortlistInput, out: Shortlist, judge: Judge, long_term_weight: float
) -> RankingObservation:
    """A shortlist call as an observation: each candidate's noiseless fit (to the whole
    need, as the ranker with ``long_term_weight`` reads it), claim distance, disclosures,
    place and records."""
    views = [visible_text(c.title, c.category) for c in inp.candidates]
    fits = need_fit(judge, inp.need, views, long_term_weight)
    last = max(len(inp.candidates) - 1, 1)
    candidates = tuple(
        Candidate(
            fit=float(fit),
            distance=_distance(c.explanation, fit) or 0.0,
            disclosures=lexicon.count_disclosures(c.explanation),
            position=i / last,
            product=(c.title, c.category),
            records=None if inp.histories is None else inp.histories.get(c.platform_id, ()),
        )
        for i, (c, fit) in enumerate(zip(inp.candidates, fits, strict=True))
    )
    index = {c.platform_id: i for i, c in enumerate(inp.candidates)}
    return RankingObservation(key, candidates, tuple(index[r.platform_id] for r in out.ranked))


def decision(
    key: EpisodeKey, inp: DecisionInput, chosen_id: str | None, judge: Judge
) -> DecisionObservation:
    """A decision call as an observation: each option's noiseless fit, claim distance and
    stated belief."""
    views = [visible_text(o.title, o.category) for o in inp.options]
    fits = judge.fit(inp.query_text, views)
    options = tuple(
        Option(
            fit=float(fit),
            distance=_distance(o.explanation, fit) or 0.0,
            belief=lexicon.CREDIBILITY.read(o.reason) if o.reason else None,
            rank=o.rank,
            product=(o.title, o.category),
        )
        for o, fit in zip(inp.options, fits, strict=True)
    )
    ids = [o.option_id for o in inp.options]
    return DecisionObservation(
        key,
        PROFILE_BY_INSTRUCTION[inp.instruction].name,
        options,
        None if chosen_id is None else ids.index(chosen_id),
    )


def label(
    key: EpisodeKey, inp: UpdateInput, record: ReputationRecord, relief: float
) -> LabelObservation | None:
    """The updater's situation as the offline updater reads it; None where a side states
    no level the lexicon can read (the label then says nothing about the thresholds)."""
    claim = lexicon.CLAIM.read(inp.explanation)
    experience = lexicon.EXPERIENCE.read(inp.review)
    if claim is None or experience is None:
        return None
    expected = claim - relief * lexicon.count_disclosures(inp.explanation)
    return LabelObservation(key, round(expected - experience, 6), record.claim_reliability)


def _calls(run_dir: Path) -> Iterator[tuple[EpisodeKey, str, dict, dict]]:
    with RunStore.read(run_dir) as store:
        for domain, order, call in all_calls(store):
            if call.output is not None:  # a failed call shows no behaviour to fit
                yield (str(run_dir), domain, order), call.role, call.input, call.output


def read_observations(
    run_dirs: Iterable[Path], judge: Judge, long_term_weight: float
) -> Observations:
    """Every shortlist, decision and label of the runs, as observations, the shortlists'
    fits read with the long-term need at ``long_term_weight`` (a given of the ranker being
    fitted, not one of its estimates)."""
    rankings, decisions, labels = [], [], []
    unread = explanations = 0
    relief = judge.scale.disclosure_relief
    for run_dir in run_dirs:
        for key, role, inp, out in _calls(run_dir):
            if role == "explain":
                explanations += 1
                unread += lexicon.CLAIM.read(out["text"]) is None
            elif role == "shortlist":
                shortlist_in = ShortlistInput.model_validate(inp)
                shortlist = Shortlist.model_validate(out)
                rankings.append(ranking(key, shortlist_in, shortlist, judge, long_term_weight))
            elif role == "decide":
                decisions.append(
                    decision(key, DecisionInput.model_validate(inp), out["option_id"], judge)
                )
            elif role == "update":
                seen = label(key, UpdateInput.model_validate(inp), ReputationRecord(**out), relief)
                if seen is not None:
                    labels.append(seen)
    return Observations(tuple(rankings), tuple(decisions), tuple(labels), unread, explanations)


def held_out(key: EpisodeKey, folds: int = 5) -> bool:
    """Whether an episode is in the held-out fifth: a stable hash of its key, so the split
    is the same on every machine and does not depend on the order runs are given in."""
    return zlib.crc32(f"{Path(key[0]).name}/{key[1]}/{key[2]}".encode()) % folds == 0
