"""Put the bundled demo domains beside the real Amazon Reviews'23 samples on the measures
the offline model is sensitive to (``recmarket.data.realism``); prints three Markdown tables,
which ``scripts/docs_tables.py`` writes into docs/data.md.

python scripts/measure_data_realism.py [--samples ../shared/data/amazon23] [--data DIR]

The first holds measures of whole domains, with ``target best fit``: the share of NoRep pools
in which the target is strictly the best judged fit, and ``rival within half a band``: the
share in which another pooled item's judged fit lies within HALF_BAND of the target's (a
credible alternative, Appendix C.1), both from a NoRep run of REQUESTS requests per domain,
offline agents at their defaults. The second compares how distinctive titles are
(distinct title words per item, near-duplicate title pairs per 1,000 items), which depend
on catalog size: each demo domain is sub-sampled to the item count of each real slice. The
third puts the NoRep funnel's levels side by side (the gap a reader comparing levels with
the paper must allow for): each domain at SEEDS seeds, at most LEVEL_REQUESTS requests a
seed (the Office slice's eligible count), mean over seeds with a t-interval over them.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

from recmarket.analysis.funnel import funnel
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, find_domains, load_domain
from recmarket.data.episodes import index_episodes, sample_requests
from recmarket.data.realism import (
    distinct_tokens_per_item,
    near_duplicates_per_1000,
    profile,
    subsample,
)
from recmarket.data.samples import real_slice
from recmarket.run.runner import run

BEAUTY_REVIEWS = "current12_all_beauty_5core/history_reviews.json"  # real texts, no meta
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "amazon23"
COLUMNS = (
    "items",
    "title words (median, IQR)",
    "title segments",
    "distinct review texts",
    "kinds",
    "largest kind",
    "kinds with one item",
    "target kind in history",
    "target best fit",
    "rival within half a band",
)
HALF_BAND = 0.1  # half of one of the level scale's five bands (agents.rules.lexicon)
REQUESTS = 600  # per domain at most (the real slices hold fewer eligible requests)
SEEDS = (1, 2, 3, 4, 5)
LEVEL_REQUESTS = 362  # the Office slice's eligible requests; Fashion holds 105
LEVELS = (
    ("target present", "target_present"),
    ("target best fit", "target_best_fit"),
    ("target shortlisted", "target_shortlisted"),
    ("target top-1", "target_top1"),
    ("target purchased", "target_purchase"),
    ("any purchase", "any_purchase"),
)


def row(label: str, directory: Path, name: str) -> str:
    domain = load_domain(domain_files(directory, name))
    eligible = len(index_episodes(domain, EpisodeConfig()))
    episodes = [r.episode for r in sample_requests(domain, EpisodeConfig(requests=eligible), 0)]
    p = profile(domain, episodes)
    best_fit, rival = target_standing(directory, name, min(REQUESTS, eligible))
    cells = (
        f"{p.items:,}",
        f"{p.title_words_median:.0f} ({p.title_words_iqr[0]:.0f}-{p.title_words_iqr[1]:.0f})",
        f"{p.title_segments_mean:.1f}",
        "(no texts)" if math.isnan(p.distinct_review_texts) else f"{p.distinct_review_texts:.0%}",
        f"{p.kinds:,}",
        f"{p.top_kind_share:.1%}",
        f"{p.kinds_with_one_item:.0%}",
        f"{p.target_kind_in_history:.1%}",
        f"{best_fit:.1%}",
        f"{rival:.1%}",
    )
    return f"| {label} | " + " | ".join(cells) + " |"


def target_standing(directory: Path, name: str, requests: int) -> tuple[float, float]:
    """Shares of NoRep pools (default seed) whose target is strictly the best judged fit,
    and in which another item's fit lies within HALF_BAND of the target's."""
    rows = norep_rows(directory, name, requests, RunConfig.model_fields["seed"].default)
    rival = [r["target_fit_gap"] is not None and r["target_fit_gap"] <= HALF_BAND for r in rows]
    return float(funnel(rows)["macro"]["target_best_fit"]), float(np.mean(rival))


def norep_rows(directory: Path, name: str, requests: int, seed: int) -> list[dict]:
    """The episodes of a NoRep run of one domain."""
    cfg = RunConfig.model_validate(
        {
            "data": str(directory),
            "domains": [name],
            "condition": "no-rep",
            "seed": seed,
            "episodes": {"requests": requests},
        }
    )
    with tempfile.TemporaryDirectory() as out:
        result = run(cfg, Path(out))
        rows = result.store.episodes()
        result.store.close()
    return rows


def level_row(label: str, directory: Path, name: str) -> str:
    """A domain's NoRep levels: mean over seeds and a 95% t-interval over them (df 4)."""
    domain = load_domain(domain_files(directory, name))
    requests = min(LEVEL_REQUESTS, len(index_episodes(domain, EpisodeConfig())))
    runs = [funnel(norep_rows(directory, name, requests, seed))["macro"] for seed in SEEDS]
    cells = []
    for _, key in LEVELS:
        values = 100 * np.array([float(r[key]) for r in runs])
        half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
        cells.append(
            f"{values.mean():.1f} [{values.mean() - half:.1f}, {values.mean() + half:.1f}]"
        )
    return f"| {label} | {requests} | " + " | ".join(cells) + " |"


