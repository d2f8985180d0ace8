"""An episode as a story, in the market's order: the outcome first, then the need, the pool
(each platform, its policy, its candidate and its claim, the target marked), the shortlist,
the decision, the review and the record written.

It reads the stored role calls and the episode row only, so it tells a store's episodes as
they were played, offline or by an LLM; a role that failed ends the story there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Call(Protocol):
    """A stored role call (``recmarket.run.episode_rows.StoredCall``), read only."""

    @property
    def role(self) -> str:
        """The role that was called."""
        ...

    @property
    def input(self) -> dict[str, Any]:
        """The call's typed input, as stored."""
        ...

    @property
    def output(self) -> dict[str, Any] | None:
        """The call's output, as stored (None: the role failed)."""
        ...


def _first(calls: Sequence[Call], role: str) -> Call | None:
    return next((c for c in calls if c.role == role), None)


def _title(item: Any) -> str:
    return str(item.get("title", "")) if isinstance(item, Mapping) else ""


def outcome(row: Mapping[str, Any]) -> str:
    """The episode's outcome in one short phrase, as the explorer filters it."""
    if row["failed_role"]:
        return "failed"
    if row["target_purchased"]:
        return "target purchase"
    return "off-target purchase" if row["any_purchase"] else "no purchase"


def headline(row: Mapping[str, Any], story: Mapping[str, Any]) -> str:
    """The outcome in a sentence, with where the target stood."""
    bought = next((p for p in story["pool"] if p["bought"]), None)
    where = f" from {bought['platform']} ({bought['policy']})" if bought else ""
    if row["failed_role"]:
        return f"No purchase: the {row['failed_role']} role failed, which ended the episode."
    if row["target_purchased"]:
        return f"Bought the target{where}."
    targets = [p for p in story["pool"] if p["target"]]
    if not targets:
        reach = "the target was in no platform's pool"
    else:
        ranked = [p for p in targets if p["rank"]]
        names = [p["platform"] for p in targets]
        at = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        reach = (
            f"the target was offered by {at} and shortlisted at rank "
            f"{min(p['rank'] for p in ranked)}"
            if ranked
            else f"the target was offered by {at} but not shortlisted"
        )
    did = f"Bought an off-target item{where}" if row["any_purchase"] else "Bought nothing"
    return f"{did}; {reach}."


@dataclass(frozen=True)
class Shown:
    """What the user agent ranked and the user saw and chose, from the shortlist and decide
    calls: the user saw the decision's options (the agent's shortlist, or a platform's own
    list), else the shortlist when the episode ended before the decision."""

    ranked: list[Mapping[str, Any]]  # the shortlist's output, in rank order
    options: list[Mapping[str, Any]]  # the decision's options
    decided: bool
    bought: tuple[Any, Any] | None  # (platform, title) of the option chosen

    @classmethod
    def read(cls, shortlist: Call | None, decide: Call | None) -> Shown:
        """Read from the two calls (either may be missing)."""
        ranked = (shortlist.output or {}).get("ranked", []) if shortlist else []
        offered = (decide.input.get("options") or []) if decide else []
        options = [o for o in offered if isinstance(o, Mapping)]
        chosen = (decide.output or {}).get("option_id") if decide else None
        bought = next(
            (
                (o.get("platform_id"), o.get("title"))
                for o in options
                if o.get("option_id") == chosen
            ),
            None,
        )
        return cls(
            [r for r in ranked if isinstance(r, Mapping)], options, decide is not None, bought
        )

    def rank_of(self, seat: Any, title: str) -> Any:
        """The rank the user saw a seat's candidate at (None: not shown)."""
        if self.decided:
            ranks = {(o.get("platform_id"), o.get("title")): o.get("rank") for o in self.options}
            return ranks.get((seat, title))
        return {r.get("platform_id"): i + 1 for i, r in enumerate(self.ranked)}.get(seat)

    def listing(self) -> list[dict[str, Any]]:
        """The shortlist as the story shows it: the agent's, with its reasons, else the
        platform's own list."""
        if self.ranked:
            return [
                {"rank": i + 1, "platform": r.get("platform_id", ""), "reason": r.get("reason", "")}
                for i, r in enumerate(self.ranked)
            ]
        return [
            {
                "rank": o.get("rank"),
                "platform": o.get("platform_id", ""),
                "reason": "its own ranking",
            }
            for o in self.options
        ]


def pool_of(
    calls: Sequence[Call], row: Mapping[str, Any], target: str, shown: Shown, histories: Any
) -> list[dict[str, Any]]:
    """Each platform's candidate, in the order they explained: its policy, claim, the rank
    it was seen at, its records, and whether it is the target and the one bought (one copy
    of an item is the one bought). The calls hold no item ids (the roles never see them), so
    a candidate is the target when its title is the target's and the row says the target was
    in the pool: another listing under the target's title is not taken for it."""
    pool, bought = [], shown.bought
    target = target if row.get("target_present", True) else ""
    for c in calls:
        if c.role != "explain":
            continue
        seat, title = c.input.get("platform_id", ""), _title(c.input.get("item"))
        pool.append(
            {
                "platform": seat,
                "policy": c.input.get("policy", ""),
                "title": title,
                "target": bool(target) and title == target,
                "claim": (c.output or {}).get("text", ""),
                "rank": shown.rank_of(seat, title),
                "records": len(histories.get(seat, []) or []),
                "bought": bool(row["any_purchase"]) and (seat, title) == bought,
            }
        )
        if pool[-1]["bought"]:
            bought = None
    return pool


def episode_story(row: Mapping[str, Any], calls: Sequence[Call]) -> dict[str, Any]:
    """The episode as plain data (JSON-ready): what the show command and the report's
    explorer lay out."""
    query, need = _first(calls, "query"), _first(calls, "need")
    shortlist, decide = _first(calls, "shortlist"), _first(calls, "decide")
    review, update = _first(calls, "review"), _first(calls, "update")
    target = _title(query.input.get("target")) if query else ""
    shown = Shown.read(shortlist, decide)
    histories = (shortlist.input.get("histories") or {}) if shortlist else {}
    story: dict[str, Any] = {
        "episode": row["episode_id"],
        "condition": row["condition"],
        "profile": row["profile"],
        "user": row["sim_user"],
        "round": row["round"],
        "outcome": outcome(row),
        "target": target,
        "request": (query.output or {}).get("query_text", "") if query else "",
        "need": dict(need.output or {}) if need else {},
        "pool": pool_of(calls, row, target, shown, histories),
        "shortlist": shown.listing(),
        "decision": dict(decide.output or {}) if decide else {},
        "review": (review.output or {}).get("text", "") if review else "",
        "record": (
            {"platform": row.get("rep_platform") or "", **(update.output or {})}
            if update and update.output
            else {}
        ),
        "failed_role": row["failed_role"] or "",
    }
    story["headline"] = headline(row, story)
    return story
