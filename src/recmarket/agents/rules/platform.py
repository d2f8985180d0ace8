"""The platform's offline role: an explanation written from its candidate's evidence under
its presentation policy (Table 5).

Every policy names only terms that the item's evidence contains; what differs is framing
and disclosure. Strict reports which requested terms the listing does not state, a modest
rating and thin evidence, in hedged words; Balanced gives the strongest supported benefit
and one trade-off; Exaggeration turns the matched terms into confident fit language and
leaves limitations out. No policy asserts an attribute the evidence lacks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recmarket.agents.contracts import Explanation, ExplanationInput
from recmarket.agents.rules.text import join_words, ordered_terms, short_title, stem, terms, words
from recmarket.data.items import ItemEvidence
from recmarket.market.policies import Policy


def evidence_text(item: ItemEvidence) -> str:
    """Everything the platform may cite: listing text, features and the rating."""
    rating = f"{item.average_rating:.1f}" if item.average_rating is not None else ""
    return " ".join((item.title, item.category, item.description, *item.features, rating))


def need_split(need_text: str, item: ItemEvidence) -> tuple[list[str], list[str]]:
    """The need's words the evidence supports, and those it does not state."""
    offered = terms(evidence_text(item))
    wanted = ordered_terms(need_text)
    matched = [w for w in wanted if stem(w) in offered]
    missing = [w for w in wanted if stem(w) not in offered and not w.isdigit()]
    return matched, missing


def best_fact(item: ItemEvidence) -> str | None:
    """The first feature bullet, else the description's first sentence (short)."""
    if item.features:
        return words(item.features[0], 12)
    if item.description:
        return words(item.description.split(". ")[0].rstrip("."), 14)
    return None


def _strict(item: ItemEvidence, matched: list[str], missing: list[str]) -> list[str]:
    name = short_title(item.title)
    fact = best_fact(item)
    out = [f"{name} lists {fact}." if fact else f"{name} is listed under {item.category}."]
    if matched and missing:
        out.append(
            f"It appears to match your request on {join_words(matched[:3])}, but the listing "
            f"does not state {join_words(missing[:2])}, so fit there is uncertain."
        )
    elif matched:
        out.append(f"It appears to match your request on {join_words(matched[:3])}.")
    else:
        out.append(
            f"It is only a partial match: the listing does not state "
            f"{join_words(missing[:2]) if missing else 'how it fits your request'}."
        )
    if item.average_rating is not None and item.average_rating < 4.0:
        out.append(f"Its average rating of {item.average_rating:.1f} is modest.")
    elif item.description_source != "description":
        out.append("The listing has little detail beyond its feature list.")
    return out


def _balanced(item: ItemEvidence, matched: list[str], missing: list[str]) -> list[str]:
    name = short_title(item.title)
    fact = best_fact(item)
    focus = join_words(matched[:2]) if matched else "this need"
    out = [f"{name} is a practical option for {focus}" + (f": {fact}." if fact else ".")]
    if missing:
        out.append(f"One trade-off: the listing does not state {missing[0]}.")
    elif item.average_rating is not None and item.average_rating < 4.2:
        out.append(f"One trade-off: its rating of {item.average_rating:.1f} is only average.")
    else:
        out.append("One trade-off: details beyond the listing are limited.")
    return out


OPENERS = (
    "{name} is the perfect choice for you!",
    "You can't go wrong with {name}: it is exactly what you're looking for!",
)


def _exaggeration(item: ItemEvidence, matched: list[str], gen: np.random.Generator) -> list[str]:
    name = short_title(item.title)
    out = [OPENERS[int(gen.integers(len(OPENERS)))].format(name=name)]
    boast = ""
    if item.average_rating is not None and item.average_rating >= 4.3:
        boast = f", loved by buyers at {item.average_rating:.1f} stars"
    if matched:
        out.append(
            f"Its {join_words(matched[:3])} make it an outstanding, hassle-free pick{boast}."
        )
    else:
        out.append(f"It is a smart, effortless solution you'll love{boast}.")
    return out


@dataclass(frozen=True)
class RuleExplainer:
    async def __call__(self, inp: ExplanationInput, seed: int) -> Explanation:
        matched, missing = need_split(inp.need.current_need, inp.item)
        if inp.policy is Policy.STRICT:
            sentences = _strict(inp.item, matched, missing)
        elif inp.policy is Policy.BALANCED:
            sentences = _balanced(inp.item, matched, missing)
        else:
            sentences = _exaggeration(inp.item, matched, np.random.default_rng(seed))
        return Explanation(text=" ".join(sentences[:3]))
