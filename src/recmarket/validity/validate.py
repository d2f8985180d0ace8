"""``recmarket validate``: the held-out protocol on a data directory's domains, scored with
the offline user (or any role bundle), written as the validity card."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from recmarket import __version__
from recmarket.agents.roles import Agents
from recmarket.data.domain import domain_files, find_domains, load_domain
from recmarket.data.raw import DataError
from recmarket.embedding import Embedder
from recmarket.embedding.similarity import similarity_for
from recmarket.run.provenance import git_commit
from recmarket.validity.card import CardRow, card_rows, write_csv, write_page
from recmarket.validity.heldout import held_outs, in_half
from recmarket.validity.scoring import Scored, UserScorer, score_all


def validate(
    data: Path,
    domains: Sequence[str],
    agents: Agents,
    embedder: Embedder,
    out: Path,
    *,
    negatives: int = 9,
    seed: int = 42,
    half: str = "all",
) -> list[CardRow]:
    """Score every person of ``domains`` (all of ``data``'s where empty), or those of one
    half (``heldout.HALVES``), and write ``out/validity.csv`` and ``out/validity.md``."""
    files = [domain_files(data, d) for d in domains] if domains else find_domains(data)
    if not files:
        raise DataError(f"{data}: no domain found (expected {{Category}}.jsonl[.gz] with meta)")
    scored: list[Scored] = []
    for f in files:
        domain = load_domain(f)
        scorer = UserScorer(agents, similarity_for(embedder), domain, seed)
        chosen = [h for h in held_outs(domain, negatives, seed) if in_half(h, half)]
        scored += score_all(scorer, chosen)
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
    write_page(rows, out / "validity.md", made)
    return rows
