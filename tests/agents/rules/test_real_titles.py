"""Real listings' titles through every offline role: model codes, wattages, pack counts, a
band's name, an empty title. Each role answers, or fails as a role (``RoleFailure``), never
with a crash, and the query generator names a kind of product whenever the title or the
domain has a word for one."""

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recmarket.agents.contracts import (
    DecisionInput,
    ExplanationInput,
    HeldOutTarget,
    NeedInput,
    QueryInput,
    ReviewInput,
    RoleFailure,
    ShortlistInput,
    UpdateInput,
)
from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.query import spoken_kind
from recmarket.data.items import ItemEvidence, product_kind
from recmarket.profiles import PROFILE_BY_NAME, PROFILE_NAMES

HARD = (
    "221-615 | WAGO Lever-Nuts Splicing Connector",
    "60W (80W Peak) Portable Bluetooth Speaker",
    '(100PCS) #12x1-1/2" Wood Screws',
    "2Cellos",
    "",
    "3M 8511 N95 | 10-Pack",
)


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        (HARD[0], "splicing connector"),
        (HARD[1], "bluetooth speaker"),
        (HARD[2], "wood screws"),
        ("Ernie Ball Regular Slinky Electric Guitar Strings, 10-46", "guitar strings"),
        (HARD[3], "industrial and scientific item"),
        (HARD[4], "industrial and scientific item"),
        (HARD[5], "industrial and scientific item"),
        # units, colours, materials and grades trailing the kind noun are never the kind
        ("Fana NC-129 Guitar Celtic Strap Black, leather (15669)", "celtic strap"),
        ("Anonfa Prarizel CW-638 Black Guitar Reggae Picks Medium 0.73 Mm", "reggae picks"),
        ("Corvane JG-140 Bass Guitar Flanger Strings Phosphor Bronze (5 Count)", "flanger strings"),
        ("Keljor Studio Z2-317 Sprint Headlamp 500 Lumens, AA batteries", "sprint headlamp"),
        ("Bitforge G6-947 Rated T For Teen Survival Horror Wireless Game", "wireless game"),
        ("Pentel Hi-Polymer Cap Erasers (Writing Instrument) White 50-Pk", "cap erasers"),
    ],
)
def test_a_title_that_leads_with_a_code_still_names_its_kind(title: str, kind: str) -> None:
    assert spoken_kind(title, "Industrial_and_Scientific") == kind
    assert product_kind(title) == (kind if "item" not in kind else "")


def query_input(title: str, domain: str = "Industrial_and_Scientific") -> QueryInput:
    return QueryInput(
        domain=domain,
        profile=PROFILE_BY_NAME[PROFILE_NAMES[len(title) % len(PROFILE_NAMES)]],
        history=(),
        target=HeldOutTarget(title=title, rating=5.0, review_title="", review_text=""),
    )


@pytest.fixture(scope="module")
def agents(embedder):
    return offline_agents(embedder)


@pytest.mark.parametrize("title", HARD)
def test_every_hard_title_gets_a_request(agents, title: str) -> None:
    text = asyncio.run(agents.query(query_input(title), 7)).query_text
    assert text.strip() and "{" not in text


def test_a_request_with_no_word_for_a_product_anywhere_is_a_role_failure(agents) -> None:
    with pytest.raises(RoleFailure, match="query: neither the target's title nor the domain"):
        asyncio.run(agents.query(query_input("2Cellos", "123"), 7))


# Titles as real listings write them: words, model codes, sizes, wattages, pack counts and
# the punctuation that separates them, in any order, sometimes nothing at all.
WORD = st.sampled_from(
    ["Portable", "Wood", "Screws", "Speaker", "WAGO", "Lever-Nuts", "Cellos", "Mat", "N95", "de"]
)
CODE = st.from_regex(r"[0-9]{1,4}(W|PCS|-[0-9]{2,3}|x[0-9]-[0-9]/[0-9]|mm)?", fullmatch=True)
SEPARATOR = st.sampled_from([" ", " | ", ", ", " (", ") ", " - ", ": ", " with ", " for ", '" #'])
TITLE = st.lists(st.tuples(st.one_of(WORD, CODE, st.text(max_size=4)), SEPARATOR), max_size=8).map(
    lambda parts: "".join(a + b for a, b in parts).strip()
)


def evidence(title: str) -> ItemEvidence:
    return ItemEvidence(
        title=title,
        category="Industrial & Scientific",
        description="",
        description_source="none",
        features=(),
        average_rating=None,
    )


async def every_role(agents, target: str, other: str, seed: int) -> None:
    """One pass of the seven roles with these titles as the target and a candidate."""
    query = await agents.query(query_input(target), seed)
    history = ({"title": other, "rating": 4.0, "review_title": "", "review_text": ""},)
    need = await agents.need(
        NeedInput.model_validate({"history": history, "query_text": query.query_text}), seed
    )
    pitches = [
        await agents.explain(
            ExplanationInput(
                platform_id=f"P{i}", policy=policy, intensity=None, need=need, item=evidence(t)
            ),
            seed,
        )
        for i, (t, policy) in enumerate(((target, "exaggeration"), (other, "strict")), start=1)
    ]
    candidates = [
        {"platform_id": f"P{i}", "title": t, "category": "Tools", "explanation": p.text}
        for i, (t, p) in enumerate(zip((target, other), pitches, strict=True), start=1)
    ]
    shortlist = await agents.shortlist(
        ShortlistInput.model_validate(
            {"query_text": query.query_text, "need": need, "candidates": candidates, "k": 2}
        ),
        seed,
    )
    options = [
        {
            "option_id": r.platform_id,
            "rank": rank,
            "platform_id": r.platform_id,
            "reason": r.reason,
            **{k: c[k] for c in candidates if c["platform_id"] == r.platform_id for k in c},
        }
        for rank, r in enumerate(shortlist.ranked, start=1)
    ]
    profile = query_input(target).profile
    await agents.decide(
        DecisionInput.model_validate(
            {"query_text": query.query_text, "instruction": profile.instruction, "options": options}
        ),
        seed,
    )
    review = await agents.review(
        ReviewInput(
            query_text=query.query_text,
            profile=profile,
            target=query_input(target).target,
            item=evidence(other),
            explanation=pitches[1].text,
        ),
        seed,
    )
    await agents.update(
        UpdateInput(
            query_text=query.query_text,
            need=need,
            platform_id="P2",
            item_title=other,
            item_category="Tools",
            explanation=pitches[1].text,
            reason=shortlist.ranked[0].reason,
            review=review.text,
        ),
        seed,
    )


@settings(max_examples=60, deadline=None)
@given(target=st.one_of(st.sampled_from(HARD), TITLE), other=TITLE, seed=st.integers(0, 2**31))
def test_real_shaped_titles_pass_through_every_role(agents, target, other, seed) -> None:
    asyncio.run(every_role(agents, target, other, seed))
