"""The copy market's tables in the docs, written from the report's ``copy_adoption.csv``
(``recmarket.analysis.copy_adoption`` says how each number and interval is made): the
adopters' gain as adoption rises, what full and single adoption cost the users and how the
records label rewritten sales, and the verdicts on whether records punish a strategy, each
read from the intervals by a stated rule."""

from __future__ import annotations

from collections.abc import Callable

from table_writers import Row, markdown, span

NO_RECORDS = "NoRep"
RECORDS = ("LocalRep", "Shared-1")


def _pp(row: Row | None, column: str) -> str:
    """A share's estimate and interval in percentage points ("-" where there is none)."""
    if row is None or row.get(column, "") == "":
        return "-"
    if "nan" in (row[f"{column}_low"], row[f"{column}_high"]):  # too few seeds to resample
        return f"{float(row[column]) * 100:+.1f} [no interval]"
    return span(row, column, 1, 100.0, True)


def _lines(rows: list[Row]) -> dict[tuple[str, str, str], dict[int, Row]]:
    """The rows of adoption in its order (P1 first) by (strategy, condition, schedule), then
    by adopters."""
    found: dict[tuple[str, str, str], dict[int, Row]] = {}
    for r in rows:
        if r["strategy"] != "none" and r["in_order"] == "True":
            key = (r["strategy"], r["condition"], r["schedule"])
            found.setdefault(key, {})[int(r["adopters"])] = r
    return dict(sorted(found.items()))


def _named(lines: dict[tuple[str, str, str], dict[int, Row]]) -> dict[tuple, str]:
    """Each line's condition, with its schedule (requests x users) where the condition was
    played on several (NoRep on each schedule of a condition with memory)."""
    schedules: dict[str, set[str]] = {}
    for _, condition, plan in lines:
        schedules.setdefault(condition, set()).add(plan)
    return {key: f"{key[1]} ({key[2]})" if len(schedules[key[1]]) > 1 else key[1] for key in lines}


def gains(rows: list[Row]) -> str:
    """The adopters' Top-1 gain per adopting seat (pp, 95% intervals), by strategy and
    condition, as adoption rises to every seat."""
    lines = _lines(rows)
    names = _named(lines)
    levels = sorted({a for line in lines.values() for a in line})
    body = [
        [key[0], names[key], *(_pp(line.get(a), "adopter_gain") for a in levels)]
        for key, line in lines.items()
    ]
    return markdown(["strategy", "condition", *(f"{a} adopting" for a in levels)], body)


def costs(rows: list[Row]) -> str:
    """At one adopter and at every seat adopting: the honest seats' loss per seat, the change
    in target purchase, the Low and High shares of records after a purchase from a
    rewritten listing, and the unsupported words an episode's listings added."""
    lines = _lines(rows)
    names = _named(lines)
    body = []
    for key, line in lines.items():
        first, last = line.get(min(line)), line.get(max(line))
        body.append(
            [
                key[0],
                names[key],
                _pp(first, "honest_loss"),
                _pp(first, "change_target_purchase"),
                _pp(last, "change_target_purchase"),
                f"{_pp(first, 'rewritten_low')} / {_pp(first, 'rewritten_high')}",
                f"{_pp(last, 'rewritten_low')} / {_pp(last, 'rewritten_high')}",
                f"{float(last['unsupported']):.2f}" if last and last.get("unsupported") else "-",
            ]
        )
    header = [
        "strategy",
        "condition",
        "honest loss per seat, 1 adopting (pp)",
        "target purchase change, 1 adopting (pp)",
        "target purchase change, all adopting (pp)",
        "rewritten sales Low / High, 1 adopting (%)",
        "rewritten sales Low / High, all adopting (%)",
        "unsupported words an episode, all adopting",
    ]
    return markdown(header, body)


def _below(a: Row, b: Row) -> bool:
    """Whether ``a``'s gain interval lies wholly below ``b``'s."""
    return float(a["adopter_gain_high"]) < float(b["adopter_gain_low"])


