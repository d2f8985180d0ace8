"""The documentation: the README stays a front page, and the docs site builds with every
link and API reference resolved (mkdocs --strict fails on a broken one)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_is_a_front_page_whose_doc_links_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    linked = [part.split(")")[0].split("#")[0] for part in readme.split("](docs/")[1:]]
    assert linked and all((ROOT / "docs" / name).is_file() for name in linked), linked


def test_the_docs_site_builds_strictly(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    # docstrings rendered, not just names
    assert "recmarket.catalogue.policies.PresentationPolicy" in api


def test_the_architecture_page_names_every_package_and_command() -> None:
    import typer.main

    from recmarket.cli import app

    page = (ROOT / "docs" / "architecture.md").read_text()
    package = ROOT / "src" / "recmarket"
    parts = [
        f"{p.name}/" if p.is_dir() else p.name
        for p in package.iterdir()
        if not p.name.startswith("_") and (p.suffix == ".py" or (p / "__init__.py").is_file())
    ]
    assert [p for p in parts if f"  {p}" not in page] == []
    cli = page.split("  cli/", 1)[1].split("\n  api.py", 1)[0]
    commands = typer.main.get_group(app).commands
    assert [c for c in commands if c not in cli] == []
