"""The ``recmarket`` command line: thin wrappers that parse flags into validated configs,
call the library, and report known failures in one clear line."""

from recmarket.cli import (  # noqa: F401 - importing registers the commands
    attack_search,
    audit,
    branch,
    calibrate,
    cards,
    data,
    experiments,
    llm,
    market,
    migrate,
    pilot,
    run,
    show,
    validate,
)
from recmarket.cli.app import app

__all__ = ["app"]
