"""How each results table of the docs is written from a report table of a stored run
(``TABLES``: its rows, read from the CSV the report wrote; those made from the code alone
are in ``code_tables``). ``scripts/docs_tables.py`` puts them between their markers."""

from __future__ import annotations

from collections.abc import Callable

Row = dict[str, str]


def _interval(row: Row, estimate: str = "ours", low: str = "low", high: str = "high") -> str:
    if not row[estimate]:
        return ""
    if not row[low]:
        return row[estimate]
    return f"{row[estimate]} [{row[low]}, {row[high]}]"


def markdown(header: list[str], lines: list[list[str]]) -> str:
    """A Markdown table (a "|" inside a cell becomes "/")."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell.replace("|", "/") for cell in line) + " |" for line in lines]
    return "\n".join(out) + "\n"


def paper_comparison(rows: list[Row]) -> str:
    """Every paper number beside ours: the verdict, how the interval was made, and for a
    LocalRep contrast where its chain breaks."""
    header = [
        "section",
        "what",
        "kind",
        "paper",
        "ours, 95% interval",
        "size",
        "verdict",
        "interval",
        "chain",
    ]
    lines = [
        [
            r["section"],
            r["what"],
            r["kind"],
            r["paper"] + (f" {r['paper_interval']}" if r["paper_interval"] else ""),
            _interval(r),
            r["size"],
            r["verdict"],
            r["interval_method"],
            r["chain"],
        ]
        for r in rows
        if r["verdict"] not in ("not run", "no counterpart")
    ]
    return markdown(header, lines)


def paper_summary(rows: list[Row]) -> str:
    """The verdicts counted by what produces each contrast, as the report's summary line."""
    from recmarket.report.paper import summary

    return f"`{summary(rows)}`\n"


CHAIN = (
    ("exaggeration_top1", "Exaggeration Top-1"),
    ("target_shortlisted", "target shortlisted"),
    ("target_top1", "target Top-1"),
    ("target_top1_via_exaggeration", "target Top-1, Exaggeration's targets"),
    ("target_purchased", "target purchased"),
    ("moved_to_target", "moved Top-1s now the target %"),
    ("moved_from_target", "moved Top-1s once the target %"),
    ("instruction_target_top1", "target Top-1: the instruction's part"),
    ("records_target_top1", "target Top-1: the records' part"),
    ("instruction_target_purchased", "target purchased: the instruction's part"),
    ("records_target_purchased", "target purchased: the records' part"),
)


def _ceiling(row: Row) -> str:
    """The range of target Top-1 over every belief (%), where the run stored its grid."""
    if not row.get("ceiling_low"):
        return ""
    return f"{float(row['ceiling_low']):.1f}-{float(row['ceiling_high']):.1f}"


def _chain(rows: list[Row], keep: Callable[[str], bool]) -> str:
    header = [
        "contrast",
        *(words for _, words in CHAIN),
        "target Top-1 over every belief %",
        "chain",
    ]
    lines = [
        [
            r["contrast"],
            *(_interval(r, c, f"{c}_low", f"{c}_high") for c, _ in CHAIN),
            _ceiling(r),
            r["chain"],
        ]
        for r in rows
        if keep(r["contrast"])
    ]
    return markdown(header, lines)


STEPS = "offline-model-steps:"
REQUEST_STEPS = "request-record-steps:"


# The experiments whose LocalRep contrasts the docs list (the design frontier's and the
# attacks' are in the report's table, beside their own tables).
PAPER_CHAINS = ("accountability:", "catalog-assignment:", "model-sensitivity:", "reputation-scope:")


def accountability_chain(rows: list[Row]) -> str:
    """Every LocalRep contrast of the paper's accountability experiments, link by link
    (points; the moved Top-1s in percent)."""
    return _chain(rows, lambda contrast: contrast.startswith(PAPER_CHAINS))


def model_steps(rows: list[Row]) -> str:
    """The equal market's LocalRep contrast under the model before issue 45, with each of
    its three changes alone, and with all three."""
    return _chain(rows, lambda contrast: contrast.startswith(STEPS))


def request_record_steps(rows: list[Row]) -> str:
    """The equal market's LocalRep contrast under the model before issue 63, with each of
    its three changes (the request, High at the prior, the instruction) alone, and with
    all three."""
    return _chain(rows, lambda contrast: contrast.startswith(REQUEST_STEPS))


