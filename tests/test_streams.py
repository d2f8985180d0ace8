"""A role's generator is a function of the call's seed alone."""

import numpy as np

from recmarket.streams import Draws, Stream, brief


def test_the_same_seed_gives_the_same_draws_whatever_came_before() -> None:
    draws = Draws()
    first = draws(42).random(5)
    draws(7).random(100)  # another call in between
    assert np.array_equal(draws(42).random(5), first)
    assert np.array_equal(Draws()(42).random(5), first)  # and in another role object


def test_neighbouring_seeds_give_unrelated_streams() -> None:
    draws = Draws()
    samples = np.array([draws(s).random() for s in range(2000)])
    assert 0.45 < samples.mean() < 0.55
    assert abs(np.corrcoef(samples[:-1], samples[1:])[0, 1]) < 0.1
    assert len({draws(s).integers(1 << 62) for s in range(500)}) == 500


def test_a_brief_generator_is_keyed_like_rng_and_owes_nothing_to_other_draws() -> None:
    """``brief`` serves an episode's retrieval and shuffle draws from one shared bit
    generator: the same key gives the same numbers whatever was drawn between, and each
    part of the key matters."""
    first = brief(5, "D", Stream.RETRIEVAL, 11).gumbel(size=(6, 10))
    brief(5, "D", Stream.SHUFFLE, 11).permutation(6)
    Draws()(3).random(50)
    assert np.array_equal(brief(5, "D", Stream.RETRIEVAL, 11).gumbel(size=(6, 10)), first)
    for other in (
        brief(6, "D", Stream.RETRIEVAL, 11),
        brief(5, "E", Stream.RETRIEVAL, 11),
        brief(5, "D", Stream.FORCED_INCLUSION, 11),
        brief(5, "D", Stream.RETRIEVAL, 12),
    ):
        assert not np.array_equal(other.gumbel(size=(6, 10)), first)
