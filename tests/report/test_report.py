"""The report: figures and tables from the stores alone, and the HTML page in headless
Chromium (no console errors, filters work, planted markup stays inert)."""

import base64
import errno
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.experiments.spec import builtin_names
from recmarket.report.build import drawn_figure, heading
from recmarket.report.data import CellsKeptApart, load_cells
from recmarket.report.figures import FIGURES
from recmarket.report.ticks import overlaps
from tests.data.test_domain import newest_first
from tests.fixtures import meta, write_jsonl

PLANT = (
    '<script>document.body.dataset.pwned="1"</script>'
    '<img src=x onerror="document.body.dataset.pwned=1">'
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    data = root / "data"
    data.mkdir()
    for domain in ("Tiny", "Other"):
        items = [f"{domain[0]}{k:02d}" for k in range(40)]
        reviews = []
        for u in range(60):
            reviews += newest_first(f"{domain}{u:03d}", items[u % 30 : u % 30 + 6])
        write_jsonl(data / f"{domain}.jsonl", reviews)
        write_jsonl(
            data / f"meta_{domain}.jsonl", [meta(x, title=f"Widget {x} {PLANT}") for x in items]
        )
    spec = root / "tiny.toml"
    spec.write_text(
        f'name = "tiny"\ndescription = "planted titles"\nrequests = 24\n'
        'figure = "accountability"\n'
        f'[base]\ndata = "{data}"\ndomains = ["Tiny", "Other"]\n'
        '[[cells]]\nname = "no-rep"\nsettings = { condition = "no-rep" }\n'
        '[[cells]]\nname = "local-rep"\nsettings = { condition = "local-rep" }\n'
    )
    result = CliRunner().invoke(app, ["reproduce", str(spec), "--out", str(root / "out")])
    assert result.exit_code == 0, result.output
    assert "report:" in result.stdout
    said = result.stdout
    assert said.lstrip("─ ").startswith("Summary")  # the terminal opens with it too
    assert said.index("backend: offline agents") < said.index("Experiments in")
    return root / "out"


def test_figures_find_their_cells_by_settings_not_names(report: Path) -> None:
    """The spec names its figure; its cells are called "no-rep" and "local-rep", not the
    built-in "equal/no-rep", and are found by composition and condition all the same. The
    figure that needs compositions the spec lacks says so instead of failing."""
    figures = report / "report" / "figures"
    assert (figures / "fig07_top1_by_family.png").is_file()
    assert (figures / "fig11_label_distribution.png").is_file()
    html = (report / "report" / "report.html").read_text()
    assert "fig08_purchase_by_composition: not drawn, 0 cells with composition" in html
    assert not (figures / "fig03_funnel.png").exists()  # no spec here feeds it


def test_report_regenerates_from_the_stores_alone(report: Path) -> None:
    html = (report / "report" / "report.html").read_text()
    assert "<script>document" not in html.replace('<script type="application/json"', "")
    packed = re.search(r'id="episodes">([^<]*)</script>', html)
    assert packed is not None  # the planted title reaches the page packed, never as markup
    assert PLANT in gzip.decompress(base64.b64decode(packed.group(1))).decode("unicode_escape")
    shutil.rmtree(report / "report")
    result = CliRunner().invoke(app, ["report", str(report)])
    assert result.exit_code == 0, result.output
    assert (report / "report" / "report.html").is_file()
    cells = (report / "report" / "tables" / "cells.csv").read_text()
    assert cells.count("\n") == 3
    header = cells.splitlines()[0].split(",")
    for measure in ("target_purchase", "regret", "hhi_top1", "hhi_purchase", "exposure_gini"):
        assert {measure, f"{measure}_low", f"{measure}_high"} <= set(header), measure


@pytest.mark.slow  # keeps the default selection well under 4 minutes
def test_sections_drawn_in_workers_equal_those_drawn_here(report: Path, tmp_path: Path) -> None:
    from recmarket.report.build import build_report

    here = build_report([report], tmp_path / "here", workers=1)
    forked = build_report([report], tmp_path / "forked", workers=3)
    assert forked.comparison == here.comparison and forked.notes == here.notes
    assert forked.path.read_text() == here.path.read_text()
    tables = sorted(p.name for p in (tmp_path / "here" / "tables").iterdir())
    assert tables == sorted(p.name for p in (tmp_path / "forked" / "tables").iterdir())
    for name in tables:
        assert (tmp_path / "forked" / "tables" / name).read_bytes() == (
            tmp_path / "here" / "tables" / name
        ).read_bytes()


@pytest.mark.slow  # end to end; keeps the default selection under 4 minutes
def test_a_report_that_cannot_be_written_whole_keeps_every_earlier_file_and_names_the_one(
    report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that fills while a figure is saved: the earlier report stays as it was (no
    half-written file in its place, no temporary file left), and the one line names the
    file and says the report is incomplete."""
    target = tmp_path / "r"
    assert CliRunner().invoke(app, ["report", str(report), "--out", str(target)]).exit_code == 0
    before = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}

    def disk_fills(self: Figure, fname: Path, **_: object) -> None:
        Path(fname).write_bytes(b"\x89PNG half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Figure, "savefig", disk_fills)
    result = CliRunner().invoke(
        app, ["report", str(report), "--out", str(target), "--workers", "1"]
    )
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert re.search(r"No space left on device: '.*/figures/fig\w+\.png'", said), said
    assert f"the report in {target} is incomplete" in said
    assert {p: p.read_bytes() for p in target.rglob("*") if p.is_file()} == before


@pytest.mark.slow  # end to end: the whole matrix, small
def test_every_paper_figure_is_drawn_from_a_small_reproduce(tmp_path: Path) -> None:
    """The paper's ten figures, the label counterfactual beside Fig. 7, and those of the
    dynamic-market experiments. The attacks and
    frontier figures are drawn in tests/analysis (test_attacks.py, test_frontier.py), the copy
    market's in test_copy_adoption.py there: their specs' 105, 216 and 189 cells would
    triple this test's time."""
    own_seeds = ("reputation-attacks", "design-frontier", "reputation-benchmark", "copy-adoption")
    specs = [name for name in builtin_names() if name not in own_seeds]
    args = ["reproduce", *specs, "--scale", "0.02", "--seeds", "1", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    pngs = sorted(p.name for p in (tmp_path / "report" / "figures").glob("*.png"))
    assert len([p for p in pngs if p.startswith("fig")]) == 11
    assert "fig07_label_counterfactual.png" in pngs
    assert [p for p in pngs if p.startswith(("dyn", "acc"))] == [
        "acc_long_histories.png",
        "dyn1_strategic_adaptation.png",
        "dyn2_platform_entry.png",
    ]
    assert len(list((tmp_path / "report" / "figures").glob("*.pdf"))) == 14
    table = (tmp_path / "report" / "tables" / "dyn2_platform_entry.csv").read_text()
    assert "P7 Top-1 share" in table and "regret" in table and "cluster" in table
    page = (tmp_path / "report" / "report.html").read_text()
    assert "data:image/png;base64" in page
    assert_navigable(page)
    cells = load_cells([tmp_path])
    by_figure: dict[str, list] = {}
    for members in cells.values():
        for cell in members.values():
            by_figure.setdefault(cell.figure, []).append(cell)
    for kind, figures in FIGURES.items():
        for stem, draw in figures if kind in by_figure else ():
            fig, _ = drawn_figure(draw, by_figure[kind])
            assert overlaps(fig) == [], stem
            assert heading(draw).endswith("."), stem
            plt.close(fig)


def assert_navigable(page: str) -> None:
    """The summary comes before any figure, every contents link and every link of the paper
    comparison resolves, and every figure has its anchor."""
    ids = set(re.findall(r'id="([^"]+)"', page))
    assert page.index('id="summary"') < page.index("<figure")
    contents = re.search(r"<nav[^>]*>(.*?)</nav>", page, re.S)
    assert contents is not None
    links = re.findall(r'href="#([^"]+)"', contents.group(1))
    assert len(links) >= 8 and set(links) <= ids
    everywhere = set(re.findall(r'href="#([^"]+)"', page))
    assert everywhere <= ids, everywhere - ids
    for stem in re.findall(r'<figure id="([^"]+)"', page):
        assert stem in links


def test_cells_whose_treatment_never_acted_are_flagged(report: Path, tmp_path: Path) -> None:
    """Window and beta differ only once a history passes W records: with two rounds per
    user neither can, and the report says the cells are identical and why, rather than
    drawing two results."""
    spec = tmp_path / "mechanisms.toml"
    data = report.parent / "data"
    spec.write_text(
        'name = "mechanisms"\ndescription = "too short to act"\nrequests = 24\nseeds = [1]\n'
        f'[base]\ndata = "{data}"\ndomains = ["Tiny"]\ncondition = "local-rep"\n'
        '[axes]\n"market.reputation_mechanism" = ["window", "beta"]\n'
    )
    result = CliRunner().invoke(app, ["reproduce", str(spec), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    said = (
        "mechanisms: reputation_mechanism=window/seed=1 and reputation_mechanism=beta/seed=1 "
        "are identical: the mechanism never acted"
    )
    assert said in result.stdout
    page = (tmp_path / "r" / "report" / "report.html").read_text()
    assert said in page
    records = (tmp_path / "r" / "report" / "tables" / "records_per_history.csv").read_text()
    assert records.count("\n") == 3 and ",10," in records  # both cells, and the window


def chromium(page: Path, fragment: str, profile: Path, *action: str) -> tuple[str, str]:
    """Headless Chromium on the page at ``#fragment``: what ``action`` prints (the DOM after
    the scripts ran, by default) and the browser's log."""
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            *(action or ("--dump-dom",)),
            f"{page.as_uri()}#{fragment}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(profile)},
    )
    return result.stdout, result.stderr


def listed(dom: str) -> int:
    return int(dom.split('data-listed="')[1].split('"')[0])


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")
def test_the_page_in_headless_chromium(report: Path, tmp_path: Path) -> None:
    page = report / "report" / "report.html"
    everything, log = chromium(page, "", tmp_path / "a")
    assert 'data-listed="' in everything, "the explorer script did not run"
    assert "Uncaught" not in log and "CONSOLE" not in log
    assert_navigable(everything)  # as the browser holds the page, scripts run
    filtered, _ = chromium(page, "domain=Other&open=1", tmp_path / "b")
    assert 0 < listed(filtered) < listed(everything)
    assert "data-pwned" not in filtered and "data-pwned" not in everything  # inert
    assert "&lt;script&gt;document.body.dataset.pwned" in filtered  # shown as text
    # An opened episode is a story: its outcome first, the target's row marked.
    bought, _ = chromium(page, "outcome=target purchase&open=1", tmp_path / "c")
    detail = bought.split('id="detail"')[1]
    assert detail.index('class="outcome target-purchase"') < detail.index('class="pool"')
    assert '<tr class="target bought">' in detail and "\u2605 target" in detail
    # A filter that empties the list says why, and the other filters offer nothing then.
    empty, _ = chromium(page, "cell=nowhere&domain=Other", tmp_path / "d")
    assert listed(empty) == 0
    assert 'No embedded episode has cell "nowhere", domain "Other"' in empty
    assert "Clear the cell filter" in empty
    outcomes = empty.split('id="f-outcome"')[1].split("</select>")[0]
    assert outcomes.count("<option") == 1  # "(all)": no episode is left to offer


def test_unfinished_cells_are_left_out_and_named_in_one_line(report: Path, tmp_path: Path) -> None:
    """A cell stopped part-way, then every other one never started: the report and the
    frontier read the finished cells alone and name the others; with none finished, the
    report refuses in one line."""
    copy = tmp_path / "out"
    shutil.copytree(report, copy)
    stopped, *others = (copy / e["run_dir"] for e in json.loads((copy / "plan.json").read_text()))
    with sqlite3.connect(stopped / "run.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE ord >= 5")
    for command in (["report", str(copy), "--out", str(tmp_path / "rep")], ["frontier", str(copy)]):
        done = CliRunner().invoke(app, command)
        assert done.exit_code == 0, done.output
        said = " ".join(done.stderr.split())
        assert f"left out 1 unfinished cell(s): {stopped.name} (10 of 48 episodes)" in said
    for other in others:
        shutil.rmtree(other)
    done = CliRunner().invoke(app, ["report", str(copy), "--out", str(tmp_path / "none")])
    said = " ".join(done.stderr.split())
    assert done.exit_code == 2, done.output
    assert f"{others[0].name} (not started)" in said and "no finished cell to report" in said


def test_cells_found_in_several_directories_count_once_or_are_kept_apart(
    report: Path, tmp_path: Path
) -> None:
    """A directory given twice, a copy of it, and the same experiment at another scale: the
    same runs count once, and the other scale's cells keep their own rows under labels
    that name their directory, each said in one warning line."""
    copy = tmp_path / "copy"
    shutil.copytree(report, copy)
    other = tmp_path / "scaled"
    spec = report.parent / "tiny.toml"
    done = CliRunner().invoke(app, ["reproduce", str(spec), "--scale", "0.6", "--out", str(other)])
    assert done.exit_code == 0, done.output
    once = load_cells([report])["tiny"]
    with pytest.warns(CellsKeptApart) as said:
        cells = load_cells([report, report, copy, other])["tiny"]
    words = " ".join(str(w.message) for w in said)
    assert "tiny/no-rep" in words and "counted once" in words
    assert "tiny/no-rep kept apart as no-rep (scaled)" in words
    for label, cell in once.items():
        assert len(cells[f"{label} (out)"].rows) == len(cell.rows)  # once, not three times
        scaled = cells[f"{label} (scaled)"]
        # users remember (a LocalRep cell): each keeps its 2 rounds, one user a profile
        assert len(scaled.rows) == len(scaled.seeds) * 2 * 12 == len(cell.rows) // 2


@pytest.mark.slow  # end to end: a built-in experiment reproduced, then reported
def test_a_cell_missing_some_of_its_seeds_is_not_compared_and_the_report_is_written(
    tmp_path: Path,
) -> None:
    """A stopped reproduce finished a cell's other seeds but not this one: the pooled cell
    no longer holds its twin arm's episodes, so the paper comparison says its contrasts were
    not run rather than stopping the report (issue 45, item 8)."""
    out = tmp_path / "r"
    spec = tmp_path / "accountability.toml"  # the built-in's equal cells, small and unscaled
    spec.write_text(  # (a scaled LocalRep spec keeps one seed: its users keep their rounds)
        'name = "accountability"\ndescription = "small"\nrequests = 48\n'
        '[[cells]]\nname = "equal"\nsettings = { market = { composition = "equal" } }\n'
        '[axes]\ncondition = ["no-rep", "local-rep"]\n'
    )
    done = CliRunner().invoke(app, ["reproduce", str(spec), "--out", str(out)])
    assert done.exit_code == 0, done.output
    plan = json.loads((out / "plan.json").read_text())
    seeded = next(e for e in plan if e["cell"] == "equal/condition=local-rep/seed=43")
    shutil.rmtree(out / seeded["run_dir"])
    done = CliRunner().invoke(app, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert done.exit_code == 0, done.output
    assert "left out 1 unfinished cell(s)" in " ".join(done.stderr.split())
    table = (tmp_path / "rep" / "tables" / "paper_comparison.csv").read_text()
    assert "not run" in table