def _num(value: str, digits: int, scale: float = 1.0, sign: bool = False) -> str:
    return f"{float(value) * scale:{'+' if sign else ''}.{digits}f}"


def span(row: Row, column: str, digits: int, scale: float = 1.0, sign: bool = False) -> str:
    """A report table's estimate with its 95% interval, rounded for reading."""
    ends = (row[column], row[f"{column}_low"], row[f"{column}_high"])
    a, b, c = (_num(v, digits, scale, sign) for v in ends)
    return f"{a} [{b}, {c}]"


def label_counterfactual(rows: list[Row]) -> str:
    """Exaggeration's label mix and its Top-1 contrast at each Low threshold."""
    header = [
        "`update.low_gap`",
        "Exaggeration's records: High / Mixed / Low %",
        "Exaggeration Top-1 share, LocalRep minus NoRep (pp)",
    ]
    lines = [
        [
            r["low_gap"],
            " / ".join(f"{float(r[f'exaggeration_{x}']):.1f}" for x in ("high", "mixed", "low")),
            f"{float(r['exaggeration_top1_change']):+.1f} [{float(r['low']):+.1f}, "
            f"{float(r['high']):+.1f}]",
        ]
        for r in rows
    ]
    return markdown(header, lines)


FRONTIER = [
    ("target_purchase", "target purchase %", 1, 100.0),
    ("hhi_top1", "HHI Top-1", 3, 1.0),
    ("exaggeration_top1", "Exaggeration Top-1 %", 1, 100.0),
]
FRONTIER_FULL = [
    *FRONTIER[:1],
    ("regret", "regret", 3, 1.0),
    *FRONTIER[1:2],
    ("hhi_purchase", "HHI purchase", 3, 1.0),
    ("exposure_gini", "exposure Gini", 3, 1.0),
    *FRONTIER[2:],
]


def _frontier(rows: list[Row], columns: list[tuple[str, str, int, float]], method: bool) -> str:
    header = ["N", "K", "accountability", "order", *(w for _, w, _, _ in columns)]
    lines = [
        [
            r["n_platforms"],
            r["shortlist_k"],
            r["accountability"],
            r["candidate_order"],
            *(span(r, c, d, x) for c, _, d, x in columns),
            *([r["interval"]] if method else []),
        ]
        for r in rows
        if r["dominated"] == "False"
    ]
    return markdown(header + (["interval"] if method else []), lines)


def frontier(rows: list[Row]) -> str:
    """The designs no other serves better at lower concentration."""
    return _frontier(rows, FRONTIER, method=False)


def frontier_full(rows: list[Row]) -> str:
    """The same designs with every measure and how each interval was made."""
    return _frontier(rows, FRONTIER_FULL, method=True)


ATTACK_COLUMNS: tuple[tuple[str, Callable[[Row], str]], ...] = (
    ("attack", lambda r: r["attack"]),
    ("defence", lambda r: r["defence"]),
    ("gain in Top-1 share (pp)", lambda r: span(r, "gain_top1", 1, 100.0, True)),
    ("gain in purchase share (pp)", lambda r: span(r, "gain_purchase", 1, 100.0, True)),
    (
        "change in target purchase (pp)",
        lambda r: span(r, "change_target_purchase", 1, 100.0, True),
    ),
    ("change in regret", lambda r: span(r, "change_regret", 4, sign=True)),
    ("names shown", lambda r: f"{float(r['identities']):.1f}"),
    ("switched", lambda r: f"{float(r['switched_share']):.2f}"),
    ("forged after", lambda r: f"{float(r['forged_share']):.2f}"),
    ("interval", lambda r: r["interval"]),
)


def attacks_table(rows: list[Row]) -> str:
    """Every attack under every defence, with what the attacker did."""
    lines = [[cell(r) for _, cell in ATTACK_COLUMNS] for r in rows]
    return markdown([name for name, _ in ATTACK_COLUMNS], lines)


