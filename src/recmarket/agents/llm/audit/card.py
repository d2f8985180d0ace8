"""An audit card: each probe's passes out of its trials, with a 95% Wilson interval, the
rate chance alone would give, and a verdict; stored beside the model's settings.

A probe *fails* when the whole interval lies below REQUIRED: the model passes it less
than four times in five, and the trials show it. Otherwise it is *not shown to fail*,
which with a handful of trials is a weak statement, and the interval says how weak.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from recmarket import __version__
from recmarket.agents.llm.config import ModelConfig
from recmarket.embedding.cache import default_cache_dir
from recmarket.files import write_text_whole
from recmarket.hashing import OPERATIONAL, marked

REQUIRED = 0.8  # the pass rate a sound model should reach on every probe
Z95 = 1.959964
CARD_FILE = "card.json"


def wilson(passes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a pass rate: sound at 0 and n passes and for a few
    trials, where the normal approximation gives bounds outside [0, 1]."""
    if trials == 0:
        return 0.0, 1.0
    p, n, z2 = passes / trials, trials, Z95**2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


class ProbeResult(BaseModel):
    """One probe's outcome on one model: its trials, passes and what a right answer is, with
    the Wilson interval the verdict reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    probe: str
    role: str
    what: str  # the probe in one line: what a right answer is
    passes: int
    trials: int
    chance: float  # the pass rate of a model that answers at random
    depends: str  # which results rest on it

    @property
    def rate(self) -> float:
        """The share of trials passed (0 with none)."""
        return self.passes / self.trials if self.trials else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the pass rate."""
        return wilson(self.passes, self.trials)

    @property
    def fails(self) -> bool:
        """Whether the interval's upper end lies below the required pass rate: shown to
        fail, not merely unlucky."""
        return self.trials > 0 and self.interval[1] < REQUIRED

    @property
    def verdict(self) -> str:
        """The card's word for the probe: fails, not shown to fail, or no trials."""
        if not self.trials:
            return "no trials"
        return "fails" if self.fails else "not shown to fail"


class AuditCard(BaseModel):
    """One model's audit: its settings (the key variable's name, never its value), the
    roles it was audited for, each probe's result, and how the audit was made."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: dict[str, object]
    key: str
    roles: list[str]
    results: list[ProbeResult]
    trials: int
    seed: int
    domain: str
    made: str
    version: str = __version__
    # What the endpoint said of the model beyond its name when the audit sent its calls
    # (``OpenAIChatAPI.model_report``; empty: nothing more): a run whose endpoint said
    # otherwise played another model, whose results this card does not speak for
    endpoint_report: str = ""

    def failed(self, roles: set[str] | None = None) -> list[ProbeResult]:
        """The probes it fails, of ``roles`` only where given."""
        return [r for r in self.results if r.fails and (roles is None or r.role in roles)]


def settings_key(cfg: ModelConfig, repair_attempts: int) -> str:
    """What decides the model's answers (its operational settings aside, as in a run's
    hash) and the re-asks it gets, hashed: an audit is found again for the same model."""
    decided = cfg.model_dump(exclude={*marked(ModelConfig, OPERATIONAL), "api_key_env"})
    text = json.dumps([decided, repair_attempts], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def card_dir(audits: Path, cfg: ModelConfig, repair_attempts: int) -> Path:
    """Where a model's card and its audit's calls are kept."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", cfg.name).strip("-")[:60] or "model"
    return audits / f"{slug}-{settings_key(cfg, repair_attempts)}"


def default_audits() -> Path:
    """Where ``llm audit`` keeps cards unless told otherwise, and where ``report`` looks."""
    return default_cache_dir() / "audits"


def made_now() -> str:
    """The current UTC time to the second, as cards record when they were made."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_card(card: AuditCard, directory: Path) -> Path:
    """Write the card as JSON into ``directory``, whole or not at all; its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / CARD_FILE
    write_text_whole(path, card.model_dump_json(indent=2))
    return path


def read_card(audits: Path, cfg: ModelConfig, repair_attempts: int) -> AuditCard | None:
    """The stored card of this model with these settings, if it was audited."""
    path = card_dir(audits, cfg, repair_attempts) / CARD_FILE
    if not path.is_file():
        return None
    return AuditCard.model_validate_json(path.read_text())
