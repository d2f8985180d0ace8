"""Each JSON role's reply schema: derived from its reply model, specialised to the call's
input where the contract depends on it, and in agreement with the parser."""

import json

import pytest

from recmarket.agents.llm.cards import CARDS, parse, reply_schema
from recmarket.agents.llm.parse import OutputError
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
def test_plain_text_roles_ask_for_one_to_three_bounded_sentences(role: str) -> None:
    schema = reply_schema(role, INPUTS[role])
    sentences = schema["properties"]["sentences"]
    assert (sentences["minItems"], sentences["maxItems"]) == (1, 3)
    assert sentences["items"]["maxLength"] == 200 and "description" not in schema


@pytest.mark.parametrize("role", ["explain", "review"])
def test_a_structured_text_reply_is_stored_as_its_sentences_joined(role: str) -> None:
    reply = {"sentences": ["It fits the need", "One trade-off: no manual!"]}
    out = parse(role, json.dumps(reply), INPUTS[role])
    assert out.text == "It fits the need. One trade-off: no manual!"
    plain = parse(role, "It fits. It is cheap.", INPUTS[role])  # read as before
    assert plain.text == "It fits. It is cheap."


def test_numbered_sentences_are_read_without_their_list_markers() -> None:
    """SmolLM2 numbers the items of an array of sentences; the numbers are not sentences."""
    reply = {"sentences": ["1. Sentence 1: It fits.", "2) It is cheap", "- Setup is quick!"]}
    out = parse("explain", json.dumps(reply), INPUTS["explain"])
    assert out.text == "It fits. It is cheap. Setup is quick!"
    kept = parse(
        "explain", json.dumps({"sentences": ["Rated 4.5 by 200 buyers."]}), INPUTS["explain"]
    )
    assert kept.text == "Rated 4.5 by 200 buyers."


@pytest.mark.parametrize(
    ("reply", "complaint"),
    [
        ({"sentences": "One. Two."}, "must be a list of one to three strings"),
        ({"sentences": ["One. Two.", "Three.", "Four."]}, "has 4 sentences"),
        ({"sentences": ["", " "]}, "the reply is empty"),
    ],
)
def test_a_structured_text_reply_keeps_the_three_sentence_contract(
    reply: dict, complaint: str
) -> None:
    with pytest.raises(OutputError, match=complaint):
        parse("explain", json.dumps(reply), INPUTS["explain"])


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
            return [fill(node["items"]) for _ in range(node["maxItems"])]
        if node.get("type") == "object":
            return {k: fill(v) for k, v in node["properties"].items()}
        return ("fits well " * 200)[: node["maxLength"]].strip()

    reply = fill(schema)
    if role == "shortlist":
        reply["ranked_items"][1]["platform_id"] = "P2"  # ids must differ
    parse(role, json.dumps(reply), inp)


def test_a_line_break_inside_a_json_string_is_read() -> None:
    """llama.cpp's grammar lets raw control characters into strings; the reply is JSON
    otherwise, and is read as such."""
    reply = '{"claim_reliability": "low","note": "It broke.\nNot durable."}'
    assert parse("update", reply, INPUTS["update"]).claim_reliability == "low"
