"""Episodes are played with the middle generation of the collector spaced out, and a
process that goes on afterwards gets its thresholds back."""

import gc

import pytest

from recmarket.run.collector import MIDDLE_THRESHOLD, spaced_collections


def test_thresholds_are_spaced_while_playing_and_restored_after() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with pytest.raises(KeyError), spaced_collections():
            assert gc.get_threshold() == (700, MIDDLE_THRESHOLD, 10)
            raise KeyError("a run that fails")
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(700, 5000, 10)  # a user's wider setting is kept
        with spaced_collections():
            assert gc.get_threshold() == (700, 5000, 10)
    finally:
        gc.set_threshold(*before)
