"""Running model calls on a bounded thread pool that Ctrl-C can leave at once.

``map_abandoning(run, items, max_workers=..., on_interrupt=...)`` returns ``run(item)``
for every item, in input order. On any exception raised while waiting (KeyboardInterrupt
above all) it calls ``on_interrupt`` (e.g. to silence progress), cancels the calls not
started and returns without waiting for the ones in flight, whose threads are abandoned:
the interrupt reaches the user within a moment, not after the slowest call. Each call
runs in a copy of the caller's context and counts as work of the caller's batch
participant, if any (``client.CountedTasks``), while the caller itself only waits
(``client.idle``): a batch round knows when all of a document's threads wait for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from ..client import CountedTasks, idle

Item = TypeVar("Item")
Result = TypeVar("Result")


def map_abandoning(
    run: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    max_workers: int,
    name: str,
    on_interrupt: Callable[[], None] | None = None,
) -> list[Result]:
    """``[run(item) for item in items]`` on at most ``max_workers`` threads, order kept."""
    workers = max(1, min(max_workers, len(items)))
    pool = None if workers == 1 else ThreadPoolExecutor(workers, thread_name_prefix=name)
    try:
        if pool is None:
            return [run(item) for item in items]
        tasks = CountedTasks(len(items))
        futures: list[Future[Result]] = [
            pool.submit(tasks.wrap(functools.partial(run, item))) for item in items
        ]
        with idle():  # this thread only waits for the calls: theirs is the work
            results = [future.result() for future in futures]
        tasks.done()
    except BaseException:
        if on_interrupt is not None:
            on_interrupt()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results
