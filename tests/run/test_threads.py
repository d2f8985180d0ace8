"""Processes that play episodes run one native thread per pool, unless the user chose."""

import multiprocessing

import numpy  # noqa: F401 - loads the BLAS whose pool is checked
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from recmarket.run.executor import worker_start
from recmarket.run.threads import POOL_VARIABLES, STARTUP_VARIABLES, pinned_native_threads


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


@pytest.fixture(autouse=True)
def unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in [*STARTUP_VARIABLES, *(v for vs in POOL_VARIABLES.values() for v in vs)]:
        monkeypatch.delenv(variable, raising=False)


def pools_in_a_worker() -> tuple[list[int], str | None]:
    import os

    return blas_threads(), os.environ.get("RAYON_NUM_THREADS")


def test_a_worker_runs_one_blas_thread_and_one_rayon_thread() -> None:
    if not blas_threads():
        pytest.skip("numpy here has no BLAS that threadpoolctl can see")
    inherited = threadpool_limits(limits=2, user_api="blas")  # what the worker would inherit
    with inherited, multiprocessing.get_context().Pool(1, initializer=worker_start) as pool:
        threads, rayon = pool.apply(pools_in_a_worker)
    assert threads and set(threads) == {1}
    assert rayon == "1"


def test_a_run_pins_the_pools_and_gives_them_back() -> None:
    if not blas_threads():
        pytest.skip("numpy here has no BLAS that threadpoolctl can see")
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with pinned_native_threads():
            assert set(blas_threads()) == {1}
        assert blas_threads() == before


def test_a_pool_size_the_user_chose_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    if not blas_threads():
        pytest.skip("numpy here has no BLAS that threadpoolctl can see")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    with threadpool_limits(limits=1, user_api="blas"), pinned_native_threads():
        assert set(blas_threads()) == {2}
