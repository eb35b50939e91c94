"""consensus_metrics.heap.settle: what a process built before it is out of the collector's sight;
what it builds after is collected as before; pool workers settle after their warm-up."""

import gc
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor

from consensus_metrics.heap import settle


class _Box:
    """A plain object the collector tracks (instances of Python classes always are)."""


def _tracked(obj) -> bool:
    return any(o is obj for o in gc.get_objects())


def test_settle_freezes_what_exists_and_collects_what_comes_after():
    before = _Box()
    assert _tracked(before)
    settle()
    assert gc.get_freeze_count() > 0
    assert not _tracked(before)  # a full collection no longer walks it
    after = _Box()
    assert _tracked(after)
    cycle = _Box()
    cycle.me = cycle  # garbage only the cycle collector can free
    del cycle
    assert gc.collect() >= 1  # new objects are still collected


def test_training_reward_workers_settle_after_warm_up():
    from training_recipes.scoring import _warm_worker

    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn"), initializer=_warm_worker) as pool:
        assert pool.submit(gc.get_freeze_count).result(timeout=120) > 0
