"""How ``recmarket --help`` lists its commands: by section, in the order a researcher meets
them (play a market, study the paper's experiments, report, data, LLM), not in the order
their modules happen to be imported.

Help is click's plain text, not typer's rich panels: rich reads every help text as markup,
so a settings table named in one (``[agents]``) vanished, and it shows a ``<bool>`` type
beside every flag. Plain help prints each text as written.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup

# Each section's commands in workflow order; a command missing here is listed under "Other"
# (tests/cli/test_workflow.py keeps every registered command in a section).
SECTIONS: dict[str, tuple[str, ...]] = {
    "Play a market": (
        "run",
        "estimate",
        "show",
        "export",
        "branch",
        "build",
        "access-check",
        "migrate",
    ),
    "Study (the paper's experiments)": (
        "experiments",
        "reproduce",
        "frontier",
        "attack-search",
        "pilot-plan",
        "calibrate",
    ),
    "Report": ("report", "cards"),
    "Data and people": ("data", "validate"),
    "LLM endpoints": ("llm",),
}
OTHER = "Other"
_ORDER = [name for names in SECTIONS.values() for name in names]


def section_of(command: str) -> str:
    """The help section a command is listed under."""
    return next((s for s, names in SECTIONS.items() if command in names), OTHER)


class WorkflowGroup(TyperGroup):
    """The top-level command group, its commands listed by ``SECTIONS``. (Contexts and
    formatters are typed Any: typer vendors its own click, whose types it does not export.)"""

    def list_commands(self, ctx: Any) -> list[str]:
        """Commands in workflow order, any unlisted one last in registration order."""
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: _ORDER.index(n) if n in _ORDER else len(_ORDER))

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """One block of commands per section, each with its first line of help."""
        shown = [
            (name, command)
            for name in self.list_commands(ctx)
            if (command := self.get_command(ctx, name)) is not None and not command.hidden
        ]
        if not shown:
            return
        width = max(len(name) for name, _ in shown)  # one column for every section
        limit = formatter.width - 6 - width
        for section in (*SECTIONS, OTHER):
            rows = [
                (name.ljust(width), command.get_short_help_str(limit))
                for name, command in shown
                if section_of(name) == section
            ]
            if rows:
                with formatter.section(section):
                    formatter.write_dl(rows)
