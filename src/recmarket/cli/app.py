"""The ``recmarket`` application object and what every command shares: consoles, common
options, and the translation of known failures into one clear line and exit code 2."""

from __future__ import annotations

import sqlite3
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn, TextIO

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.text import Text

from recmarket import __version__
from recmarket.agents.llm.client import EndpointFailure, ReplayMiss
from recmarket.agents.llm.config import NoBatchAPI
from recmarket.agents.llm.ledger import BudgetExceeded, BudgetWithoutPrices
from recmarket.calibration.pooling import CalibrationRefused
from recmarket.catalogue.registry import PluginError
from recmarket.cli.workflow import WorkflowGroup
from recmarket.config import RunConfig
from recmarket.config_file import ConfigError, described
from recmarket.data.raw import DataError
from recmarket.embedding import EmbedderUnavailable
from recmarket.locks import DirectoryInUse
from recmarket.market.protocol import ProtocolError
from recmarket.run.manifest import RunConflict
from recmarket.sqlite_files import StoreError, cause

# Plain help, every text as written (cli/workflow.py says why): rich_markup_mode=None.
app = typer.Typer(
    no_args_is_help=True, add_completion=False, cls=WorkflowGroup, rich_markup_mode=None
)
data_app = typer.Typer(
    help="Amazon Reviews'23 files: list local domains, fetch official ones.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(data_app, name="data")
llm_app = typer.Typer(
    help="Check the configured LLM endpoints.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(llm_app, name="llm")
# Wide tables stay readable when output goes to a file or a pipe.
# Markup off: paths, ids, titles and spec names come from users and data, and a "[/x]" in
# one must print as itself, not break the output (styles are given as style=... instead).
out = Console(width=None if sys.stdout.isatty() else 160, markup=False)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160, markup=False)


DataDir = Annotated[Path, typer.Option("--data", help=RunConfig.model_fields["data"].description)]
Strict = Annotated[bool, typer.Option("--strict", help="stop at the first malformed line")]


@contextmanager
def user_errors() -> Iterator[None]:
    """Known failures become one line on stderr and exit code 2; bugs keep their traceback."""
    # reproduce's errors are read when a command runs: importing reproduce reaches the LLM
    # client (openai), which --help has no use for
    from recmarket.run.reproduce import Interrupted
    from recmarket.run.study_plan import PlanError

    try:
        with warnings_in_one_line():
            yield
    except ValidationError as exc:
        fail(described(exc))
    except sqlite3.Error as exc:  # a store that named_errors does not guard: a bug
        fail(f"a SQLite store failed ({cause(exc)}); what was committed is kept")
    except EndpointFailure as exc:  # infrastructure: nothing unfinished was committed
        fail(f"stopped: {exc}; fix it and rerun the same command to carry on", code=4)
    except BudgetExceeded as exc:
        fail(f"stopped: {exc}", code=3)
    except Interrupted as exc:  # SIGTERM or SIGINT: the workers are stopped
        fail(str(exc), code=130)
    except (
        DataError,
        EmbedderUnavailable,
        ConfigError,
        RunConflict,
        DirectoryInUse,
        CalibrationRefused,
        ProtocolError,
        ReplayMiss,
        StoreError,
        BudgetWithoutPrices,
        NoBatchAPI,
        PlanError,
        PluginError,
        OSError,
    ) as exc:
        fail(str(exc))


@contextmanager
def warnings_in_one_line() -> Iterator[None]:
    """A warning a command meets (a resume by other code, an older settings form) is one
    line on stderr, as an error is, rather than Python's two with a source line; a
    deprecation is shown too, where Python shows it only to the code of ``__main__``."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        err.print(Text("warning: ", style="yellow") + Text(str(message)), highlight=False)

    with warnings.catch_warnings():  # restores the filters and showwarning on the way out
        warnings.simplefilter("default", DeprecationWarning)
        warnings.showwarning = show
        yield


def progress_bar(transient: bool = False) -> Progress:
    """The bar a command that plays episodes shows on stderr: what it plays, the bar, done
    of all and the time left (``transient``: gone when done, for a command printing JSON)."""
    return Progress(
        "{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=transient,
    )


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and an exit code: 2 for bad input, 3 for a budget reached, 4 for
    an endpoint failure, 130 for a signal."""
    err.print(Text("error: ", style="red") + Text(message), highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def version_callback(value: bool) -> None:
    """``--version``: print the version and stop."""
    if value:
        out.print(f"recmarket {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=version_callback, is_eager=True, help="print the version and stop"
        ),
    ] = False,
) -> None:
    """Simulate agentic recommendation markets (user agents, competing platforms,
    presentation policies, outcome-grounded reputation) on Amazon Reviews'23 domains."""
