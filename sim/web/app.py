"""The page's web app: Starlette routes over the worker pools, served by uvicorn.

Every endpoint takes the page's state as its query (:mod:`sim.web.state`), so that a link,
a download and a request of the page are one and the same URL. Answers are JSON; a simulation
streams its estimates as server-sent events; bad input is one message (``{"error": ...,
"control": ...}``, status 400), never a traceback, in the page or in the log.

Bounds: a request's query is at most :data:`MAX_QUERY_BYTES`; tasks run in
:data:`QUICK_WORKERS` worker processes (charts in :data:`CHART_WORKERS` more) and simulations
in at most :data:`MAX_SIMULATIONS` more, each for at most :data:`QUICK_SECONDS` or
:data:`SIMULATION_SECONDS`, a worker's memory at most :data:`sim.web.workers.MAX_WORKER_MB`; the
rounds of a simulation at most :data:`sim.web.state.MAX_ROUNDS` a row. A request whose client
has gone (the page changed its inputs) has its task cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sim.core.errors import InputError
from sim.web import bounds
from sim.web.workers import TaskError, WorkerPool

LOG = logging.getLogger("houseedge.serve")
STATIC = Path(__file__).with_name("static")
MAX_QUERY_BYTES = 16_384
QUICK_WORKERS = 2
CHART_WORKERS = 1  # charts apart: an exact value never waits behind a drawing
MAX_SIMULATIONS = 2
QUICK_SECONDS = 120.0
SIMULATION_SECONDS = 300.0
SIMULATION_WAIT = 3.0  # a new simulation waits this long for one cancelled to end


class Server:
    """The app's state: its experiments folder, pools and the cache of game controls."""

    def __init__(self, experiments: Path, quick: int = QUICK_WORKERS,
                 simulations: int = MAX_SIMULATIONS, warm: bool = True) -> None:
        self.experiments = experiments.resolve()
        self.quick = WorkerPool("task", quick, warm)
        self.charts = WorkerPool("charts", CHART_WORKERS, warm)
        self.simulations = WorkerPool("simulation", simulations, warm)
        self.controls: dict[str, Any] = {}
        self.games: list[dict[str, str]] | None = None
        self.scratch = Path(tempfile.mkdtemp(prefix="houseedge-serve-"))
        self.requests = 0
        self.starting: asyncio.Task | None = None

    async def start(self) -> None:
        """Start the task workers, then (once they have warmed up: two cores are soon
        shared by four processes importing the engine) the simulation workers."""
        await self.quick.start()

        async def then() -> None:
            await self.quick.ready()
            await self.charts.start()
            await self.charts.ready()
            await self.simulations.start()

        self.starting = asyncio.get_running_loop().create_task(then())

    def close(self) -> None:
        if self.starting is not None:
            self.starting.cancel()
        self.quick.close()
        self.charts.close()
        self.simulations.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def folder_for(self, what: str) -> Path:
        """A new scratch folder (a simulation's run folder), removed when done."""
        return Path(tempfile.mkdtemp(prefix=f"{what}-", dir=self.scratch))


def _server(request: Request) -> Server:
    return request.app.state.server


def _query(request: Request) -> dict[str, str]:
    """The state in the request's query (each key once), within the page's bounds."""
    if len(request.url.query.encode()) > MAX_QUERY_BYTES:
        raise TaskError(f"the page's state is at most {MAX_QUERY_BYTES:,} bytes")
    query = dict(request.query_params)
    bounds.check_size(query)
    return query


def _bad(exc: InputError, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": str(exc), "control": getattr(exc, "control", "")},
                        status_code=status)


async def _until_gone(request: Request) -> None:
    """Return once the client has closed the request (the page changed its inputs)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


async def _while_connected(request: Request, work: Awaitable[Any]) -> Any:
    """``work``'s result, or cancel it where the client goes first (None then)."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_until_gone(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        return None
    return task.result()


def _endpoint(handler: Callable[[Request], Awaitable[Response]]
              ) -> Callable[[Request], Awaitable[Response]]:
    """Bad input as one message; anything else as one line in the page and the log."""

    async def wrapped(request: Request) -> Response:
        _server(request).requests += 1
        try:
            return await handler(request)
        except InputError as exc:
            return _bad(exc)
        except Exception as exc:  # noqa: BLE001 - never a traceback in the page or the log
            LOG.error("houseedge serve: %s %s: %s: %s", request.method, request.url.path,
                      type(exc).__name__, exc)
            return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}",
                                 "control": ""}, status_code=500)

    return wrapped


async def _quick(request: Request, name: str, *args: Any, pool: str = "quick") -> Response:
    result = await _while_connected(
        request, getattr(_server(request), pool).run(name, args, QUICK_SECONDS))
    if result is None:
        return Response(status_code=204)
    return JSONResponse(result)


# ------------------------------------------------------------------------------ routes
async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


@_endpoint
async def meta(request: Request) -> Response:
    server = _server(request)
    if server.games is None:
        games = await _while_connected(request, server.quick.run("games_list", (), QUICK_SECONDS))
        if games is None:
            return Response(status_code=204)
        server.games = games
    return JSONResponse({
        "games": server.games,
        "experiments": bounds.experiment_files(server.experiments),
        "limits": {"max_simulations": server.simulations.size,
                   "max_rounds": bounds.MAX_ROUNDS,
                   "simulation_seconds": SIMULATION_SECONDS, "task_seconds": QUICK_SECONDS,
                   "max_grid_points": bounds.MAX_GRID_POINTS},
        "defaults": {"seed": bounds.DEFAULT_SEED, "rounds": bounds.DEFAULT_ROUNDS,
                     "chunk_rounds": bounds.DEFAULT_CHUNK,
                     "target_ci": bounds.DEFAULT_TARGET,
                     "session": bounds.SESSION_DEFAULTS}})


