"""Each JSON role's reply as the model writes it, and the JSON schema sent to constrain it.

The reply models mirror the output lines of the Appendix C cards (``ranked_items`` with
``user_agent_reason``, a decision with ``selected_platform_id``), and their limits are the
ones ``parse`` enforces, so a schema-constrained reply of ordinary words is never too long
for the parser. A schema is specialised to the call's own input where the contract depends on
it: a shortlist may only name the candidates it was shown, exactly K of them; a decision
only a shown option. What a schema cannot say (unique ids, words rather than characters)
``parse`` still checks. The plain-text roles (explain, review) have no schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from recmarket.agents.contracts import NOTE_MAX_WORDS, Contract, DecisionInput, ShortlistInput

# Word limits the parser enforces, per field.
QUERY_WORDS, LONG_TERM_WORDS, CURRENT_WORDS, REASON_WORDS = 60, 30, 25, 80
# A schema bounds characters, the parser words: at five characters a word (English averages
# about 4.7 and a space) text at the ceiling stays within the word limit.
CHARS_PER_WORD = 5


def _text(words: int) -> Any:
    return Field(min_length=2, max_length=words * CHARS_PER_WORD)


class Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryReply(Reply):
    query_text: str = _text(QUERY_WORDS)


class NeedReply(Reply):
    long_term_need: str = _text(LONG_TERM_WORDS)
    current_need: str = _text(CURRENT_WORDS)


class RankedReply(Reply):
    platform_id: str
    user_agent_reason: str = _text(REASON_WORDS)


class ShortlistReply(Reply):
    ranked_items: list[RankedReply]


class DecisionReply(Reply):
    decision: Literal["purchase", "no_purchase"]
    selected_platform_id: str | None
    reason: str = _text(REASON_WORDS)


class UpdateReply(Reply):
    claim_reliability: Literal["high", "mixed", "low"]
    note: str = _text(NOTE_MAX_WORDS)


REPLIES: dict[str, type[Reply]] = {
    "query": QueryReply,
    "need": NeedReply,
    "shortlist": ShortlistReply,
    "decide": DecisionReply,
    "update": UpdateReply,
}


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its ``$defs`` references replaced by the definitions: some
    grammar converters and strict modes do not follow references."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[1]])
            return {k: walk(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


def reply_schema(role: str, inp: Contract) -> dict[str, Any] | None:
    """The JSON schema of ``role``'s reply to ``inp``, or None for a plain-text role."""
    model = REPLIES.get(role)
    if model is None:
        return None
    schema = _inline(model.model_json_schema())
    props = schema["properties"]
    if isinstance(inp, ShortlistInput):
        ranked = props["ranked_items"]
        ranked["items"]["properties"]["platform_id"] = {
            "type": "string",
            "enum": [c.platform_id for c in inp.candidates],
        }
        ranked["minItems"] = ranked["maxItems"] = inp.k
    if isinstance(inp, DecisionInput):
        shown: list[Any] = [o.option_id for o in inp.options]
        props["selected_platform_id"] = {"enum": [*shown, None]}
    return schema
