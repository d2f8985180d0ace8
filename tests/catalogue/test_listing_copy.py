"""Copy strategies: what each may add, and nothing at intensity 0."""

import pytest
from pydantic import ValidationError

from recmarket.catalogue.listing_copy import COPY_STRATEGIES, CopyBrief, CopySetting, budget
from recmarket.config import MarketConfig
from recmarket.market.build import seats

WORDS = ("wireless", "quiet", "compact", "waterproof")
SUPPORTED = (True, False, True, False)


def brief(weights: dict[str, float] | None = None) -> CopyBrief:
    """A brief whose reading is the sum of its front words' weights."""
    weights = weights or dict.fromkeys(WORDS, 1.0)
    return CopyBrief(WORDS, SUPPORTED, lambda front: sum(weights[w] for w in front))


def chosen(name: str, **params: object) -> tuple[str, ...]:
    setting = CopySetting.model_validate({"copy": name, "params": params})
    return setting.made.words(brief(), setting.built())


@pytest.mark.parametrize("name", ["copy-none", "copy-emphasis", "copy-stuffing", "copy-optimised"])
def test_no_strategy_adds_a_word_at_intensity_0(name: str) -> None:
    assert chosen(name, intensity=0.0) == ()


def test_emphasis_adds_only_what_the_item_supports_in_the_requests_order() -> None:
    assert chosen("copy-emphasis", intensity=1.0) == ("wireless", "compact")
    assert chosen("copy-emphasis", intensity=0.4) == ("wireless",)  # 0.4 x 2, rounded up


def test_stuffing_adds_the_requests_words_whether_supported_or_not() -> None:
    assert chosen("copy-stuffing", intensity=1.0) == WORDS
    assert chosen("copy-stuffing", intensity=0.5) == WORDS[:2]


def test_optimised_keeps_the_words_that_raise_the_reading_and_stays_faithful() -> None:
    weights = {"wireless": 0.0, "quiet": 5.0, "compact": 2.0, "waterproof": 1.0}
    faithful = COPY_STRATEGIES.get("copy-optimised")
    params = CopySetting.model_validate(
        {"copy": "copy-optimised", "params": {"intensity": 1.0}}
    ).built()
    # quiet reads best but the item lacks it; wireless reads nothing: only compact is kept
    assert faithful.words(brief(weights), params) == ("compact",)
    loose = params.model_copy(update={"faithful": False})
    assert faithful.words(brief(weights), loose) == ("quiet", "compact", "waterproof")


def test_a_budget_is_the_share_rounded_up_and_never_beyond_the_words() -> None:
    assert [budget(WORDS, i) for i in (0.0, 0.01, 0.25, 0.26, 1.0)] == [0, 1, 1, 2, 4]


def test_a_market_names_its_rewriting_seats_under_copy() -> None:
    cfg = MarketConfig.model_validate(
        {"copy": {"P4": {"copy": "copy-stuffing", "params": {"intensity": 0.5}}}}
    )
    copied = {s.platform_id: s.copy for s in seats(cfg)}
    assert copied["P4"] is not None and copied["P4"].name == "copy-stuffing"
    assert [p for p, c in copied.items() if c is not None] == ["P4"]
    again = MarketConfig.model_validate(cfg.model_dump())
    assert again == cfg  # what a store records reads back the same


def test_copy_none_seats_are_not_rewriting() -> None:
    cfg = MarketConfig.model_validate({"copy": {"P2": {"copy": "copy-none"}}})
    assert all(s.copy is None for s in seats(cfg))


@pytest.mark.parametrize(
    ("copy", "says"),
    [
        ({"P9": {"copy": "copy-stuffing"}}, "'P9' is not a seat"),
        ({"P1": {"copy": "copy-shouting"}}, "known: copy-none, copy-emphasis"),
        ({"P1": {"copy": "copy-stuffing", "params": {"intensity": 1.5}}}, "intensity"),
        ({"P1": {"copy": "copy-stuffing", "params": {"intensty": 0.5}}}, "intensty"),
    ],
)
def test_bad_copy_settings_say_what_is_wrong(copy: dict, says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        MarketConfig.model_validate({"copy": copy})
