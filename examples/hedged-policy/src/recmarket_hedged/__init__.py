"""Hedged: a platform that claims less than its own reading of the evidence supports.

An example of a presentation policy added from outside recmarket: one object, registered
under the ``recmarket.policies`` entry-point group in this package's pyproject.toml. Once
the package is installed, ``recmarket run --policies strict,balanced,exaggeration,hedged,...``
uses it with the offline platforms (its claim rule and wording) and with an LLM (its prompt
card id and guidance), and summaries report it as a family of its own.

Why these values: Strict shades its claim by up to one band of the lexicon (0.2) below its
reading; a hedging platform always understates, by one to two bands, so its claims are a
band lower than Strict's on average and never above the reading. It words its explanation
as Strict does (two things the evidence does not show), the candid half of hedging.
"""

from recmarket.catalogue.policies import PresentationPolicy, Shift, Wording

HEDGED = PresentationPolicy(
    name="hedged",
    implementation_id="hedged_understatement",
    guidance=(
        "Use a hedged, understated style. Describe the item as a somewhat weaker fit than "
        "the item data suggests, qualify every benefit, and mention limitations, missing "
        "evidence and uncertainties before strengths. Never overstate; do not invent hard "
        "facts or objective attributes."
    ),
    claim=Shift(low=-0.4, high=-0.2),
    wording=Wording(limitations=2),
    colour="#8172B3",
)
