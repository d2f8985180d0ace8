"""The six operational user profiles of Table 4 (Appendix B.1).

A profile is private to the simulated user: it shapes request wording, the final decision
and the post-purchase review, and is never shown to platforms or the user agent.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Profile(BaseModel):
    """A profile card as the user's own roles receive it: request style and review lens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    request: str
    evaluation: str

    @property
    def instruction(self) -> str:
        """The private guidance the user's decision reads (Appendix C.5), without the label."""
        return f"{self.request} {self.evaluation}"

    @classmethod
    def make(cls, name: str, request: str, evaluation: str) -> Profile:
        """A profile from its name and its two instructions."""
        return cls(name=name, request=request, evaluation=evaluation)


PROFILES: tuple[Profile, ...] = (
    Profile.make(
        "transactional_direct",
        "A short, direct, purchase-oriented request with a clear immediate goal and little "
        "ancillary context.",
        "Prioritizes whether the item solves the stated buying goal with minimal friction; "
        "feedback is concise and practical, with a direct reaction to a miss on the immediate "
        "need.",
    ),
    Profile.make(
        "informational_use_case",
        "Describes a concrete activity, context, or desired outcome and leaves the system to "
        "infer an appropriate product type.",
        "Judges fit to the concrete use case rather than general product quality; partial fit "
        "can yield a measured or mixed review that names the specific match or mismatch.",
    ),
    Profile.make(
        "comparative_evaluation",
        "States relevant trade-offs, for example durability versus portability or simplicity "
        "versus advanced control, without requiring a preselected pairwise comparison.",
        "Evaluates the item against the expressed dimensions and identifies the main "
        "compromise, trade-off, or standout advantage.",
    ),
    Profile.make(
        "attribute_constraint",
        "Emphasizes hard requirements such as compatibility, interface, size, material, "
        "format, installation limits, budget range, or required features.",
        "Treats violation of a stated hard constraint as decision-critical even when the item "
        "has other attractive qualities.",
    ),
    Profile.make(
        "novice_advice",
        "Uses nontechnical language and asks for an easy-to-use, low-regret option or "
        "guidance about which considerations matter.",
        "Is relatively forgiving when an item is usable, but reacts negatively when the "
        "explanation made ease, safety, or beginner suitability sound stronger than the "
        "experienced outcome.",
    ),
    Profile.make(
        "exploratory_hedonic",
        "Welcomes discovery, adjacent products, bundles, or unexpected substitutes and may "
        "express desired aesthetics, feel, identity, or emotional experience.",
        "Prioritizes experiential fit, enjoyment, aesthetics, and discovery value; practical "
        "imperfections can be tolerated when the experience is satisfying.",
    ),
)

PROFILE_NAMES: tuple[str, ...] = tuple(p.name for p in PROFILES)
PROFILE_BY_NAME: dict[str, Profile] = {p.name: p for p in PROFILES}
PROFILE_BY_INSTRUCTION: dict[str, Profile] = {p.instruction: p for p in PROFILES}
