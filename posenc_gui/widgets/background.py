"""Work off the GUI thread: a low-priority job whose latest request wins, and a second thread.

:class:`LatestJob` computes results by key on one worker thread at the lowest CPU priority
(nice 19 where the OS allows it), so the slider steps the GUI thread takes meanwhile are not
slowed down. What it keeps: the last few results by key, and the key still wanted. When it
works: on :meth:`LatestJob.request`; a newer request supersedes the running job, which stops at
its next check of ``cancelled()`` and then starts on the wanted key. When done it emits
:attr:`LatestJob.done` on the GUI thread (queued). :meth:`LatestJob.settle` computes the
wanted result on the calling thread instead (a render, a test, an export: the worker may wait
long for a core on a busy machine), :meth:`LatestJob.stop` cancels and joins the thread.
Measured: the RoPE tab's eq. (37) bound over ±100,000 distances at d = 512 takes ~0.4 s; on the
GUI thread it would stall a slider step for that long.

:class:`SecondThread` runs one function on a second thread while the calling thread runs
another: two long torch products (which let the GIL go) in about the time of one (~1.8 ms less
a step for the RoPE score curves over ±100,000 distances at d = 512 on 2 cores).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal

T = TypeVar("T")
U = TypeVar("U")


def lower_thread_priority() -> None:
    """Run the calling (worker) thread at the lowest CPU priority, where the OS allows it
    (Linux applies ``setpriority`` to a single thread; elsewhere: normal priority)."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


#: ``compute(key, cancelled)``: the result for ``key``, or None when ``cancelled()`` said to
#: stop; ``cancelled`` is None when computed on the calling thread (no one supersedes it).
Compute = Callable[[Any, "Callable[[], bool] | None"], Any]


class LatestJob(QObject):
    """Results by key computed on one low-priority worker thread; the latest request wins
    (see the module's docstring)."""

    #: A job ended (on the GUI thread): :meth:`result` may hold the wanted key now.
    done = Signal()

    def __init__(
        self, name: str, compute: Compute, *, kept: int = 16, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.name = name
        self._compute = compute
        self._kept = kept
        self._results: dict[Hashable, Any] = {}
        self._executor: ThreadPoolExecutor | None = None
        #: The job running or last run (None: none since the last stop).
        self.future: Future[Any] | None = None
        #: The key asked for last (None: none, or cancelled).
        self.wanted: Hashable | None = None

    def result(self, key: Hashable) -> Any | None:
        """The result for ``key`` if computed (None otherwise)."""
        return self._results.get(key)

    def compute_now(self, key: Hashable) -> Any:
        """The result for ``key``, computed on the calling thread if not kept."""
        done = self._results.get(key)
        if done is None:
            done = self._keep(key, self._compute(key, None))
        return done

    def request(self, key: Hashable) -> None:
        """Compute ``key`` on the worker (a running job for another key stops early; its end
        starts this one)."""
        self.wanted = key
        if self.future is not None and not self.future.done():
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                1, thread_name_prefix=self.name, initializer=lower_thread_priority
            )
        fut = self._executor.submit(self._run, key)
        fut.add_done_callback(self._ended)
        self.future = fut

    def settle(self) -> bool:
        """Compute the wanted result here, now, and let the worker's job stop. Whether there
        was one to compute."""
        want = self.wanted
        if want is None or want in self._results:
            return False
        self.wanted = None  # the running job stops at its next check
        self.compute_now(want)
        return True

    def stop(self) -> None:
        """Cancel the running job (it stops at its next check) and wait for the thread to end;
        a later request starts a new one."""
        self.wanted = None
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None
        self.future = None

    def _run(self, key: Hashable) -> Any:
        result = self._compute(key, lambda: self.wanted != key)
        return None if result is None else self._keep(key, result)

    def _keep(self, key: Hashable, result: Any) -> Any:
        if len(self._results) >= self._kept:
            self._results.clear()
        self._results[key] = result
        return result

    def _ended(self, _: object) -> None:
        """Worker thread: tell the GUI thread (queued); a superseded job asks again."""
        try:
            if shiboken6.isValid(self):
                self.done.emit()
        except RuntimeError:  # the owner is gone
            pass


class SecondThread:
    """A second thread to run one function beside the calling thread's (made on first use)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._pool: ThreadPoolExecutor | None = None

    def beside(self, side: Callable[[], T], here: Callable[[], U]) -> tuple[U, T]:
        """``(here(), side())``, ``side`` run on the second thread meanwhile."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix=self.name)
        job = self._pool.submit(side)
        mine = here()
        return mine, job.result()

    def stop(self) -> None:
        """Wait for the thread to end (a later call starts a new one)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None
