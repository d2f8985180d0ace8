import numpy as np
import pytest

from recmarket.market.catalogs import assign_catalogs

N_ITEMS = 20_000


def build(**overrides):
    kwargs = dict(n_platforms=6, rho=0.1, cap=10**9, seed=1, domain="D")
    kwargs.update(overrides)
    targets = kwargs.pop("targets", np.arange(0))
    return assign_catalogs(N_ITEMS, targets, **kwargs)


@pytest.mark.parametrize("rho", [0.0, 0.1, 0.5, 1.0])
def test_every_item_has_a_primary_and_copies_arrive_at_rate_rho(rho: float) -> None:
    membership = build(rho=rho).membership
    copies = membership.sum(axis=1) - 1
    assert copies.min() >= 0  # at least the primary platform
    rate = copies.mean() / 5
    assert abs(rate - rho) < 4 * np.sqrt(max(rho * (1 - rho), 1e-12) / (N_ITEMS * 5)) + 1e-12


def test_primary_platform_is_uniform() -> None:
    membership = build(rho=0.0).membership
    shares = membership.sum(axis=0) / N_ITEMS
    assert np.allclose(shares, 1 / 6, atol=0.015)


def test_cap_is_respected_and_targets_are_kept() -> None:
    targets = np.arange(0, N_ITEMS, 7)
    free = build(targets=targets).membership
    capped = build(targets=targets, cap=500).membership
    regular = np.ones(N_ITEMS, dtype=bool)
    regular[targets] = False
    assert (capped[regular].sum(axis=0) <= 500).all()
    assert (capped[targets] == free[targets]).all()  # a target keeps every catalog it had
    assert not (capped & ~free).any()  # the cap only removes


def test_rotations_preserve_every_catalog() -> None:
    base = build()
    for steps in (1, 2):
        rotated = build(rotation=steps)
        for j in range(6):
            assert np.array_equal(rotated.members(j), base.members((j + steps) % 6))
    assert np.array_equal(base.rotated(6).membership, base.membership)


def test_same_seed_same_catalogs_and_rho_shares_primary_draws() -> None:
    assert np.array_equal(build().membership, build().membership)
    assert not np.array_equal(build(seed=2).membership, build().membership)
    sparse, full = build(rho=0.1).membership, build(rho=1.0).membership
    assert (sparse <= full).all()  # common random numbers: rho only adds copies
