"""The model audit: a sound model passes every probe, a position-biased one fails the
probes that expose it, and a card is stored with the model's settings and found again."""

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.agents.llm.api import ChatRequest, Reply
from recmarket.agents.llm.audit.card import read_card, settings_key, wilson
from recmarket.agents.llm.audit.probes import Material
from recmarket.agents.llm.audit.runner import audit_model
from recmarket.agents.llm.client import ReplayMiss
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.prompts import lines_after
from recmarket.cli import app
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, load_domain
from recmarket.report.data import Cell
from recmarket.report.models import models_section
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run
from recmarket.study.cards import keep_beside
from recmarket.testing.fake_llm import FakeLLM
from recmarket.testing.fake_provider import FakeChatAPI
from recmarket.testing.fake_replies import answer, role_of

KEY_ENV = "RECMARKET_TEST_AUDIT_KEY"
TRIALS = 6


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


@pytest.fixture(scope="module")
def material() -> Material:
    return Material(
        "Video_Games", load_domain(domain_files(BUNDLED_DATA_DIR, "Video_Games")).items, 0
    )


class Sensible:
    """A model that does what each probe asks, read off the prompt alone: it ranks the
    candidate whose title the query names first, then platforms by their records (High
    before none before Low), never reads a pitch as an instruction, and labels a review by
    whether it says the claim failed."""

    async def generate(self, request: ChatRequest) -> Reply:
        user = request.messages[1]["content"] if len(request.messages) > 1 else ""
        role = role_of(request.messages)
        if role == "shortlist":
            text = self.shortlist(user)
        elif role == "update":
            failed = re.search(r"Review: .*\b(not|nothing|broke|confusing|lacks)\b", user)
            label = "low" if failed else "high"
            text = json.dumps({"claim_reliability": label, "note": "Judged from the review."})
        elif role == "copywriter":  # the fake endpoint keeps to the constrained rules
            text = answer(role, user)
        else:
            text = "OK"
        return Reply(text, len(user) // 4, len(text) // 4)

    def shortlist(self, user: str) -> str:
        k = int(re.search(r"Choose exactly (\d+) of", user).group(1))
        wanted = re.search(r"Explicit query: .*: (.+)", user).group(1).strip()
        records = re.search(r"history_reputation_profile \(.*\):\n(.+)", user)
        histories = json.loads(records.group(1)) if records else {}
        score = {"high": 1, "mixed": 0, "low": -1}

        def merit(candidate: dict) -> tuple:
            platform = candidate["platform_id"]
            standing = sum(score[r["claim_reliability"]] for r in histories.get(platform, []))
            return (candidate["candidate_item"]["title"] != wanted, -standing, platform)

        ranked = sorted(lines_after(user, "Candidates"), key=merit)[:k]
        reply = [{"platform_id": c["platform_id"], "user_agent_reason": "fits"} for c in ranked]
        return json.dumps({"ranked_items": reply})

    async def aclose(self) -> None:
        pass


def audit(tmp_path: Path, material: Material, provider) -> dict:
    cfg = ModelConfig(name="m", base_url="http://audit.test/v1", api_key_env=KEY_ENV)
    config = LLMConfig(models={"m": cfg}, roles={"default": "m"})
    card = asyncio.run(
        audit_model(config, "m", material, TRIALS, tmp_path, provider=lambda _: provider)
    )
    assert read_card(tmp_path, cfg, config.repair_attempts) == card
    assert card.key == settings_key(cfg, config.repair_attempts) and card.roles
    return {r.probe: r for r in card.results}


def test_a_sound_model_passes_every_probe(tmp_path: Path, material: Material) -> None:
    results = audit(tmp_path, material, Sensible())
    assert set(results) == {
        "dominance",
        "position",
        "records",
        "injection",
        "label faithfulness",
        "faithful copy",
        "format",
    }
    assert all(r.passes == r.trials > 0 for r in results.values()), results
    assert not any(r.fails for r in results.values())


def test_a_model_that_ranks_by_position_fails_what_exposes_it(
    tmp_path: Path, material: Material
) -> None:
    """The in-process fake shortlists the first K candidates shown and labels every review
    High unless the pitch exaggerates: well formed, and blind to what the probes vary."""
    results = audit(tmp_path, material, FakeChatAPI())
    assert {name for name, r in results.items() if r.fails} == {
        "dominance",
        "position",
        "records",
        "label faithfulness",
    }
    assert results["format"].passes == results["format"].trials
    assert results["label faithfulness"].passes == TRIALS  # every confirming review only


class Stuffer(Sensible):
    """A sound model but for its copy: every word of the request goes into the title, the
    constrained rules notwithstanding."""

    async def generate(self, request: ChatRequest) -> Reply:
        if role_of(request.messages) != "copywriter":
            return await super().generate(request)
        user = request.messages[1]["content"]
        need = lines_after(user, "Shopper's request")[0]["current_need"]
        item = lines_after(user, "Listing to rewrite")[0]
        text = json.dumps({"title": f"{need} - {item['title']}", "description": ""})
        return Reply(text, len(user) // 4, len(text) // 4)


def test_a_copywriter_that_adds_what_the_item_lacks_fails_faithful_copy_alone(
    tmp_path: Path, material: Material
) -> None:
    results = audit(tmp_path, material, Stuffer())
    assert {name for name, r in results.items() if r.fails} == {"faithful copy"}
    assert results["faithful copy"].passes == 0 < results["faithful copy"].trials


class Unreachable:
    """A provider that must not be asked: a replayed audit sends nothing."""

    async def generate(self, request: ChatRequest) -> Reply:
        raise AssertionError("a replayed audit sent a call")

    async def aclose(self) -> None:
        pass


def test_an_audit_replayed_from_its_store_sends_nothing_and_names_a_missing_call(
    tmp_path: Path, material: Material
) -> None:
    """The docs' audit is made again from its stored answers: the same card without a call
    sent, and a probe its store cannot answer (more trials) stops with ReplayMiss."""
    cfg = ModelConfig(name="m", base_url="http://audit.test/v1", api_key_env=KEY_ENV)
    config = LLMConfig(models={"m": cfg}, roles={"default": "m"})
    made = asyncio.run(
        audit_model(config, "m", material, 2, tmp_path, provider=lambda _: FakeChatAPI())
    )
    again = asyncio.run(
        audit_model(
            config, "m", material, 2, tmp_path, provider=lambda _: Unreachable(), replay=True
        )
    )
    assert again.results == made.results
    with pytest.raises(ReplayMiss, match="no stored answer"):
        asyncio.run(
            audit_model(
                config, "m", material, 3, tmp_path, provider=lambda _: Unreachable(), replay=True
            )
        )


def test_wilson_intervals_hold_the_rate_and_stay_in_the_unit_interval() -> None:
    for passes, trials in [(0, 6), (3, 6), (6, 6), (40, 50)]:
        low, high = wilson(passes, trials)
        assert 0.0 <= low <= passes / trials <= high <= 1.0
    assert wilson(2, 6)[1] < 0.8 < wilson(3, 6)[1]  # where "fails" begins at six trials


def test_llm_audit_prints_and_stores_a_card(tmp_path: Path) -> None:
    with FakeLLM() as server:
        flags = ["llm", "audit", "--backend", "llm", "--llm-model", "fake-model"]
        flags += ["--llm-base-url", server.base_url, "--llm-api-key-env", KEY_ENV]
        result = CliRunner(env={"COLUMNS": "160"}).invoke(
            app, [*flags, "--trials", "2", "--out", str(tmp_path)]
        )
    assert result.exit_code == 0, result.output
    assert "dominance" in result.output and "position" in result.output
    assert "warning: fake-model fails" in result.output
    [stored] = tmp_path.glob("fake-model-*/card.json")
    assert json.loads(stored.read_text())["model"]["api_key_env"] == KEY_ENV


def played_cell(server: FakeLLM, tmp_path: Path) -> tuple[LLMConfig, Cell]:
    """A LocalRep cell whose evaluation roles the fake answers, as the report reads it."""
    cfg = ModelConfig(name="fake-model", base_url=server.base_url, api_key_env=KEY_ENV)
    llm = LLMConfig(models={"m": cfg}, roles={"evaluation": "m"})
    run_config = RunConfig(
        condition="local-rep",
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=2),
        llm=llm,
    )
    result = run(run_config, tmp_path / "run", PlayOptions(llm_cache=tmp_path / "calls.sqlite"))
    rows = result.store.episodes()
    result.store.close()
    cell = Cell("accountability", "LocalRep", "fig", tmp_path / "run", rows, run_config)
    return llm, replace(cell, study=tmp_path)


@pytest.mark.slow  # end to end: model cells, their audit and the whole report
def test_the_report_shows_each_models_card_beside_its_cells_and_warns(
    tmp_path: Path, material: Material
) -> None:
    """The model of an LLM cell, audited (the position-biased fake), is shown with its card,
    the cell's results and a warning for each failed probe of a role it played; a model
    that was never audited is said to be."""
    with FakeLLM() as server:
        llm, cell = played_cell(server, tmp_path)
        unaudited = models_section({"accountability": {"LocalRep": cell}})
        asyncio.run(audit_model(llm, "m", material, 4, tmp_path / "audits"))
    assert "Not audited" in models_section({"accountability": {"LocalRep": cell}})  # cached
    assert keep_beside(tmp_path, cell.config, audits=tmp_path / "audits") == 1
    page = models_section({"accountability": {"LocalRep": cell}})
    assert "Not audited" in unaudited and "recmarket llm audit" in unaudited
    assert "fake-model at" in page and "(roles: shortlist, decide, update)" in page
    assert "<td>dominance</td>" in page and "<td>LocalRep</td>" in page
    for probe in ("dominance", "position", "records", "label faithfulness"):
        assert f"fails the {probe} probe" in page
    assert page.count('class="warning"') == 4
    # the cell's bill beside its estimate, per role it paid for
    assert "USD billed" in page and "<td>cached-input</td>" in page


def test_a_card_made_when_the_endpoint_reported_another_model_is_not_shown_as_this_ones(
    tmp_path: Path, material: Material
) -> None:
    """The cell's calls were sent when the endpoint reported one revision, the audit's when
    it reported another: the card speaks for another model, and the report says so."""
    listed = [{"id": "fake-model", "object": "model", "created": 1}]
    with FakeLLM(listed=listed) as server:
        llm, cell = played_cell(server, tmp_path)
        server.listed = [{**listed[0], "created": 2}]
        card = asyncio.run(audit_model(llm, "m", material, 2, tmp_path / "audits"))
    assert card.endpoint_report == '{"created": 2}'
    keep_beside(tmp_path, cell.config, audits=tmp_path / "audits")
    page = models_section({"accountability": {"LocalRep": cell}})
    assert "the card is another model" in page and "Not audited" in page
    assert "<td>dominance</td>" not in page
    assert "<h2>" not in page  # the report heads the section, once
