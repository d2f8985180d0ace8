"""One role's LLM card: everything that differs between roles on the LLM path, together.

A card holds the role's prompt fields (what of its typed input fills the Appendix C
template ``prompts/<role>.txt``), how a reply is read into the role's output contract (or
an ``OutputError`` the model is re-asked with), the reply's JSON schema (None for a
plain-text role) and how it is narrowed to the call's own input, and the answer the loopback
fake server gives. Typed per contract, so a card cannot read one role's input as another's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic

from recmarket.agents.contracts import In, Out
from recmarket.agents.llm.replies import Reply
from recmarket.vocabulary import RoleName


@dataclass(frozen=True)
class RoleCard(Generic[In, Out]):
    """One role's prompt card: ``fields`` fills the template's placeholders from the role's
    input, ``read`` turns a reply into the role's output (or ``OutputError``), ``reply``
    is the reply's form for structured outputs (None: plain text), and ``fake`` answers
    as the loopback fake endpoint does."""

    role: RoleName
    fields: Callable[[In], dict[str, Any]]  # the template's placeholders
    read: Callable[[str, In], Out]  # a reply as the role's output, or OutputError
    reply: type[Reply] | None  # the reply's form; None: plain text
    fake: Callable[[str], str]  # the loopback fake's answer to the rendered user message
    narrow: Callable[[dict[str, Any], In], None] | None = None  # the schema, to this input
