"""Amazon Reviews'23 reading, episode construction, and the bundled demo domains."""

from pathlib import Path

BUNDLED_DATA_DIR = Path(__file__).resolve().parent / "bundled"
