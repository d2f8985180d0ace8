"""Regenerate the bundled synthetic demo domains (deterministic: same bytes every time).

python scripts/make_demo_data.py            # writes src/recmarket/data/bundled/
python scripts/make_demo_data.py --out DIR  # elsewhere, e.g. to compare
"""

from __future__ import annotations

import argparse
from pathlib import Path

from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.demo_listings import DOMAINS
from recmarket.data.synthetic import write_domain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BUNDLED_DATA_DIR)
    args = parser.parse_args()
    for domain in DOMAINS:
        for path in write_domain(domain, args.out):
            print(f"{path} {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
