"""Worker processes for the page's tasks: bounded in number, time and memory, cancellable.

The server's own process only serves: every task (:mod:`sim.web.tasks`) runs in a worker
process of a pool, one task at a time each, so that a long exact value or a simulation never
holds the server, and a cancelled one can be stopped for good. A task is cancelled when the
page changes its inputs (its request is closed): a simulation stops between two chunks; any
other task is left to finish until :data:`FINISH_SECONDS` after its start (most are done by
then, and a worker started afresh costs seconds of importing), and is ended with its process
where it runs on; a fresh worker takes its place. A task that runs past its time limit, or a
worker whose memory passes :data:`MAX_WORKER_MB`, is ended the same way, with one line saying
why; a worker that grew past :data:`RECYCLE_MB` is replaced once idle.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import multiprocessing
import time
from collections.abc import Callable
from typing import Any

import psutil

from sim.core.errors import InputError

LOG = logging.getLogger("houseedge.serve")
GRACE_SECONDS = 0.5  # a cancelled simulation's next chunk ends by then, or it is ended
FINISH_SECONDS = 3.0  # a cancelled task that has run less is left to finish until then
MAX_WORKER_MB = 3_000
RECYCLE_MB = 1_500
POLL_SECONDS = 0.005
MEMORY_CHECK_SECONDS = 0.5
CANCEL = "cancel"
WARM_SECONDS = 300.0  # a worker that has not warmed up by then is started afresh


class TaskError(InputError):
    """A task's one-line failure, for the page (bad input, a limit reached, a crash)."""

    def __init__(self, message: str, control: str = "") -> None:
        self.control = control
        super().__init__(message)


class _Cancelled:
    """Whether the task running has been cancelled: a message has come on the pipe."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.seen = False

    def __call__(self) -> bool:
        if not self.seen and self.conn.poll():
            self.conn.recv()
            self.seen = True
        return self.seen


def _serve(conn: Any) -> None:
    """A worker's loop: run each task sent, send back its result, its items (a generator's)
    or its one-line error. A message that comes during a task cancels it (a generator's task
    asks between its chunks); one that comes too late to cancel anything is dropped."""
    import os
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C ends the server
    os.environ.setdefault("MPLBACKEND", "Agg")
    from sim.web import tasks

    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if message == CANCEL:
            continue
        name, args = message
        cancelled = _Cancelled(conn)
        try:
            function = getattr(tasks, name)
            if "cancelled" in inspect.signature(function).parameters:
                result = function(*args, cancelled=cancelled)
            else:
                result = function(*args)
            if inspect.isgenerator(result):
                for item in result:
                    conn.send(("item", item))
                conn.send(("done", None))
            else:
                conn.send(("done", result))
        except InputError as exc:
            conn.send(("error", str(exc), getattr(exc, "control", "")))
        except Exception as exc:  # noqa: BLE001 - one line for the page, never a traceback
            conn.send(("failed", f"{type(exc).__name__}: {exc}"))


class Worker:
    """One worker process and its pipe."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.tasks = 0

    def cancel(self) -> None:
        """Ask the running task to stop (a simulation does, at its next chunk)."""
        try:
            self.conn.send(CANCEL)
        except OSError:
            pass

    def rss_mb(self) -> float:
        try:
            return psutil.Process(self.process.pid).memory_info().rss / 2**20
        except psutil.Error:
            return 0.0

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()

    async def run(self, name: str, args: tuple, timeout: float,
                  on_item: Callable[[Any], Any] | None = None) -> Any:
        """Run a task and return its result (call ``on_item`` with a generator's items).

        Raises:
            TaskError: the task's bad input, or a limit it reached, in one line.
            asyncio.CancelledError: cancelled (the worker is then stopped, or left to finish
                where it is nearly done: see :meth:`WorkerPool.run`).
        """
        self.conn.send((name, args))
        self.tasks += 1
        started = time.perf_counter()
        checked = started
        while True:
            while not self.conn.poll():
                await asyncio.sleep(POLL_SECONDS)
                now = time.perf_counter()
                if now - started > timeout:
                    raise _Limit(f"{name}: stopped after the page's limit of {timeout:g} s")
                if now - checked > MEMORY_CHECK_SECONDS:
                    checked = now
                    if not self.alive():
                        raise _Limit(f"{name}: the worker process ended unexpectedly")
                    if self.rss_mb() > MAX_WORKER_MB:
                        raise _Limit(f"{name}: stopped at the page's limit of "
                                     f"{MAX_WORKER_MB:,} MB of memory")
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                raise _Limit(f"{name}: the worker process ended unexpectedly") from None
            kind = message[0]
            if kind == "item":
                if on_item is not None:
                    outcome = on_item(message[1])
                    if inspect.isawaitable(outcome):
                        await outcome
                continue
            if kind == "done":
                return message[1]
            if kind == "error":
                raise TaskError(message[1], message[2])
            raise TaskError(f"{name} failed: {message[1]}")

    async def wait_done(self, deadline: float) -> bool:
        """Read the rest of the task's messages until it is done (after a cancel, or its
        warm-up); False if it does not finish by ``deadline`` (``time.perf_counter()``)."""
        while time.perf_counter() < deadline:
            if self.conn.poll():
                try:
                    message = self.conn.recv()
                except (EOFError, OSError):
                    return False
                if message[0] in ("done", "error", "failed"):
                    return True
            else:
                await asyncio.sleep(POLL_SECONDS)
        return False


