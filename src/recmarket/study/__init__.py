"""The study layer: a study's cells and what it plays beside them, above running, analysis,
calibration and the report. It decides a study's add-ons (a pilot, with the calibration its
folds are fitted with) and hands them to ``run.reproduce``, which plays them without knowing
what they are, and gathers the cards its report reads beside its runs; the command line and
``recmarket.api`` play studies through here."""

from recmarket.study.reproduce import reproduce

__all__ = ["reproduce"]
