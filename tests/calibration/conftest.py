"""A run simulated by the offline model with known, non-default choice parameters: what
the calibration tests recover."""

import tomllib
from pathlib import Path

import pytest

from recmarket.agents.judgement import Judge
from recmarket.calibration.observations import Observations, read_observations
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run

KNOWN = tomllib.loads(
    (
        Path(__file__).resolve().parents[2] / "docs" / "specs" / "calibration-recovery.toml"
    ).read_text()
)
RANKER = KNOWN["agents"]["ranker"]
PROFILES = KNOWN["agents"]["decision"]["profiles"]
UPDATE = KNOWN["agents"]["update"]
DOMAINS = KNOWN["domains"]


def simulate(out: Path, condition: str = "local-rep", requests: int = 600) -> RunConfig:
    cfg = RunConfig.model_validate(
        {**KNOWN, "condition": condition, "episodes": {"requests": requests}}
    )
    run(cfg, out, PlayOptions(keep_calls=True)).store.close()  # calibration reads every call
    return cfg


@pytest.fixture(scope="session")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Observations]:
    out = tmp_path_factory.mktemp("simulated")
    cfg = simulate(out)
    judge = Judge.of(load_embedder(cfg.embedder), cfg.agents.scale)
    return out, read_observations([out], judge, cfg.agents.ranker.long_term_weight)