@_endpoint
async def game(request: Request) -> Response:
    server = _server(request)
    name = _query(request).get("game") or "faro"
    if name not in server.controls:
        result = await _while_connected(request, server.quick.run(
            "controls", (name, str(server.experiments)), QUICK_SECONDS))
        if result is None:
            return Response(status_code=204)
        server.controls[name] = result
    return JSONResponse(server.controls[name])


@_endpoint
async def open_file(request: Request) -> Response:
    query = _query(request)
    return await _quick(request, "open_file", str(_server(request).experiments),
                        query.get("file", ""), query.get("variant"), query.get("row"))


@_endpoint
async def exact(request: Request) -> Response:
    return await _quick(request, "exact", _query(request), str(_server(request).experiments))


@_endpoint
async def charts(request: Request) -> Response:
    return await _quick(request, "charts", _query(request), str(_server(request).experiments),
                        pool="charts")


@_endpoint
async def risk(request: Request) -> Response:
    return await _quick(request, "risk", _query(request), str(_server(request).experiments))


def _event(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


@_endpoint
async def simulate(request: Request) -> Response:
    """Server-sent events: ``estimate`` as chunks finish, then ``done``; or one ``failure``.
    Closing the stream (the page changed) cancels the simulation."""
    server = _server(request)
    query = _query(request)
    out = server.folder_for("simulation")

    async def events() -> AsyncIterator[str]:
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        async def work() -> None:
            try:
                await server.simulations.run(
                    "simulate", (query, str(server.experiments), str(out), SIMULATION_SECONDS),
                    SIMULATION_SECONDS + 30, wait=SIMULATION_WAIT,
                    on_item=lambda item: queue.put_nowait(("estimate", item)),
                    interruptible=True)
                queue.put_nowait(("done", {}))
            except InputError as exc:
                queue.put_nowait(("failure", {"error": str(exc),
                                              "control": getattr(exc, "control", "")}))
            except Exception as exc:  # noqa: BLE001
                LOG.error("houseedge serve: simulate: %s: %s", type(exc).__name__, exc)
                queue.put_nowait(("failure", {"error": f"internal error: {exc}",
                                              "control": ""}))

        task = asyncio.ensure_future(work())
        try:
            while True:
                kind, data = await queue.get()
                yield _event(kind, data)
                if kind in ("done", "failure"):
                    return
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            shutil.rmtree(out, ignore_errors=True)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@_endpoint
async def download_experiment(request: Request) -> Response:
    query = _query(request)
    text = await _while_connected(request, _server(request).quick.run(
        "experiment_toml", (query, str(_server(request).experiments)), QUICK_SECONDS))
    if text is None:
        return Response(status_code=204)
    return Response(text, media_type="application/toml", headers={
        "Content-Disposition": 'attachment; filename="what-if.toml"'})


@_endpoint
async def download_report(request: Request) -> Response:
    server = _server(request)
    query = _query(request)
    out = server.folder_for("report")
    try:
        path = await _while_connected(request, server.simulations.run(
            "report_html", (query, str(server.experiments), str(out)), SIMULATION_SECONDS,
            wait=SIMULATION_WAIT))
        if path is None:
            return Response(status_code=204)
        html = Path(path).read_text(encoding="utf-8")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return Response(html, media_type="text/html", headers={
        "Content-Disposition": 'attachment; filename="report.html"'})


@_endpoint
async def status(request: Request) -> Response:
    """The server's own figures: memory (its process and its workers), tasks running."""
    import psutil

    server = _server(request)
    return JSONResponse({
        "server_mb": psutil.Process().memory_info().rss / 2**20,
        "workers_mb": server.quick.rss_mb() + server.charts.rss_mb()
        + server.simulations.rss_mb(),
        "simulations_running": server.simulations.running,
        "tasks_running": server.quick.running, "requests": server.requests,
        "time": time.time()})


def create_app(experiments: Path, quick: int = QUICK_WORKERS,
               simulations: int = MAX_SIMULATIONS, warm: bool = True) -> Starlette:
    """The page's app, serving the experiment files of ``experiments``."""
    server = Server(experiments, quick, simulations, warm)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        try:
            yield
        finally:
            server.close()

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/game", game),
        Route("/api/open", open_file),
        Route("/api/exact", exact),
        Route("/api/charts", charts),
        Route("/api/risk", risk),
        Route("/api/simulate", simulate),
        Route("/api/status", status),
        Route("/download/experiment.toml", download_experiment),
        Route("/download/report.html", download_report),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware: list[Middleware] = []
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.server = server
    return app


def serve(host: str, port: int, experiments: Path) -> None:
    """Run the app on uvicorn until Ctrl-C."""
    import uvicorn

    logging.basicConfig(format="%(message)s", level=logging.INFO)
    app = create_app(experiments)
    print(f"houseedge serve: http://{host}:{port}/ (experiments from {experiments}; at most "
          f"{MAX_SIMULATIONS} simulations at once; Ctrl-C to stop)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
