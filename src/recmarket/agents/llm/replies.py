"""What every JSON role's reply shares: the word limits the parser enforces, fields bounded
for a schema, and schemas inlined for grammar converters. Each role's reply model is on its
card (``agents/llm/cards``).

The reply models mirror the output lines of the Appendix C cards (``ranked_items`` with
``user_agent_reason``, a decision with ``selected_platform_id``), and their limits are the
ones ``parse`` enforces, so a schema-constrained reply of ordinary words is never too long
for the parser. A schema is specialised to the call's own input where the contract depends on
it: a shortlist may only name the candidates it was shown, exactly K of them; a decision
only a shown option. What a schema cannot say (unique ids, words rather than characters)
``parse`` still checks. The plain-text roles (explain, review) are asked, where the endpoint
honours a schema, for their one to three sentences as an array (``SentencesReply``): a small
model writing freely overruns three sentences, and a grammar cannot count sentences in a
string, but it can bound an array's items and their length.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from recmarket.agents.llm.parse import MAX_SENTENCES, MAX_TEXT_WORDS

# Word limits the parser enforces, per field.
QUERY_WORDS, LONG_TERM_WORDS, CURRENT_WORDS, REASON_WORDS = 60, 30, 25, 80
# A sentence of a plain-text role's structured reply: three of them stay within the
# parser's MAX_TEXT_WORDS for the whole text.
SENTENCE_WORDS = MAX_TEXT_WORDS // MAX_SENTENCES
# A schema bounds characters, the parser words: at five characters a word (English averages
# about 4.7 and a space) text at the ceiling stays within the word limit.
CHARS_PER_WORD = 5


def bounded(words: int) -> Any:
    """A reply field of at most ``words`` words, bounded in characters for a schema."""
    return Field(min_length=2, max_length=words * CHARS_PER_WORD)


class Reply(BaseModel):
    """A JSON role's reply as the model writes it (each card defines its own)."""

    model_config = ConfigDict(extra="forbid")


# A plain-text role's reply under structured outputs: its sentences, one an item. The
# stored text is the sentences joined (``parse.sentences_or_text``), so the role's output is
# the same kind of text either way. (No docstring: it would be sent in the schema.)
class SentencesReply(Reply):
    """The reply form of the plain-text roles (explanation, review): an array of short
    sentences."""

    sentences: list[Annotated[str, bounded(SENTENCE_WORDS)]] = Field(
        min_length=1, max_length=MAX_SENTENCES
    )


def inline(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its ``$defs`` references replaced by the definitions (some grammar
    converters and strict modes do not follow references), without the titles and the
    reply classes' docstrings, which are written for this code's readers, not the model."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[1]])
            model = "properties" in node  # a reply class: its description is its docstring
            return {  # a schema's own title is a string; a field named title is not
                k: walk(v)
                for k, v in node.items()
                if not (k == "title" and isinstance(v, str)) and not (model and k == "description")
            }
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)
