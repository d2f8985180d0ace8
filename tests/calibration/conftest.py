"""A run simulated by the offline model with known, non-default choice parameters: what
the calibration tests recover."""

from pathlib import Path

import pytest

from recmarket.agents.judgement import Judge
from recmarket.calibration.observations import Observations, read_observations
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from recmarket.run.runner import run

RANKER = {
    "noise": "gumbel",
    "fit_noise": 0.08,
    "credence": 0.7,
    "prior_records": 3.0,
    # away from the bounds 0 and 1, where an estimate would have no standard error
    "label_credibility": {"high": 0.9, "mixed": 0.4, "low": 0.2},
    "disclosure_weight": 0.05,
    "position_weight": -0.04,
}
PROFILES = {
    "transactional_direct": {"fit": 8.0, "claim": 0.3, "position": 0.8, "outside": 2.5},
    "novice_advice": {"fit": 3.0, "claim": 1.2, "position": 0.2, "outside": 1.0},
}
UPDATE = {"mixed_gap": 0.3, "low_gap": 0.5}
DOMAINS = ["Video_Games", "Musical_Instruments", "Sports_and_Outdoors"]


def simulate(out: Path, condition: str = "local-rep", requests: int = 600) -> RunConfig:
    cfg = RunConfig.model_validate(
        {
            "condition": condition,
            "domains": DOMAINS,
            "episodes": {"requests": requests},
            "agents": {"ranker": RANKER, "decision": {"profiles": PROFILES}, "update": UPDATE},
        }
    )
    run(cfg, out, keep_calls=True).store.close()  # calibration reads every call
    return cfg


@pytest.fixture(scope="session")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Observations]:
    out = tmp_path_factory.mktemp("simulated")
    cfg = simulate(out)
    judge = Judge.of(load_embedder(cfg.embedder), cfg.agents.scale)
    return out, read_observations([out], judge)
