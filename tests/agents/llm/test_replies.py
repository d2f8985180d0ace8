"""Each JSON role's reply schema: derived from its reply model, specialised to the call's
input where the contract depends on it, and in agreement with the parser."""

import json

import pytest

from recmarket.agents.llm.cards import CARDS, parse, reply_schema
from tests.agents.test_llm_prompts import INPUTS, decision_input, shortlist_input


def test_a_shortlist_schema_names_exactly_the_candidates_and_asks_for_exactly_k() -> None:
    schema = reply_schema("shortlist", shortlist_input(k=3))
    ranked = schema["properties"]["ranked_items"]
    assert ranked["minItems"] == ranked["maxItems"] == 3
    assert ranked["items"]["properties"]["platform_id"]["enum"] == ["P1", "P2", "P3", "P4"]
    assert ranked["items"]["additionalProperties"] is False
    assert "$defs" not in json.dumps(schema) and "$ref" not in json.dumps(schema)


def test_a_decision_schema_allows_a_shown_option_or_none() -> None:
    schema = reply_schema("decide", decision_input())
    assert schema["properties"]["selected_platform_id"] == {"enum": ["P1", "P2", None]}
    assert schema["properties"]["decision"]["enum"] == ["purchase", "no_purchase"]
    assert set(schema["required"]) == {"decision", "selected_platform_id", "reason"}


@pytest.mark.parametrize("role", ["explain", "review"])
def test_plain_text_roles_send_no_schema(role: str) -> None:
    assert reply_schema(role, INPUTS[role]) is None


@pytest.mark.parametrize("role", sorted(r for r, c in CARDS.items() if c.reply is not None))
def test_a_reply_at_the_schemas_length_limits_in_ordinary_words_parses(role: str) -> None:
    """Strings as long as the schema allows, in words of ordinary length, pass the parser's
    word limits: the schema never admits what the parser refuses for its length."""
    inp = {"shortlist": shortlist_input(k=2), "decide": decision_input()}.get(role, INPUTS[role])
    schema = reply_schema(role, inp)

    def fill(node: dict):
        if "enum" in node:
            return node["enum"][0]
        if node.get("type") == "array":
            return [fill(node["items"]) for _ in range(node["minItems"])]
        if node.get("type") == "object":
            return {k: fill(v) for k, v in node["properties"].items()}
        return ("fits well " * 200)[: node["maxLength"]].strip()

    reply = fill(schema)
    if role == "shortlist":
        reply["ranked_items"][1]["platform_id"] = "P2"  # ids must differ
    parse(role, json.dumps(reply), inp)
