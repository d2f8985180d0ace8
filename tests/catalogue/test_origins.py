"""The code digests cover what the code reads: every file of the package (a prompt
template, a price table, bundled data), for recmarket's own package as for a plugin's, and
nothing the interpreter writes beside it."""

import sys
from pathlib import Path

import pytest

from recmarket.catalogue.origins import plugin_digest, source_digest
from recmarket.config import RunConfig
from recmarket.run.manifest import CodeChanged, RunIdentity, code_changes
from recmarket.run.provenance import own_code_digest


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "digested_pkg"
    (root / "prompts").mkdir(parents=True)
    (root / "__init__.py").write_text("x = 1\n")
    (root / "prompts" / "decide.txt").write_text("Choose one.\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    sys.modules.pop("digested_pkg", None)


@pytest.mark.parametrize("digest", [source_digest, lambda m: plugin_digest(m, None)])
def test_an_edited_template_changes_the_digest_and_a_compiled_cache_does_not(
    package: Path, digest
) -> None:
    before = digest("digested_pkg")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"\0compiled")
    assert digest("digested_pkg") == before
    (package / "prompts" / "decide.txt").write_text("Choose two.\n")
    assert digest("digested_pkg") != before


def test_a_resume_by_other_recmarket_files_is_said() -> None:
    identity = RunIdentity.of(RunConfig())
    manifest = identity.manifest()
    assert manifest["code_digest"] == own_code_digest() and code_changes(manifest) == ""
    manifest["code_digest"] = "0" * 64
    assert "other recmarket code" in code_changes(manifest)
    with pytest.warns(CodeChanged, match="other recmarket code"):
        identity.refuse_another(manifest, Path("run"))


def test_a_distribution_that_ships_a_stray_tests_package_does_not_own_ours() -> None:
    """ppi-python (a test dependency) ships a top-level ``tests``: it claims the name, not
    this suite's modules, whose variants are then of no distribution."""
    from importlib.metadata import packages_distributions

    from recmarket.catalogue.origins import owning_distribution

    owner = owning_distribution("_pytest.python_api")
    assert owner is not None and owner.metadata["Name"] == "pytest"
    if "tests" not in packages_distributions():
        pytest.skip("no installed distribution claims a top-level tests package")
    assert owning_distribution(__name__) is None
