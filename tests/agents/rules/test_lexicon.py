"""The lexicon: every level a writer can say reads back as that level, and nothing else."""

import numpy as np
import pytest

from recmarket.agents.rules import lexicon

SCALES = (lexicon.CLAIM, lexicon.EXPERIENCE, lexicon.GAP, lexicon.CREDIBILITY)


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: s.name)
def test_every_phrasing_reads_back_as_its_band(scale: lexicon.Scale) -> None:
    gen = np.random.default_rng(0)
    for level in np.linspace(0, 1, 41):
        for _ in range(6):
            said = f"Frankly, {scale.write(level, gen)}, as I said."
            assert scale.read(said) == pytest.approx(lexicon.BAND_MIDPOINTS[lexicon.band(level)]), (
                said
            )


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: s.name)
def test_each_band_has_several_phrasings_and_none_hides_another(scale) -> None:
    phrases = [p for options in scale.phrases for p in options]
    assert all(len(options) >= 2 for options in scale.phrases)
    assert len(set(phrases)) == len(phrases)
    for p in phrases:  # read alone, each phrase is its own band, not one inside it
        assert scale.read(p) == lexicon.BAND_MIDPOINTS[scale._band_of[p]]


def test_text_without_a_stated_level_reads_as_none() -> None:
    assert lexicon.CLAIM.read("A tent for two people, with poles.") is None
    assert lexicon.EXPERIENCE.read("Arrived on Tuesday.") is None


def test_disclosures_are_counted_whatever_their_wording() -> None:
    gen = np.random.default_rng(1)
    said = ". ".join(lexicon.disclose(w, gen) for w in ("weight", "size", "colour"))
    said += ". " + lexicon.RATING_CAVEAT.format(rating="3.4")
    assert lexicon.count_disclosures(said) == 4
    assert lexicon.count_disclosures("It is an excellent match! You will love it!") == 0


def test_gap_levels_round_trip_with_sign() -> None:
    gen = np.random.default_rng(2)
    for gap in (-0.9, -0.3, 0.0, 0.3, 0.9):
        read = lexicon.read_gap(lexicon.GAP.write(lexicon.gap_level(gap), gen))
        assert read is not None and abs(read - gap) <= 0.2 + 1e-9
        assert np.sign(round(read, 6)) == np.sign(round(gap, 6)) or abs(gap) < 0.2


def test_directions_read_back() -> None:
    gen = np.random.default_rng(3)
    for direction in lexicon.DIRECTIONS:
        assert lexicon.read_direction(f"X: {lexicon.write_direction(direction, gen)}.") == direction


def test_a_reading_is_remembered_and_the_memory_stays_bounded(monkeypatch) -> None:
    """An explanation is read by the ranker, the user and the updater: each scale keeps
    its readings, clears them at READS_KEPT, and reads the same either way."""
    monkeypatch.setattr(lexicon, "READS_KEPT", 3)
    scale = lexicon.Scale("test", (("dull",), ("bright",)))
    texts = [f"text {i}: {'bright' if i % 2 else 'dull'}" for i in range(7)]
    first = [scale.read(t) for t in texts]
    assert first == [lexicon.BAND_MIDPOINTS[i % 2] for i in range(7)]
    assert len(scale._reads) <= 3
    assert [scale.read(t) for t in reversed(texts)] == first[::-1]
