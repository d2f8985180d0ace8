"""Helpers for tests: tiny raw files in the official Amazon Reviews'23 format."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from recmarket.data.episodes import Episode, Interaction, Request

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "amazon23"


def write_jsonl(path: Path, records: Iterable[dict[str, Any] | str], *, gz: bool = False) -> Path:
    """Write records (dicts as JSON, strings verbatim) one per line, gzip if asked."""
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


def review(user: str, item: str, ts: int, rating: float = 5.0, **extra: Any) -> dict[str, Any]:
    return {
        "rating": rating,
        "title": f"t-{item}",
        "text": f"review of {item} by {user}",
        "images": [],
        "asin": item,
        "parent_asin": item,
        "user_id": user,
        "timestamp": ts,
        "helpful_vote": 0,
        "verified_purchase": True,
        **extra,
    }


def meta(item: str, **extra: Any) -> dict[str, Any]:
    return {
        "main_category": "Musical Instruments",
        "title": f"Item {item}",
        "average_rating": 4.2,
        "rating_number": 10,
        "features": [f"Feature of {item}"],
        "description": [f"Description of {item}."],
        "price": 9.99,
        "images": [],
        "videos": [],
        "store": "Brand",
        "categories": [],
        "details": {},
        "parent_asin": item,
        "bought_together": None,
        **extra,
    }


def episode_row(domain: str, **values: Any) -> dict[str, Any]:
    """A stored episode row with the fields shares and paper metrics read."""
    row: dict[str, Any] = {
        "domain": domain,
        "ord": 0,
        "target_copies": 1,
        "pool_size": 4,
        "rep_label": None,
        "purchased_policy": None,
        "same_item_top1": False,
        "top1_policy": "strict",
    }
    return {**row, **values}


def user_request(user: int, profile: str = "novice_advice") -> Request:
    """A request of simulated user ``user`` with an empty history."""
    item = Interaction(
        parent_asin="a",
        item_index=0,
        title="t",
        rating=5,
        timestamp=0,
        review_title="",
        review_text="",
    )
    episode = Episode(
        episode_id=f"D/u{user}", domain="D", user_id=f"u{user}", history=(), target=item
    )
    return Request(episode=episode, profile=profile, sim_user=user, round=0, order=0)


def bundled_parts(name: str, requests: int, seed: int) -> tuple[Any, list[Request], Any, Any]:
    """A bundled domain, its sampled requests, its item vectors and the offline embedder:
    what building a market of that domain needs."""
    from recmarket.config import EpisodeConfig
    from recmarket.data import BUNDLED_DATA_DIR
    from recmarket.data.domain import domain_files, load_domain
    from recmarket.data.episodes import sample_requests
    from recmarket.embedding.base import StaticEmbedder
    from recmarket.market.build import item_vectors

    domain = load_domain(domain_files(BUNDLED_DATA_DIR, name))
    sampled = sample_requests(domain, EpisodeConfig(requests=requests), seed=seed)
    embedder = StaticEmbedder()
    return domain, sampled, item_vectors(domain, embedder, None), embedder


@contextmanager
def lock_held_elsewhere(directory: Path) -> Iterator[int]:
    """Another process holding ``directory``'s writer lock while the body runs: its pid."""
    import subprocess
    import sys

    hold = "import sys, time; from pathlib import Path; from recmarket.locks import WriterLock\n"
    hold += "lock = WriterLock(Path(sys.argv[1])); print('held', flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", hold, str(directory)], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"held"
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def completion_body(usage: dict[str, Any], content: str = "{}") -> tuple[str, bytes]:
    """A raw chat completion (content type and body) with the given ``usage`` field."""
    body = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": usage,
    }
    return "application/json", json.dumps(body).encode()


def fake_llm_pilot(server: Any, out: Path, cache: Path, requests: int) -> None:
    """A run with every role answered by the loopback fake (key in RECMARKET_TEST_KEY)."""
    from recmarket.agents.llm.config import LLMConfig, ModelConfig
    from recmarket.config import EpisodeConfig, RunConfig
    from recmarket.run.play_options import PlayOptions
    from recmarket.run.runner import run

    model = ModelConfig(name="fake", base_url=server.base_url, api_key_env="RECMARKET_TEST_KEY")
    cfg = RunConfig(
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=requests),
        llm=LLMConfig(models={"m": model}, roles={"default": "m"}),
    )
    run(cfg, out, PlayOptions(llm_cache=cache)).store.close()
