"""``python -m recmarket`` is the ``recmarket`` command."""

from recmarket.cli import app

app(prog_name="recmarket")
