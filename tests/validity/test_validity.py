"""The held-out protocol, its scorers and the card, on tiny domains whose answers are known:
the latest review held out, negatives never touched and seeded, baselines that rank as
their rules say, and intervals that resample people, not held-outs."""

import csv
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.params import OfflineParams
from recmarket.agents.rules.user_params import ReviewParams
from recmarket.cli import app
from recmarket.data.domain import domain_files, load_domain
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig
from recmarket.embedding.similarity import similarity_for
from recmarket.testing.fake_llm import FakeLLM
from recmarket.validity.card import COLUMNS, card_rows
from recmarket.validity.differences import differences
from recmarket.validity.heldout import HeldOut, held_outs, in_half
from recmarket.validity.measures import card_measures
from recmarket.validity.ranking import chance_values, ranked_values, tied_values
from recmarket.validity.scoring import ANY, Scored, UserScorer
from tests.data.test_domain import newest_first
from tests.fixtures import meta

ITEMS = [f"i{k:02d}" for k in range(40)]
KINDS = ["Guitar Strings", "Drum Sticks", "Piano Bench", "Violin Bow"]
HR1 = ("hr@1", "history", "ranker", 10, "random")


def title(k: int) -> str:
    return f"{['Nickel', 'Maple', 'Oak', 'Steel', 'Bright'][k % 5]} {KINDS[k % 4]} No {k}"


@pytest.fixture(scope="module")
def embedder():
    return load_embedder(EmbedderConfig())


@pytest.fixture
def tiny(make_domain) -> Path:
    """30 people, each with six reviews of one kind of item (the latest rated 1 or 5)."""
    reviews = []
    for u in range(30):
        mine = [ITEMS[(u % 4) + 4 * j] for j in range(6)]  # items of one kind
        ratings = [5.0] * 5 + [1.0 if u % 5 == 0 else 5.0]
        reviews += newest_first(f"user{u:03d}", mine, ratings)
    metas = [meta(x, title=title(k), rating_number=k) for k, x in enumerate(ITEMS)]
    return make_domain(reviews, metas, name="Tiny")


def _random(found: list[HeldOut], count: int = 9) -> list[tuple[int, ...] | None]:
    return [h.negatives("random", count) for h in found]


def test_the_latest_review_is_held_out_against_items_never_touched(tiny: Path) -> None:
    domain = load_domain(domain_files(tiny, "Tiny"))
    found = held_outs(domain, 9, seed=3, max_history=4).held
    assert len(found) == 30
    for h in found:
        e = h.episode
        assert len(e.history) == 4  # at most max_history before the latest
        assert all(p.timestamp < e.target.timestamp for p in e.history)
        touched = {p.item_index for p in e.history} | {e.target.item_index}
        for pool in ("random", "same-kind"):
            negatives = set(h.negatives(pool, 9) or ())
            assert len(negatives) == 9 and not touched & negatives
    assert _random(held_outs(domain, 9, seed=3).held) == _random(found)
    assert _random(held_outs(domain, 9, seed=4).held) != _random(found)
    assert sum(not h.positive for h in found) == 6  # rated 1: reviews, not ranking
    few = held_outs(domain, 35, seed=3)  # 18 untouched: judged among 19, never refused
    assert len(few.held) == 30 and all(len(h.pools["random"]) == 18 for h in few.held)
    assert _random(few.held, 9) == _random(found)  # the 1-of-10 draw heads every larger one
    assert _random(few.held, 35) == [None] * 30
    assert {s.reason for s in few.skipped} == {
        "only 18 items untouched: judged among at most 19 candidates, not 36"
    }