def levels(real_dir: Path, real_names: list[str], demo_dir: Path) -> str:
    lines = [
        f"| NoRep levels (%; {len(SEEDS)} seeds, t-interval df {len(SEEDS) - 1}) | requests | "
        + " | ".join(label for label, _ in LEVELS)
        + " |",
        "|---" * (len(LEVELS) + 2) + "|",
    ]
    lines += [level_row(f"real: {name}", real_dir, name) for name in real_names]
    lines += [
        level_row(f"demo: {files.name}", demo_dir, files.name) for files in find_domains(demo_dir)
    ]
    return "\n".join(lines) + "\n"


def titles_of(directory: Path, name: str) -> list[str]:
    return [item.title for item in load_domain(domain_files(directory, name)).items]


def distinctiveness(real: dict[str, list[str]], demo: dict[str, list[str]]) -> str:
    lines = [
        "| titles | items | distinct title words per item | near-duplicate pairs per 1,000 |",
        "|---|---|---|---|",
    ]
    for name, titles in real.items():
        rows = [(f"real: {name}", titles)]
        rows += [
            (f"demo: {d}, {len(titles):,} sampled", subsample(t, len(titles)))
            for d, t in demo.items()
        ]
        for label, chosen in rows:
            words, twins = distinct_tokens_per_item(chosen), near_duplicates_per_1000(chosen)
            lines.append(f"| {label} | {len(chosen):,} | {words:.2f} | {twins:.1f} |")
    return "\n".join(lines) + "\n"


def tables(samples: Path = SHARED, data: Path = BUNDLED_DATA_DIR) -> dict[str, str]:
    """The three tables, by the name docs/data.md's markers give them (scripts/docs_tables.py
    writes them there)."""
    profiles = [
        "| domain | " + " | ".join(COLUMNS) + " |",
        "|---" * (len(COLUMNS) + 1) + "|",
    ]
    real, demo = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in real_slice(samples, Path(tmp)):
            profiles.append(row(f"real: {name}", Path(tmp), name))
            real[name] = titles_of(Path(tmp), name)
        beauty = json.loads((samples / BEAUTY_REVIEWS).read_text())
        texts = [r["text"] for user in beauty.values() for r in user.values() if r.get("text")]
        share = len(set(texts)) / len(texts)
        profiles.append("| real: All_Beauty (reviews only) | | | | " + f"{share:.0%}" + " |" * 6)
        for files in find_domains(data):
            profiles.append(row(f"demo: {files.name}", data, files.name))
            demo[files.name] = titles_of(data, files.name)
        return {
            "data-realism": "\n".join(profiles) + "\n",
            "data-titles": distinctiveness(real, demo),
            "data-levels": levels(Path(tmp), list(real), data),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=SHARED)
    parser.add_argument("--data", type=Path, default=BUNDLED_DATA_DIR)
    args = parser.parse_args()
    print("\n".join(tables(args.samples, args.data).values()))


if __name__ == "__main__":
    main()
