"""LatestJob (low-priority worker, latest request wins) and SecondThread."""

from __future__ import annotations

import threading
from collections.abc import Callable

from pytestqt.qtbot import QtBot

from posenc_gui.widgets.background import LatestJob, SecondThread


def test_latest_request_wins_and_results_are_kept(qtbot: QtBot) -> None:
    gate = threading.Event()
    started: list[int] = []

    def compute(key: int, cancelled: Callable[[], bool] | None) -> int | None:
        started.append(key)
        if key == 1:  # the first job waits until superseded, then stops early
            gate.wait(timeout=60)
            assert cancelled is not None and cancelled()
            return None
        return key * 10

    job = LatestJob("test-latest", compute)
    try:
        job.request(1)
        qtbot.waitUntil(lambda: started == [1])
        job.request(2)  # supersedes 1: the running job stops at its next check
        with qtbot.waitSignal(job.done):
            gate.set()
        assert job.result(1) is None and job.wanted == 2
        # the end of the superseded job lets its owner ask again
        with qtbot.waitSignal(job.done):
            job.request(2)
        assert job.result(2) == 20 and started == [1, 2]
        assert job.compute_now(3) == 30 and job.result(3) == 30
    finally:
        job.stop()
    assert job.future is None
    assert not [t for t in threading.enumerate() if t.name.startswith("test-latest")]


def test_settle_computes_the_wanted_result_here() -> None:
    threads: list[str] = []

    def compute(key: int, cancelled: Callable[[], bool] | None) -> int:
        threads.append(threading.current_thread().name)
        return key + 1

    job = LatestJob("test-settle", compute)
    job.wanted = 5  # as a request would set it, with no worker running yet
    assert job.settle() and job.result(5) == 6
    assert threads == [threading.current_thread().name]
    assert not job.settle()  # nothing left to compute
    job.stop()


def test_second_thread_runs_beside_the_caller() -> None:
    side = SecondThread("test-side")
    here = threading.current_thread().name
    try:
        mine, theirs = side.beside(
            lambda: threading.current_thread().name, lambda: threading.current_thread().name
        )
        assert mine == here and theirs.startswith("test-side")
    finally:
        side.stop()
    assert not [t for t in threading.enumerate() if t.name.startswith("test-side")]