class _Limit(TaskError):
    """A limit reached: the worker is stopped."""


class WorkerPool:
    """``size`` workers, each running one task at a time; tasks wait for a free one up to
    their ``wait`` time. A worker joins the idle ones once it has warmed up (imported and run
    once what its tasks use), so that no request waits behind another's warm-up."""

    def __init__(self, name: str, size: int, warm: bool = True) -> None:
        self.name = name
        self.size = size
        # Workers are forked from a server of their own that has imported the tasks' modules
        # once (numpy, pandas, numba, matplotlib, the engine): a worker then starts in a few
        # milliseconds rather than seconds of importing, and one ended after a cancel is
        # replaced at once. The fork server is a fresh single-threaded process, so forking
        # it is safe whatever threads the web server runs.
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(["sim.web.tasks"])
        self.idle: asyncio.Queue[Worker] = asyncio.Queue()
        self.workers: list[Worker] = []
        self.warm = warm
        self.running = 0
        self.warming = 0  # workers warming up
        self.started = False
        self.background: set[asyncio.Task] = set()

    def _later(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def _spawn(self) -> None:
        """A new worker, idle once warmed."""
        worker = Worker(self.context)
        self.workers.append(worker)
        if not self.warm:
            self.idle.put_nowait(worker)
            return
        worker.conn.send(("warm", (self.name,)))
        self.warming += 1
        self._later(self._warmed(worker))

    async def _warmed(self, worker: Worker) -> None:
        done = await worker.wait_done(time.perf_counter() + WARM_SECONDS)
        self.warming -= 1
        if done:
            self.idle.put_nowait(worker)
        else:
            self._replace(worker)

    async def start(self) -> None:
        """Start the workers (each importing and warming the engine meanwhile)."""
        self.started = True
        for _ in range(self.size - len(self.workers)):
            self._spawn()

    async def ready(self) -> None:
        """Wait until every worker has warmed up."""
        while self.idle.qsize() + self.running < self.size:
            await asyncio.sleep(0.05)

    async def _take(self, wait: float) -> Worker:
        if self.warming or not self.started:
            wait = max(wait, WARM_SECONDS)  # not busy: starting
        try:
            worker = await asyncio.wait_for(self.idle.get(), wait)
        except TimeoutError:
            raise TaskError(f"busy: the server runs at most {self.size} "
                            f"{'simulations' if self.name == 'simulation' else 'tasks'} at "
                            "once; try again when one has finished") from None
        if not worker.alive():
            self._replace(worker)
            return await self._take(wait)
        return worker

    def _replace(self, worker: Worker) -> None:
        """End a worker and start another in its place."""
        worker.kill()
        if worker in self.workers:
            self.workers.remove(worker)
        self._spawn()

    def _give_back(self, worker: Worker) -> None:
        if not worker.alive() or worker.rss_mb() > RECYCLE_MB:
            self._replace(worker)
        else:
            self.idle.put_nowait(worker)

    async def run(self, name: str, args: tuple, timeout: float, wait: float = 30.0,
                  on_item: Callable[[Any], Any] | None = None,
                  interruptible: bool = False) -> Any:
        """Run task ``name`` on a free worker (see :meth:`Worker.run`); an
        ``interruptible`` task stops by itself soon after a cancel (between chunks)."""
        worker = await self._take(wait)
        started = time.perf_counter()
        self.running += 1
        try:
            result = await worker.run(name, args, timeout, on_item)
        except _Limit:
            self._replace(worker)
            raise
        except asyncio.CancelledError:
            now = time.perf_counter()
            # A simulation stops at its next chunk; another task is left to finish where it
            # has run briefly (most are done soon: a worker started afresh costs seconds of
            # importing), and is ended with its process where it runs on.
            deadline = now + GRACE_SECONDS if interruptible else started + FINISH_SECONDS
            if deadline > now:
                worker.cancel()
                self._later(self._settle(worker, deadline))
            else:
                self._replace(worker)
            raise
        except BaseException:
            self._give_back(worker)
            raise
        finally:
            self.running -= 1
        self._give_back(worker)
        return result

    async def _settle(self, worker: Worker, deadline: float) -> None:
        if await worker.wait_done(deadline):
            self._give_back(worker)
        else:
            self._replace(worker)

    def close(self) -> None:
        for task in list(self.background):
            task.cancel()
        for worker in self.workers:
            worker.kill()
        self.workers.clear()

    def rss_mb(self) -> float:
        return sum(w.rss_mb() for w in self.workers)
