"""The paper's directions must come out of the mechanisms, on the bundled demo data with the
defaults (N=6, K=J=3, rho=0.1, p_hit=0.8, 600 requests per domain, seed 42)."""

import pytest

from recmarket.analysis.funnel import funnel
from recmarket.config import EpisodeConfig, MarketConfig, RunConfig
from recmarket.run.runner import run


@pytest.fixture(scope="module")
def macro(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("findings")

    def cell(condition: str, n: int = 6) -> dict:
        cfg = RunConfig(
            condition=condition,
            episodes=EpisodeConfig(requests=600),
            market=MarketConfig(n_platforms=n),
        )
        store = run(cfg, root / f"{condition}-{n}").store
        return funnel(store.episodes())["macro"]

    return {
        name: cell(*spec)
        for name, spec in {
            "pc": ("platform-centric",),
            "nr": ("no-rep",),
            "lr": ("local-rep",),
            "lr24": ("local-rep", 24),
        }.items()
    }


def test_user_agent_access_triples_platform_centric_presence(macro) -> None:
    assert macro["nr"]["target_present"] >= 3 * macro["pc"]["target_present"]
    assert macro["nr"]["target_purchased"] > macro["pc"]["target_purchased"]


def test_exaggeration_wins_attention_without_reputation_and_loses_it_with(macro) -> None:
    no_rep = macro["nr"]["top1_share_by_policy"]["exaggeration"]
    local_rep = macro["lr"]["top1_share_by_policy"]["exaggeration"]
    assert no_rep > 0.45
    assert local_rep < no_rep


def test_market_expansion_adds_access_but_tightens_attention(macro) -> None:
    assert macro["lr24"]["target_present"] > macro["lr"]["target_present"]
    assert macro["lr24"]["target_shortlisted"] < macro["lr"]["target_shortlisted"]
