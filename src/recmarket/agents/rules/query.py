"""The simulated user's request, written from the held-out target without copying it.

Section 4.1: the query generator reconstructs "a plausible need without copying or uniquely
identifying the item". The offline user says what they want in their own words: the kind of
product (sometimes only its broad noun), a few of its attributes in short paraphrase (more
for a constraint-driven user), a use taken from their own review of it, a reference to what
they already own, in their profile's style (Table 4). No run of four consecutive content
words of the target's title survives into the request: richer drafts that would repeat one
are dropped for plainer ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from recmarket.agents.contracts import HeldOutTarget, Query, QueryInput, RoleFailure
from recmarket.agents.rules.text import (
    STOPWORDS,
    join_words,
    shares_run,
    title_parts,
    use_phrase,
)
from recmarket.agents.rules.user_params import QueryParams
from recmarket.data.items import DIGIT, TITLE_HEAD, TITLE_WORD, product_kind
from recmarket.streams import Draws, one_of

TEMPLATES = {
    "transactional_direct": (
        "Need {kind}{detail}{context}.",
        "Buying {kind} today{detail}{context}.",
        "Want a {kind} for {use}{detail}.",
    ),
    "informational_use_case": (
        "I want something for {use}{context}; probably {kind}{detail}.",
        "What should I get for {use}? Thinking {kind}{detail}.",
        "Looking for gear for {use}{context}, something like {kind}{detail}.",
    ),
    "comparative_evaluation": (
        "Looking for {kind}{detail} that balances quality against price{context}.",
        "Which {kind} gives the best trade-off between durability and value{detail}?",
        "Comparing {kind} options: reliability versus cost matters most{detail}.",
    ),
    "attribute_constraint": (
        "{Kind} that must meet these requirements: {needs}{context}.",
        "Need {kind}; hard requirements: {needs}.",
        "Requirements first: {needs}. Looking for {kind}{context}.",
    ),
    "novice_advice": (
        "I'm new to this. What is an easy, low-regret {kind} for {use}?",
        "Beginner here: which {kind} is simple to use and hard to get wrong{context}?",
        "Not an expert: I need a forgiving {kind}{detail} that just works.",
    ),
    "exploratory_hedonic": (
        "Something fun and satisfying for {use}, maybe {kind} or similar{detail}.",
        "Open to ideas: a {kind} or something like it that feels great{context}.",
        "Surprise me with something for {use}; {kind} could be nice{detail}.",
    ),
}
DETAILS = (", ideally {x}", " with {x} if possible", " ({x} would be good)", "; {x} matters")
SAME_KIND = (" to replace the one I have", " as a backup to my current one")
PLAIN_USES = ("everyday use", "regular use", "home use", "a gift")
# How many title attributes each profile may name (Table 4): hard requirements for the
# constraint-driven, the immediate goal for the transactional, a dimension or two for the
# others, none in a novice's nontechnical words.
MAX_ATTRIBUTES = {
    "transactional_direct": 2,
    "informational_use_case": 1,
    "comparative_evaluation": 1,
    "attribute_constraint": 3,
    "novice_advice": 0,
    "exploratory_hedonic": 1,
}
# Table 4: the use-case user "leaves the system to infer an appropriate product type", so
# names at most its broad noun.
BROAD_KIND = {"informational_use_case"}


# Pack sizes and counts describe the listing, not the product a user wants.
PACKAGING = re.compile(r"\b(pack|count|set of|pcs|pieces)\b", re.IGNORECASE)


def spoken_kind(title: str, domain: str) -> str:
    """The kind of product the user names: the title's (``product_kind``), else, where the
    title has no word without digits ("2Cellos"), the domain's name as a shopper would say
    it ("musical instruments item"); empty where neither has one."""
    kind = product_kind(title)
    if kind:
        return kind
    words = [w.lower() for w in TITLE_WORD.findall(domain.replace("_", " ")) if not DIGIT.search(w)]
    return f"{' '.join(words)} item" if words else ""


# What a shopper states of a product without knowing the listing: its colour, material,
# size and the features anyone asks for; never a model code, brand or pack count.
_SHOPPER_TEXT = """
    black white red blue green pink grey gray silver gold brown purple yellow orange clear
    wood wooden steel stainless metal plastic leather cotton glass bamboo silicone rubber
    aluminum wool canvas ceramic small medium large mini compact portable heavy light
    lightweight long short wide thick thin wireless rechargeable waterproof adjustable
    foldable soft durable quiet electric manual cordless organic natural"""
SHOPPER_WORDS = frozenset(_SHOPPER_TEXT.split())


def shopper_words(title: str) -> list[str]:
    """The title's words a shopper would state (SHOPPER_WORDS), once each, in order."""
    found = (w.lower() for w in TITLE_WORD.findall(title))
    return list(dict.fromkeys(w for w in found if w in SHOPPER_WORDS))


