"""The request: a plausible need in the user's words, never a copy of the target's title."""

import asyncio

import numpy as np
import pytest

from recmarket.agents.contracts import HeldOutTarget, PastInteraction, QueryInput
from recmarket.agents.rules.query import RuleQueryGenerator
from recmarket.agents.rules.text import content_words, shares_run
from recmarket.agents.rules.user_params import QueryParams
from recmarket.config import EpisodeConfig
from recmarket.data.episodes import sample_requests
from recmarket.profiles import PROFILE_BY_NAME


def query_input(request) -> QueryInput:
    t = request.episode.target

    def past(i):
        return PastInteraction(
            title=i.title, rating=i.rating, review_title=i.review_title, review_text=i.review_text
        )

    return QueryInput(
        domain="Sports_and_Outdoors",
        profile=PROFILE_BY_NAME[request.profile],
        history=tuple(past(h) for h in request.episode.history),
        target=HeldOutTarget(**past(t).model_dump()),
    )


@pytest.fixture(scope="module")
def inputs(domain):
    return [query_input(r) for r in sample_requests(domain, EpisodeConfig(requests=600), seed=3)]


def write(params: QueryParams, inputs) -> list[str]:
    gen = RuleQueryGenerator(params)
    return [asyncio.run(gen(inp, seed)).query_text for seed, inp in enumerate(inputs)]


def title_share(query: str, title: str) -> float:
    words = content_words(query)
    return sum(w in set(content_words(title)) for w in words) / len(words)


@pytest.mark.parametrize(
    "params",
    [QueryParams(), QueryParams(general_kind=0, attribute_mention=1, use_from_review=0)],
    ids=["defaults", "most-revealing"],
)
def test_no_request_repeats_four_title_words_in_a_row(inputs, params) -> None:
    for inp, text in zip(inputs, write(params, inputs), strict=True):
        assert not shares_run(text, inp.target.title), (text, inp.target.title)


def test_requests_are_mostly_the_users_own_words(inputs) -> None:
    texts = write(QueryParams(), inputs)
    shares = [title_share(t, i.target.title) for t, i in zip(texts, inputs, strict=True)]
    assert np.mean(shares) <= 0.5
    assert len(set(texts)) > 0.8 * len(texts)


def test_more_attribute_mentions_tell_more_of_the_target(inputs) -> None:
    few = write(QueryParams(wording="title", attribute_mention=0.0), inputs)
    many = write(QueryParams(wording="title", attribute_mention=1.0), inputs)
    share = [
        np.mean([title_share(t, i.target.title) for t, i in zip(ts, inputs, strict=True)])
        for ts in (few, many)
    ]
    assert share[1] > share[0]


def test_a_buyer_names_more_of_the_target_as_its_specificity_rises(inputs) -> None:
    """identifying_words is the buyer request's specificity: none leaves the profile's own
    attributes, more name more of the target's title words."""
    shares = [
        np.mean(
            [
                title_share(t, i.target.title)
                for t, i in zip(
                    write(QueryParams(identifying_words=n), inputs), inputs, strict=True
                )
            ]
        )
        for n in (0, 2, 5)
    ]
    assert shares[0] < shares[1] < shares[2]


def test_a_buyer_names_no_code_number_pack_or_brand() -> None:
    from recmarket.agents.rules.query import buyer_words

    target = HeldOutTarget(
        title="Arcwave ME-131 Upgraded Wireless Noir Controller, PC, white (4 Count) (15632)",
        rating=4.0,
        review_title="Great",
        review_text="Great noir controller, and the PC platform suits me.",
    )
    said = buyer_words(target, "controller")
    # the review's own words first, then the head's qualifiers after the code, then segments
    assert said == ["noir", "pc", "upgraded", "wireless", "white"]
    # a slice whose review title is the item's title says nothing of the person's
    copied = target.model_copy(update={"review_title": target.title, "review_text": ""})
    assert buyer_words(copied, "controller") == ["upgraded", "wireless", "noir", "pc", "white"]


def test_the_request_follows_the_profile_style(inputs) -> None:
    texts = write(QueryParams(), inputs)
    constraint = [
        t for t, i in zip(texts, inputs, strict=True) if i.profile.name == "attribute_constraint"
    ]
    assert constraint and all("requirement" in t.lower() for t in constraint)


def test_a_shoppers_request_names_the_kind_and_only_what_a_shopper_states(inputs) -> None:
    """wording = shopper: the kind's noun, and of the title only colour, material, size and
    common features; never a model code, a number or a title word outside that vocabulary
    beyond the noun (the use the person's own review names may share the title's words)."""
    from recmarket.agents.rules.query import SHOPPER_WORDS, TEMPLATES, spoken_kind

    template_words = set(content_words(" ".join(t for ts in TEMPLATES.values() for t in ts)))
    for text, inp in zip(write(QueryParams(wording="shopper"), inputs), inputs, strict=True):
        noun = spoken_kind(inp.target.title, inp.domain).split()[-1]
        title = set(content_words(inp.target.title))
        own = set(content_words(f"{inp.target.review_title} {inp.target.review_text}"))
        from_title = set(content_words(text)) & title - template_words - own
        assert from_title <= SHOPPER_WORDS | {noun, *content_words(noun)}, (text, inp.target.title)
        assert not any(ch.isdigit() for w in from_title for ch in w)
