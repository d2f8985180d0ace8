"""Put the bundled demo domains beside the real Amazon Reviews'23 samples on the measures
the offline model is sensitive to (``recmarket.data.realism``); prints a Markdown table.

python scripts/measure_data_realism.py [--samples ../shared/data/amazon23] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from recmarket.config import EpisodeConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, find_domains, load_domain
from recmarket.data.episodes import index_episodes, sample_requests
from recmarket.data.realism import profile
from recmarket.data.samples import real_slice

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
)


def row(label: str, directory: Path, name: str) -> str:
    domain = load_domain(domain_files(directory, name))
    eligible = len(index_episodes(domain, EpisodeConfig()))
    episodes = [r.episode for r in sample_requests(domain, EpisodeConfig(requests=eligible), 0)]
    p = profile(domain, episodes)
    cells = (
        f"{p.items:,}",
        f"{p.title_words_median:.0f} ({p.title_words_iqr[0]:.0f}-{p.title_words_iqr[1]:.0f})",
        f"{p.title_segments_mean:.1f}",
        f"{p.distinct_review_texts:.0%}",
        f"{p.kinds:,}",
        f"{p.top_kind_share:.1%}",
        f"{p.kinds_with_one_item:.0%}",
        f"{p.target_kind_in_history:.1%}",
    )
    return f"| {label} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=SHARED)
    parser.add_argument("--data", type=Path, default=BUNDLED_DATA_DIR)
    args = parser.parse_args()
    print("| domain | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in real_slice(args.samples, Path(tmp)):
            print(row(f"real: {name}", Path(tmp), name))
    beauty = json.loads((args.samples / BEAUTY_REVIEWS).read_text())
    texts = [r["text"] for user in beauty.values() for r in user.values() if r.get("text")]
    print(f"| real: All_Beauty (reviews only) | | | | {len(set(texts)) / len(texts):.0%} | | | | |")
    for files in find_domains(args.data):
        print(row(f"demo: {files.name}", args.data, files.name))


if __name__ == "__main__":
    main()
