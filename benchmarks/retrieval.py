"""Retrieval for one episode over a 30,000-item, 768-dimension universe with N = 24.

Goal: <= 5 ms per episode on 2 cores. Measures the whole per-episode path of stage 2:
the episode's named random draws, the cosine scores of every item, and each platform's
exact top-L, Gumbel draw and controlled inclusion. Also reports the batched path (many
needs scored in one matrix product), which is how a run scores requests.

    python benchmarks/retrieval.py [--episodes 500] [--items 30000] [--dim 768] [--n 24]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from recmarket.market.catalogs import assign_catalogs
from recmarket.market.retrieval import EpisodeDraws, Retriever


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--items", type=int, default=30_000)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--n", type=int, default=24)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()

    gen = np.random.default_rng(0)
    vectors = gen.normal(size=(args.items, args.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    targets = gen.choice(args.items, size=args.episodes, replace=False)
    catalogs = assign_catalogs(
        args.items, targets, n_platforms=args.n, rho=0.1, cap=30_000, seed=42, domain="bench"
    )
    retriever = Retriever(vectors, catalogs, top_l=5, tau=0.1, p_hit=0.8)
    needs = vectors[targets] + 0.5 * gen.normal(size=(args.episodes, args.dim)).astype(np.float32)
    needs /= np.linalg.norm(needs, axis=1, keepdims=True)

    def episode(e: int, scores: np.ndarray) -> None:
        draws = EpisodeDraws.draw(42, "bench", e, args.n, 5)
        retriever.user_agent_pool(scores, int(targets[e]), draws)

    for e in range(20):  # warm-up
        episode(e, retriever.scores(needs[e]))
    times = []
    for e in range(args.episodes):
        start = time.perf_counter()
        episode(e, retriever.scores(needs[e]))
        times.append(time.perf_counter() - start)
    single = np.array(times) * 1e3

    start = time.perf_counter()
    for lo in range(0, args.episodes, args.batch):
        block = retriever.scores(needs[lo : lo + args.batch])
        for k, scores in enumerate(block):
            episode(lo + k, scores)
    batched = (time.perf_counter() - start) / args.episodes * 1e3

    sizes = catalogs.sizes()
    print(
        f"universe {args.items:,} x {args.dim}, N={args.n}, catalogs {sizes.min():,}-"
        f"{sizes.max():,} items, {args.episodes} episodes"
    )
    print(
        f"one episode at a time: median {np.median(single):.2f} ms, "
        f"p95 {np.percentile(single, 95):.2f} ms (goal <= 5 ms)"
    )
    print(f"batched scoring ({args.batch} needs per matrix product): {batched:.2f} ms per episode")


if __name__ == "__main__":
    main()
