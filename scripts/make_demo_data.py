"""Regenerate the bundled synthetic demo domains (deterministic: same bytes every time).

python scripts/make_demo_data.py            # writes src/recmarket/data/bundled/
python scripts/make_demo_data.py --out DIR  # elsewhere, e.g. to compare
python scripts/make_demo_data.py --out DIR --users 112000   # a large market: about 100,000
                                            # eligible users a domain, for long runs
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
    parser.add_argument(
        "--users",
        type=int,
        default=None,
        help="simulated reviewers a domain (default: the bundled 1,700; about 90%% of them "
        "are eligible, with at least five reviews)",
    )
    args = parser.parse_args()
    if args.users is not None and args.out.resolve() == BUNDLED_DATA_DIR.resolve():
        parser.error("--users writes a different market: give --out, the bundle stays as it is")
    sized = {} if args.users is None else {"n_users": args.users}
    for domain in DOMAINS:
        for path in write_domain(domain, args.out, **sized):
            print(f"{path} {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
