"""The offline copywriter: its strategy's own mechanism, reading the ranker through the
judge; the item's own listing where the strategy adds nothing; no draw."""

import asyncio

from recmarket.agents.contracts import CopyInput, StructuredNeed
from recmarket.agents.copywriting import own_listing, rewrite
from recmarket.agents.rules.copywriter import RuleCopywriter
from recmarket.catalogue.listing_copy import CopySetting
from recmarket.embedding.similarity import visible_text


def ask(copywriter: RuleCopywriter, inp: CopyInput, seed: int = 0):
    return asyncio.run(copywriter(inp, seed))


def test_it_writes_what_the_strategy_chooses_by_the_judges_reading(judge, domain) -> None:
    setting = CopySetting.model_validate({"copy": "copy-optimised", "params": {"intensity": 1}})
    copywriter, rewritten = RuleCopywriter(judge), 0
    for item in (i.evidence for i in domain.items[:40]):
        need = StructuredNeed(long_term_need="", current_need=f"durable {item.category} for kids")

        def read(need_text: str, title: str, category: str = item.category) -> float:
            return float(judge.fit(need_text, [visible_text(title, category)])[0])

        inp = CopyInput(strategy=setting, need=need, item=item)
        expected = rewrite(setting, need, item, read) or own_listing(item)
        assert ask(copywriter, inp) == expected == ask(copywriter, inp, seed=99)
        rewritten += expected != own_listing(item)
    assert rewritten > 0


def test_a_strategy_that_adds_nothing_answers_the_items_own_listing(judge, domain) -> None:
    item = domain.items[0].evidence
    setting = CopySetting.model_validate({"copy": "copy-stuffing", "params": {"intensity": 0}})
    need = StructuredNeed(long_term_need="", current_need="waterproof titanium ultralight")
    inp = CopyInput(strategy=setting, need=need, item=item)
    assert ask(RuleCopywriter(judge), inp) == own_listing(item)