def test_the_pairwise_measure_is_the_mean_over_its_pairs_ties_half() -> None:
    scores = np.array([0.5, 0.2, 0.9, 0.5, 0.1])
    assert tied_values(scores)["pairwise_1to1"] == 1.0  # against the first negative alone
    assert tied_values(scores, 3)["pairwise_1to1"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert tied_values(scores, 4)["pairwise_1to1"] == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    assert tied_values(scores, 4)["hr@1"] == pytest.approx(0.0)  # 0.9 above it


def test_the_ranker_meets_each_paired_negative_in_its_own_call(tiny: Path, embedder) -> None:
    """The user agent's 1:1 value is the share of its pairs won, one call of two candidates
    a pair: with one pair a 0 or 1 from four such calls (two protocols, two pools), with
    nine a ninth's multiple from 36."""
    from dataclasses import replace

    domain = load_domain(domain_files(tiny, "Tiny"))
    agents = offline_agents(embedder)
    pairs_asked: list[int] = []

    async def shortlist(inp, seed):
        if len(inp.candidates) == 2:
            pairs_asked.append(seed)
        return await agents.shortlist(inp, seed)

    counted = replace(agents, shortlist=shortlist)
    key = ("pairwise_1to1", "history", "ranker", 10, "random")
    held = next(h for h in held_outs(domain, 9, seed=3).held if h.positive)
    for n, calls in ((1, 4), (9, 36)):
        pairs_asked.clear()
        scorer = UserScorer(counted, similarity_for(embedder), domain, 3, pairs=n)
        value = _score(scorer, held).values[key]
        assert len(set(pairs_asked)) == calls  # each pair its own call and its own seed
        assert round(value * n) == pytest.approx(value * n)
    with pytest.raises(ValueError, match="pair the held-out with 1 to 9 negatives"):
        UserScorer(agents, similarity_for(embedder), domain, 3, pairs=10)


def test_the_measures_of_a_rank_and_of_chance() -> None:
    assert ranked_values(1) == {"hr@1": 1.0, "hr@3": 1.0, "ndcg@10": 1.0}
    assert ranked_values(3)["hr@1"] == 0.0 and ranked_values(3)["hr@3"] == 1.0
    assert ranked_values(11)["ndcg@10"] == 0.0
    chance = chance_values(10)
    assert chance["hr@1"] == pytest.approx(0.1) and chance["hr@3"] == pytest.approx(0.3)
    assert chance["ndcg@10"] == pytest.approx(np.mean([1 / np.log2(r + 1) for r in range(1, 11)]))


def test_the_baselines_rank_by_their_rules(tiny: Path, embedder) -> None:
    """Each person's history is of one kind, and the held-out is of that kind: the
    centroid of the history titles ranks it above other kinds more often than chance;
    popularity ranks by rating count (the held-out's against its negatives')."""
    domain = load_domain(domain_files(tiny, "Tiny"))
    scorer = UserScorer(offline_agents(embedder), similarity_for(embedder), domain, 3)
    found = held_outs(domain, 9, seed=3).held
    ranked = [scorer.baseline_values(h, 10, "random") for h in found]
    assert np.mean([r[("hr@1", "history", "centroid", 10, "random")] for r in ranked]) > 0.5


def test_the_decisions_chance_of_buying_is_its_own(tiny: Path, embedder) -> None:
    domain = load_domain(domain_files(tiny, "Tiny"))
    agents = offline_agents(embedder)
    scorer = UserScorer(agents, similarity_for(embedder), domain, 3)
    scored = [s for h in held_outs(domain, 9, seed=3).held if (s := _score(scorer, h))]
    buys = [v for s in scored for k, v in s.values.items() if k[0].startswith("p_buy")]
    assert buys and all(0.0 < b < 1.0 for b in buys)  # a logit's chance, not a draw
    measures = {k[0] for s in scored for k in s.values}
    # a correlation is kept as pairs, the decision's separation is made of two measures
    assert measures == set(card_measures()) - {"star_spearman", "p_buy_4_5_less_1_2"}
    assert any(k[2] == "review" for s in scored for k in s.values)  # personal stars by default
    closeness = OfflineParams(review=ReviewParams(experience="closeness"))
    plain = UserScorer(offline_agents(embedder, closeness), scorer.similarity, domain, 3)
    unstarred = [s for h in held_outs(domain, 9, seed=3).held if (s := _score(plain, h))]
    assert unstarred and not any(k[2] == "review" for s in unstarred for k in s.values)


def _score(scorer: UserScorer, h) -> Scored:
    import asyncio

    return asyncio.run(scorer.score(h))


def test_the_card_resamples_people_not_held_outs() -> None:
    """A person's held-outs are one unit: ten people with one held-out each give a narrower
    interval than two people with five alike each, for the same values."""
    values = [1.0, 0.0] * 5
    many = [Scored("D", f"p{i}", {HR1: v}) for i, v in enumerate(values)]
    few = [Scored("D", f"p{i % 2}", {HR1: v}) for i, v in enumerate(values)]
    row_many, row_few = (
        next(r for r in card_rows(scored, 1) if r.scorer == "ranker" and r.domain == "all")
        for scored in (many, few)
    )
    assert row_many.value == row_few.value == 0.5
    assert row_many.n_people == 10 and row_few.n_people == 2 and row_few.n == 10
    assert (row_few.low, row_few.high) == (0.0, 1.0)  # two people, one all hits, one none
    assert 0.0 < row_many.low < 0.5 < row_many.high < 1.0


def test_validate_writes_the_card(tiny: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["validate", "--data", str(tiny), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    with (tmp_path / "validity.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == COLUMNS
    scorers = {r["scorer"] for r in rows}
    assert {"ranker", "decision", "centroid", "popularity", "chance"} <= scorers
    for r in rows:
        if r["low"]:
            assert float(r["low"]) - 1e-9 <= float(r["value"]) <= float(r["high"]) + 1e-9
    page = (tmp_path / "validity.md").read_text()
    assert "What rests on which measure" in page and "Tiny" in page
    for wrong, says in (
        (["--negatives", "0"], "from 1 to 99"),
        (["--negatives", "9,x"], "whole numbers separated by commas"),
        (["--negatives", "4,9", "--pairs", "5"], "--pairs 5: at most 4"),
    ):
        refused = CliRunner().invoke(
            app, ["validate", "--data", str(tiny), *wrong, "--out", str(tmp_path)]
        )
        assert refused.exit_code != 0 and says in refused.output


def test_the_halves_split_people_once_and_for_all(tiny: Path, tmp_path: Path) -> None:
    domain = load_domain(domain_files(tiny, "Tiny"))
    found = held_outs(domain, 9, seed=3).held
    fit = {h.episode.user_id for h in found if in_half(h, "fit")}
    report = {h.episode.user_id for h in found if in_half(h, "report")}
    assert fit and report and not fit & report
    assert fit | report == {h.episode.user_id for h in found}
    again = held_outs(domain, 9, seed=8).held
    assert fit == {h.episode.user_id for h in again if in_half(h, "fit")}
    refused = CliRunner().invoke(
        app, ["validate", "--data", str(tiny), "--half", "first", "--out", str(tmp_path)]
    )
    assert (
        refused.exit_code != 0 and "--half first: choose one of all, fit, report" in refused.output
    )


@pytest.mark.slow  # end to end: the loopback model through the LLM path, then a replay
def test_a_model_answers_the_user_roles_and_a_replay_sends_nothing(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user agent and the decision answered by the loopback fake model through the
    run's LLM path; every call kept beside the card, so a replay with the server gone makes
    the same card."""
    monkeypatch.setenv("RECMARKET_TEST_KEY", "sk-test")
    settings = tmp_path / "model.toml"
    with FakeLLM() as server:
        settings.write_text(
            f'[llm.models.m]\nname = "fake"\nbase_url = "{server.base_url}"\n'
            'api_key_env = "RECMARKET_TEST_KEY"\n'
            '[llm.roles]\nneed = "m"\nshortlist = "m"\ndecide = "m"\n'
        )
        args = ["validate", "--data", str(tiny), "--config", str(settings), "--negatives", "4"]
        live = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "out")])
        assert live.exit_code == 0, live.output
    assert (tmp_path / "out" / "calls.sqlite").is_file()
    card = (tmp_path / "out" / "validity.csv").read_text()
    assert "ranker" in card and "decision" in card
    again = CliRunner().invoke(app, [*args, "--replay", "--out", str(tmp_path / "out")])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "out" / "validity.csv").read_text() == card


@pytest.mark.slow  # end to end: the loopback model, priced, three times
def test_the_budget_counts_every_rerun_into_one_out(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spend is kept beside the calls: a rerun with new calls adds to it, and a budget the
    earlier runs already spent stops the next one before it calls, keeping the earlier
    card's calls."""
    from recmarket.agents.llm.ledger import SpendAccount

    monkeypatch.setenv("RECMARKET_TEST_KEY", "sk-test")
    settings = tmp_path / "model.toml"
    out = tmp_path / "out"
    with FakeLLM() as server:
        settings.write_text(
            f'[llm.models.m]\nname = "fake"\nbase_url = "{server.base_url}"\n'
            'api_key_env = "RECMARKET_TEST_KEY"\ninput_price = 1.0\noutput_price = 1.0\n'
            '[llm.roles]\ndecide = "m"\n'
        )
        args = ["validate", "--data", str(tiny), "--config", str(settings), "--negatives", "4"]
        first = CliRunner().invoke(app, [*args, "--out", str(out)])
        assert first.exit_code == 0, first.output
        spent = SpendAccount(out / "calls.sqlite", None).spent
        assert spent > 0
        second = CliRunner().invoke(app, [*args, "--seed", "7", "--out", str(out)])
        assert second.exit_code == 0, second.output
        both = SpendAccount(out / "calls.sqlite", None).spent
        assert both > spent  # the second run's new calls added to the first's
        budget = f"{both * 1.001:.9f}"
        third = CliRunner().invoke(
            app, [*args, "--seed", "8", "--budget", budget, "--out", str(out)]
        )
    assert third.exit_code != 0 and "budget" in third.output.lower()
    assert SpendAccount(out / "calls.sqlite", None).spent <= float(budget)


def test_star_errors_and_their_rank_correlation() -> None:
    """RMSE is the root of the mean squared error (its interval's ends too); Spearman is read
    over every held-out's pair, resampling people; a constant prediction has none."""
    real = [1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 4.0, 2.0]
    said = [2.0, 2.0, 3.0, 5.0, 5.0, 4.0, 4.0, 1.0]
    scored = [
        Scored(
            "D",
            f"p{i}",
            {("star_rmse", "history", "review", *ANY): (s - r) ** 2},
            pairs={
                ("star_spearman", "history", "review", *ANY): (s, r),
                ("star_spearman", "history", "always_5", *ANY): (5.0, r),
            },
        )
        for i, (s, r) in enumerate(zip(said, real, strict=True))
    ]
    rows = {(r.measure, r.scorer): r for r in card_rows(scored, 1) if r.domain == "all"}
    rmse = rows[("star_rmse", "review")]
    assert rmse.value == pytest.approx(np.sqrt(np.mean((np.array(said) - real) ** 2)))
    assert rmse.low <= rmse.value <= rmse.high
    rho = rows[("star_spearman", "review")]
    assert rho.value == pytest.approx(stats.spearmanr(said, real).statistic)
    assert rho.low <= rho.value <= rho.high and rho.n_people == 8
    assert np.isnan(rows[("star_spearman", "always_5")].value)


def test_a_role_against_a_baseline_is_a_paired_difference() -> None:
    """On the same held-outs, a role that is always 0.25 above the baseline differs by
    exactly that, with no width to resample; identical predictions correlate alike."""
    gen = np.random.default_rng(5)
    scored = []
    for i in range(12):
        base, real = float(gen.random()), float(gen.integers(1, 6))
        scored.append(
            Scored(
                "D",
                f"p{i}",
                {HR1: base + 0.25, ("hr@1", "history", "centroid", 10, "random"): base},
                pairs={
                    ("star_spearman", "history", "review", *ANY): (real + base, real),
                    ("star_spearman", "history", "person_mean", *ANY): (real + base, real),
                },
            )
        )
    found = {(d.measure, d.baseline): d for d in differences(scored, 3)}
    shift = found[("hr@1", "centroid")]
    assert (shift.value, shift.low, shift.high) == pytest.approx((0.25, 0.25, 0.25))
    same = found[("star_spearman", "person_mean")]
    assert (same.value, same.low, same.high) == pytest.approx((0.0, 0.0, 0.0))
    assert shift.cells()[2:4] == ["1 of 10, random", "ranker - centroid"]


def test_an_estimate_counts_the_calls_the_protocol_makes_and_prices_the_models(
    tiny: Path, tmp_path: Path
) -> None:
    """Every held-out asks one request and one review; a liked one (24 of the 30) two needs,
    under both protocols for each of the two pools one 1:N ranking and a 1:1 ranking per
    pair, and a decision alone and one against each pool's paired negatives; a disliked one
    one decision. Only the roles a model answers cost anything, and nothing is called."""
    from recmarket.config import RunConfig
    from recmarket.validity.estimate import estimate_validation

    llm = {"models": {"m": {"name": "gpt-5-mini"}}, "roles": {"shortlist": "m", "review": "m"}}
    settings = RunConfig.model_validate({"llm": llm})
    held, rows = estimate_validation(
        settings, tiny, [], negatives=(4,), pairs=1, seed=3, sample=100
    )
    calls = {r.role: r.calls for r in rows}
    assert held == 30
    assert calls == {
        "query": 30, "need": 48, "explain": 0, "copywriter": 0, "shortlist": 192, "decide": 78,
        "review": 30, "update": 0,
    }  # fmt: skip
    every = estimate_validation(settings, tiny, [], negatives=(4,), seed=3, sample=100)[1]
    paired = {r.role: r.calls for r in every}  # by default each of the four negatives
    assert (paired["shortlist"], paired["decide"]) == (24 * 2 * 2 * (1 + 4), 24 * (1 + 8) + 6)
    priced = {r.role for r in rows if r.cost > 0}
    assert priced == {"shortlist", "review"}
    sampled = {r.role: r.calls for r in estimate_validation(settings, tiny, [], sample=6)[1]}
    assert sampled["query"] == pytest.approx(30)  # a sample's counts scaled to every held-out
    config = tmp_path / "model.toml"
    config.write_text('[llm.models.m]\nname = "gpt-5-mini"\n[llm.roles]\nreview = "m"\n')
    args = ["validate", "--data", str(tiny), "--config", str(config), "--estimate"]
    shown = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert shown.exit_code == 0, shown.output
    assert "Estimate for validate: 30 held-outs" in shown.output
    assert not (tmp_path / "out").exists()  # nothing scored, nothing called


def test_the_cards_measures_are_person_measures_of_the_one_registry() -> None:
    from recmarket.catalogue.measures import MARKET_MEASURES, shown_at

    names = card_measures()
    assert names[:3] == ("pairwise_1to1", "hr@1", "hr@3")
    assert all(MARKET_MEASURES.get(n).unit == "person" for n in names)
    assert {m.name for m in shown_at("cells")}.isdisjoint(names)  # never a cell's measure
    assert MARKET_MEASURES.get("star_rmse").metric(4.0) == 2.0  # its mean's square root


def test_the_decisions_separation_is_liked_less_disliked_over_people() -> None:
    """Six people bought what they liked at 0.9 and four what they disliked at 0.3: the
    separation is 0.6, and with every person alike within their group no resample moves it."""
    liked = ("p_buy_rated_4_5", "request", "decision", *ANY)
    disliked = ("p_buy_rated_1_2", "request", "decision", *ANY)
    scored = [Scored("D", f"p{i}", {liked: 0.9}) for i in range(6)]
    scored += [Scored("D", f"q{i}", {disliked: 0.3}) for i in range(4)]
    row = next(r for r in card_rows(scored, 1) if r.measure == "p_buy_4_5_less_1_2")
    assert (row.value, row.low, row.high) == pytest.approx((0.6, 0.6, 0.6))
    assert (row.n_people, row.n, row.domain) == (10, 10, "all")
    assert not [r for r in card_rows(scored[:6], 1) if r.measure == "p_buy_4_5_less_1_2"]