def _plain_words(text: str) -> list[str]:
    """A text's title-like words, lower-cased: no codes or numbers (words with digits), no
    stop words, no pack counts."""
    found = (w.lower() for w in TITLE_WORD.findall(text) if not DIGIT.search(w))
    return [w for w in found if w not in STOPWORDS and not PACKAGING.search(w)]


def buyer_words(target: HeldOutTarget, kind: str) -> list[str]:
    """What a buyer who knows the item can say of it beyond its kind (Appendix C.1 reads the
    held-out item's title, rating and review): the title's words their own review repeats
    first (what they cared about), then the words that qualify the kind in the title's head
    (after its brand, or its model code where it has one: "Upgraded Wireless Noir" of "Arcwave
    ME-131 Upgraded Wireless Noir Controller"), then the words of its attribute segments
    ("white" of ", PC, white"). Never a code, a number, a pack count, the brand (the title's
    first word) or the kind itself; once each."""
    title_words = [w for w in TITLE_WORD.findall(target.title)]
    brand = title_words[0].lower() if title_words else ""
    said = set(kind.split()) | {brand}
    head = TITLE_HEAD.split(target.title)[0]
    head_words = TITLE_WORD.findall(head)
    coded = [i for i, w in enumerate(head_words) if DIGIT.search(w)]
    modifiers = _plain_words(" ".join(head_words[(coded[-1] if coded else 0) + 1 :]))
    segments = _plain_words(target.title[len(head) :])
    in_title = set(_plain_words(target.title))
    own = [w for w in _plain_words(f"{target.review_title} {target.review_text}") if w in in_title]
    if target.review_title.strip() == target.title.strip():
        own = []  # a slice that stores the title as the review's: no words of the person's
    ordered = dict.fromkeys(w for w in (*own, *modifiers, *segments) if w not in said)
    return list(ordered)


def paraphrase(attribute: str) -> str:
    """An attribute as a user would say it in passing: its last two content words."""
    kept = [w for w in attribute.split() if w.lower() not in STOPWORDS]
    return " ".join(kept[-2:]) if kept else attribute


@dataclass(frozen=True)
class RuleQueryGenerator:
    """The offline user's request: the target's kind in the user's words, some of its
    attributes as the profile names them, and a use from their own review, never copying
    the title."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)
    params: QueryParams
    draws: Draws = field(default_factory=Draws, repr=False, compare=False)

    def context(self, inp: QueryInput, kind: str, gen: np.random.Generator) -> str:
        """What the user already owns, in passing: that they have one of this kind already.
        (Other kinds they own are left out: a need names what is wanted now.)"""
        if not inp.history or gen.random() >= self.params.history_context:
            return ""
        kinds = [product_kind(h.title) for h in inp.history]
        if any(k.split()[-1:] == kind.split()[-1:] for k in kinds):
            return one_of(gen, SAME_KIND)
        return ""

    async def __call__(self, inp: QueryInput, seed: int) -> Query:
        p, gen, title = self.params, self.draws(seed), inp.target.title
        kind = spoken_kind(title, inp.domain)
        if not kind:
            raise RoleFailure("query", "neither the target's title nor the domain names a product")
        if p.wording != "title" or gen.random() < p.general_kind or inp.profile.name in BROAD_KIND:
            kind = kind.split()[-1]
        limit = MAX_ATTRIBUTES[inp.profile.name]
        if p.wording == "buyer":  # a buyer who knows the item names what it is like,
            # in their own order, not the listing's
            known = buyer_words(inp.target, kind)[: limit + p.identifying_words]
            attributes = [known[i] for i in gen.permutation(len(known))]
        else:
            said = (
                shopper_words(title)
                if p.wording == "shopper"
                else [paraphrase(a) for a in title_parts(title)[1] if not PACKAGING.search(a)]
            )
            attributes = [a for a in said if gen.random() < p.attribute_mention][:limit]
        use = None
        if gen.random() < p.use_from_review:
            use = use_phrase(inp.target.review_text) or use_phrase(inp.target.review_title)
        use = use or one_of(gen, PLAIN_USES)
        context = self.context(inp, kind, gen)
        templates = TEMPLATES[inp.profile.name]
        template = one_of(gen, templates)
        detail = one_of(gen, DETAILS)
        # Plainer drafts in turn until none repeats four title words in a row: one attribute
        # fewer each time, then the kind's noun alone, then a plain use.
        drafts = [(kind, attributes[:n], use) for n in range(len(attributes), -1, -1)]
        drafts += [(kind.split()[-1], [], use), (kind.split()[-1], [], PLAIN_USES[0])]
        for kind_, attrs, use_ in drafts:
            text = template.format(
                kind=kind_,
                Kind=kind_[:1].upper() + kind_[1:],
                detail=detail.format(x=join_words(attrs)) if attrs else "",
                needs=join_words(attrs) if attrs else f"good for {use_}",
                use=use_,
                context=context,
            )
            if not shares_run(text, title):
                break
        return Query(query_text=text)