def oracle_summary(rows: list[Row]) -> str:
    """How the paired oracle-minus-mechanism contrasts in target purchase come out."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines = [[verdict, str(n)] for verdict, n in sorted(counts.items(), key=lambda x: -x[1])]
    return markdown(["oracle minus mechanism, target purchase (paired 95%)", "pairs"], lines)


def long_histories(rows: list[Row]) -> str:
    """LocalRep minus NoRep over long histories (accountability-long)."""
    header = [
        "memory",
        "Exaggeration Top-1 share (pp)",
        "target Top-1 (pp)",
        "target purchase (pp)",
        "chain",
    ]
    lines = [
        [
            r["contrast"].split(": ", 1)[1],
            *(
                _interval(r, c, f"{c}_low", f"{c}_high")
                for c in ("exaggeration_top1", "target_top1", "target_purchased")
            ),
            r["chain"],
        ]
        for r in rows
        if r["contrast"].startswith("accountability-long:")
    ]
    return markdown(header, lines)


def _dynamic(rows: list[Row], measure: str, blocks: tuple[str, str]) -> str:
    """Each cell of a dynamic experiment: ``measure`` in its first and last block, then
    target purchase and regret over the whole run, with their 95% intervals."""
    found = {(r["cell"], r["rounds"], r["measure"]): r for r in rows}
    cells = list(dict.fromkeys(r["cell"] for r in rows))

    def shown(cell: str, rounds: str, name: str, scale: float, digits: int) -> str:
        r = found.get((cell, rounds, name))
        if r is None or r["estimate"] == "":
            return ""
        a, b, c = (f"{float(r[k]) * scale:.{digits}f}" for k in ("estimate", "low", "high"))
        return f"{a} [{b}, {c}]"

    header = [
        "cell",
        *(f"{measure} %, rounds {b}" for b in blocks),
        "target purchase %",
        "regret",
        "interval",
    ]
    lines = [
        [
            cell,
            *(shown(cell, b, measure, 100.0, 1) for b in blocks),
            shown(cell, "all", "target_purchase", 100.0, 1),
            shown(cell, "all", "regret", 1.0, 3),
            found[(cell, "all", "target_purchase")]["interval"],
        ]
        for cell in cells
    ]
    return markdown(header, lines)


def strategic_adaptation(rows: list[Row]) -> str:
    """Learning platforms: Exaggeration's share of their proposals, first and last block."""
    return _dynamic(rows, "exaggeration share", ("1-100", "1101-1200"))


def platform_entry(rows: list[Row]) -> str:
    """The Strict entrant's Top-1 share in its first and last block after entering."""
    return _dynamic(rows, "P7 Top-1 share", ("201-250", "551-600"))


REAL_SLICE_ROWS = (
    ("target present", "target_present", None),
    ("target shortlisted", "target_shortlisted", None),
    ("target top-1", "target_top1", None),
    ("target purchased", "target_purchase", "target_purchase"),
    ("any purchase", "any_purchase", None),
    ("Exaggeration Top-1 share", "exaggeration_top1", "exaggeration_top1"),
)


def real_slice(rows: list[Row]) -> str:
    """The real-slice spec's three conditions side by side (%; 95% intervals where the
    report gives them)."""
    cells = [r for r in rows if r["experiment"] == "real-slice"]
    names = [r["cell"].removeprefix("condition=") for r in cells]
    lines = [
        [
            label,
            *(
                span(r, interval_of, 1, 100.0)
                if interval_of and r.get(f"{interval_of}_low")
                else f"{float(r[column]) * 100:.1f}"
                for r in cells
            ),
        ]
        for label, column, interval_of in REAL_SLICE_ROWS
    ]
    return markdown(["macro over the two slices", *names], lines)


TABLES: dict[str, tuple[str, Callable[[list[Row]], str]]] = {
    "paper-comparison": ("paper_comparison", paper_comparison),
    "paper-summary": ("paper_comparison", paper_summary),
    "accountability-chain": ("accountability_chain", accountability_chain),
    "model-steps": ("accountability_chain", model_steps),
    "request-record-steps": ("accountability_chain", request_record_steps),
    "long-histories": ("accountability_chain", long_histories),
    "label-counterfactual": ("fig07_label_counterfactual", label_counterfactual),
    "frontier": ("frontier", frontier),
    "frontier-full": ("frontier", frontier_full),
    "attacks": ("attacks", attacks_table),
    "oracle-summary": ("oracle_contrasts", oracle_summary),
    "strategic-adaptation": ("dyn1_strategic_adaptation", strategic_adaptation),
    "platform-entry": ("dyn2_platform_entry", platform_entry),
    "real-slice": ("cells", real_slice),
}