def verdicts(rows: list[Row]) -> str:
    """For each strategy and condition with records: whether the records punish adopting,
    read as the adopters' gain interval lying wholly below NoRep's on the same schedule
    (same requests and users), at which adoption levels; "amplify" where wholly above. Full
    adoption is left out: there the gain is 0 by construction."""
    lines = _lines(rows)
    body = []
    for (strategy, condition, plan), line in lines.items():
        if condition not in RECORDS:
            continue
        base = lines.get((strategy, NO_RECORDS, plan))
        if base is None:
            body.append([strategy, condition, "no NoRep cell on its schedule", "-"])
            continue
        levels = [a for a in sorted(line) if a in base and a < max(line)]
        punished = [a for a in levels if _below(line[a], base[a])]
        amplified = [a for a in levels if _below(base[a], line[a])]

        def said(found: list[int]) -> str:
            return ", ".join(map(str, found)) if found else "none"

        verdict = (
            "punish"
            if punished and not amplified
            else "amplify"
            if amplified and not punished
            else "mixed"
            if punished
            else "no detectable effect"
        )
        body.append([strategy, condition, verdict, f"{said(punished)} / {said(amplified)}"])
    header = [
        "strategy",
        "records",
        "do records punish adopting? (vs NoRep, same schedule)",
        "adoption levels where the gain is below / above NoRep's",
    ]
    return markdown(header, body)


def alone(rows: list[Row]) -> str:
    """Each seat that adopts alone, out of the adoption order (a lone Balanced or
    Exaggeration stuffer), beside the same strategy's first adopter (P1, Strict): its gain
    under each condition, the Low / High shares of its rewritten sales' records, and
    whether the records punish it (its gain's interval wholly below NoRep's on the same
    schedule) or amplify it (wholly above)."""
    kept = [r for r in rows if r["strategy"] != "none" and r["adopters"] == "1"]
    kept.sort(key=lambda r: (r["strategy"], r["seats"], r["condition"], r["schedule"]))
    norep = {
        (r["strategy"], r["seats"], r["schedule"]): r for r in kept if r["condition"] == NO_RECORDS
    }
    body = []
    for r in kept:
        if r["condition"] == NO_RECORDS:
            continue
        base = norep.get((r["strategy"], r["seats"], r["schedule"]))
        verdict = "no NoRep cell on its schedule"
        if base is not None and r.get("adopter_gain_high", "") != "":
            verdict = (
                "punish"
                if _below(r, base)
                else "amplify"
                if _below(base, r)
                else "no detectable effect"
            )
        body.append(
            [
                r["strategy"],
                r["seats"],
                r["condition"],
                _pp(r, "adopter_gain"),
                _pp(base, "adopter_gain"),
                f"{_pp(r, 'rewritten_low')} / {_pp(r, 'rewritten_high')}",
                verdict,
            ]
        )
    header = [
        "strategy",
        "adopting seat",
        "records",
        "gain (pp)",
        "gain under NoRep, same schedule (pp)",
        "rewritten sales Low / High (%)",
        "do records punish it?",
    ]
    return markdown(header, body)


def _relative(row: Row | None) -> str:
    """A gain as a share of what the same seats held without rewriting (a point)."""
    if row is None or not row.get("adopter_base") or float(row["adopter_base"]) == 0:
        return "-"
    return f"{float(row['adopter_gain']) / float(row['adopter_base']) * 100:+.0f}%"


def anchors(rows: list[Row]) -> str:
    """Our numbers beside the anchors' (their figures as issue 68 cites them): each
    strategy's gain at one adopter under NoRep (single-shot, as theirs are), in points and
    relative to the seat's share without rewriting, and the gain per adopter at one and at
    five of six adopting, under NoRep and under LocalRep."""
    lines = _lines(rows)
    body = []
    for (strategy, condition, plan), line in lines.items():
        if condition not in (NO_RECORDS, "LocalRep"):
            continue
        if condition == NO_RECORDS and (strategy, "LocalRep", plan) not in lines:
            continue  # NoRep on the other schedule: its LocalRep row is the one compared
        one, five = line.get(1), line.get(5)
        body.append(
            [
                strategy,
                condition,
                f"{_pp(one, 'adopter_gain')} ({_relative(one)})",
                _pp(five, "adopter_gain"),
            ]
        )
    header = [
        "strategy",
        "condition",
        "gain at 1 adopting, pp (relative)",
        "gain per adopter at 5 of 6 adopting, pp",
    ]
    return markdown(header, body)


COPY_TABLES: dict[str, tuple[str, Callable[[list[Row]], str]]] = {
    "copy-gains": ("copy_adoption", gains),
    "copy-costs": ("copy_adoption", costs),
    "copy-verdicts": ("copy_adoption", verdicts),
    "copy-anchors": ("copy_adoption", anchors),
    "copy-alone": ("copy_adoption", alone),
}
