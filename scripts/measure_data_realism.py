"""Put the bundled demo domains beside the real Amazon Reviews'23 samples on the measures
the offline model is sensitive to (``recmarket.data.realism``); prints two Markdown tables.

python scripts/measure_data_realism.py [--samples ../shared/data/amazon23] [--data DIR]

The first holds measures of whole domains, with ``target best fit``: the share of NoRep pools
in which the target is strictly the best judged fit (a NoRep run of REQUESTS requests per
domain, offline agents at their defaults). The second compares how distinctive titles are
(distinct title words per item, near-duplicate title pairs per 1,000 items), which depend
on catalog size: each demo domain is sub-sampled to the item count of each real slice.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path

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
)
REQUESTS = 600  # per domain at most (the real slices hold fewer eligible requests)


def row(label: str, directory: Path, name: str) -> str:
    domain = load_domain(domain_files(directory, name))
    eligible = len(index_episodes(domain, EpisodeConfig()))
    episodes = [r.episode for r in sample_requests(domain, EpisodeConfig(requests=eligible), 0)]
    p = profile(domain, episodes)
    best_fit = target_best_fit(directory, name, min(REQUESTS, eligible))
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
    )
    return f"| {label} | " + " | ".join(cells) + " |"


def target_best_fit(directory: Path, name: str, requests: int) -> float:
    """Share of NoRep pools whose target is strictly the best judged fit."""
    cfg = RunConfig.model_validate(
        {
            "data": str(directory),
            "domains": [name],
            "condition": "no-rep",
            "episodes": {"requests": requests},
        }
    )
    with tempfile.TemporaryDirectory() as out:
        result = run(cfg, Path(out))
        rows = result.store.episodes()
        result.store.close()
    return float(funnel(rows)["macro"]["target_best_fit"])


def titles_of(directory: Path, name: str) -> list[str]:
    return [item.title for item in load_domain(domain_files(directory, name)).items]


def distinctiveness(real: dict[str, list[str]], demo: dict[str, list[str]]) -> None:
    print("\n| titles | items | distinct title words per item | near-duplicate pairs per 1,000 |")
    print("|---|---|---|---|")
    for name, titles in real.items():
        rows = [(f"real: {name}", titles)]
        rows += [
            (f"demo: {d}, {len(titles):,} sampled", subsample(t, len(titles)))
            for d, t in demo.items()
        ]
        for label, chosen in rows:
            words, twins = distinct_tokens_per_item(chosen), near_duplicates_per_1000(chosen)
            print(f"| {label} | {len(chosen):,} | {words:.2f} | {twins:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=SHARED)
    parser.add_argument("--data", type=Path, default=BUNDLED_DATA_DIR)
    args = parser.parse_args()
    print("| domain | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    real = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in real_slice(args.samples, Path(tmp)):
            print(row(f"real: {name}", Path(tmp), name))
            real[name] = titles_of(Path(tmp), name)
    beauty = json.loads((args.samples / BEAUTY_REVIEWS).read_text())
    texts = [r["text"] for user in beauty.values() for r in user.values() if r.get("text")]
    share = len(set(texts)) / len(texts)
    print(f"| real: All_Beauty (reviews only) | | | | {share:.0%} | | | | | |")
    demo = {}
    for files in find_domains(args.data):
        print(row(f"demo: {files.name}", args.data, files.name))
        demo[files.name] = titles_of(args.data, files.name)
    distinctiveness(real, demo)


if __name__ == "__main__":
    main()
