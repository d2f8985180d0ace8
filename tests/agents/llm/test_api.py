"""Token counts as the ledger and the budget trust them: bounded by the request, and, where
an endpoint reports none usable, estimated from the characters rather than charged as 0."""

import pytest

from recmarket.agents.llm.api import CHARS_PER_TOKEN, ChatRequest, trusted_tokens

REQUEST = ChatRequest("update", [{"role": "user", "content": "x" * 400}], 50, 0.0, None)


def test_reported_counts_are_kept_within_what_the_request_allows() -> None:
    assert trusted_tokens(REQUEST, 90, 30, "y" * 120) == (90, 30, False)
    assert trusted_tokens(REQUEST, 10**12, 10**12, "y") == (400, 50, False)


@pytest.mark.parametrize("prompt", [None, -5, "90", 3.5, True])
def test_a_count_that_is_missing_or_not_a_count_is_estimated_from_characters(prompt) -> None:
    tokens = trusted_tokens(REQUEST, prompt, None, "y" * 121)
    assert tokens.estimated
    assert tokens.prompt == 400 // CHARS_PER_TOKEN  # 400 characters sent
    assert tokens.completion == 31  # 121 characters received, rounded up


def test_an_estimated_completion_is_still_capped_at_max_tokens() -> None:
    assert trusted_tokens(REQUEST, 10, -1, "y" * 10_000) == (10, 50, True)
