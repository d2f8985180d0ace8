"""Measure, on the real Amazon Reviews'23 samples, the scales of the offline model
(``ScaleParams``): where a fit level reads 0 and 1, where closeness reads 0, and the mean
rating assumed for an unrated listing.

python scripts/measure_offline_scales.py [--samples ../shared/data/amazon23]

For every episode of the real slice (bitrecs Office and Fashion, re-shaped into the official
format), the offline user writes a request from the target and the offline user agent
structures it; the cosine of that need with the target's visible fields (its 90th
percentile) is the "fit 1" reference, and with a random other item of the domain (median)
the "fit 0" reference. The defaults in ``agents/rules/params.py`` are these numbers,
rounded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

import numpy as np

from recmarket.agents.contracts import HeldOutTarget, NeedInput, PastInteraction, QueryInput
from recmarket.agents.rules import offline_agents
from recmarket.config import EpisodeConfig
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.episodes import index_episodes, sample_requests
from recmarket.data.samples import real_slice
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig
from recmarket.embedding.similarity import similarity_for, visible_text
from recmarket.profiles import PROFILE_BY_NAME

BEAUTY_META = "current12_all_beauty_5core/meta_data.json"  # the one sample with ratings
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "amazon23"


def _past(i) -> PastInteraction:
    return PastInteraction(
        title=i.title, rating=i.rating, review_title=i.review_title, review_text=i.review_text
    )


async def measure(samples: Path) -> dict[str, float]:
    embedder = load_embedder(EmbedderConfig())
    agents, sim = offline_agents(embedder), similarity_for(embedder)
    own, other, pairs = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in real_slice(samples, Path(tmp)):
            domain = load_domain(domain_files(Path(tmp), name))
            eligible = len(index_episodes(domain, EpisodeConfig()))
            requests = sample_requests(domain, EpisodeConfig(requests=eligible), seed=0)
            items = list(domain.items)
            views = [visible_text(i.evidence.title, i.evidence.category) for i in items]
            gen = np.random.default_rng(0)
            for seed, r in enumerate(requests):
                t = r.episode.target
                target = HeldOutTarget(
                    title=t.title,
                    rating=t.rating,
                    review_title=t.review_title,
                    review_text=t.review_text,
                )
                history = tuple(_past(h) for h in r.episode.history)
                query = await agents.query(
                    QueryInput(
                        domain=name,
                        profile=PROFILE_BY_NAME[r.profile],
                        history=history,
                        target=target,
                    ),
                    seed,
                )
                need = await agents.need(
                    NeedInput(history=history, query_text=query.query_text), seed
                )
                k = int(gen.integers(len(items)))
                fits = sim.to_each(need.current_need, [views[t.item_index], views[k]])
                own.append(fits[0])
                other.append(fits[1])
                a, b = gen.integers(len(items), size=2)
                pairs.append(sim.pair(items[a].evidence.title, items[b].evidence.title))
    beauty = json.loads((samples / BEAUTY_META).read_text())
    ratings = [m["average_rating"] for m in beauty.values() if m.get("average_rating")]
    return {
        "episodes": len(own),
        "fit_zero (median need-to-random-item cosine)": float(np.median(other)),
        "fit_one (90th percentile need-to-own-target cosine)": float(np.percentile(own, 90)),
        "(median need-to-own-target cosine)": float(np.median(own)),
        "closeness_zero (median random title pair cosine)": float(np.median(pairs)),
        "unknown_rating (mean average_rating, All_Beauty meta)": float(np.mean(ratings))
        if ratings
        else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=SHARED)
    args = parser.parse_args()
    for key, value in asyncio.run(measure(args.samples)).items():
        print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")


if __name__ == "__main__":
    main()
