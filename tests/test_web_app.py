"""The what-if page's endpoints (Starlette's test client, real worker processes) and its
worker pools: validation, bounds, streaming, cancellation, and one message for bad input."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import tomllib
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2; httpx does the same
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from sim.web import app as web_app  # noqa: E402
from sim.web import workers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "experiments"
FARO = "game=faro&strategy=flat-rank&p.ranks=%22K%22"
PONTOON = ("game=pontoon&strategy=threshold&r.banker_wins_ties=false&seed=7&target_ci=0"
           "&chunk_rounds=10000")


@pytest.fixture(scope="module")
def client():
    with TestClient(web_app.create_app(FOLDER, quick=1, simulations=1, warm=False)) as c:
        yield c


def test_the_page_and_its_assets_are_served_by_the_app(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for asset in ("app.js", "charts.js", "style.css"):
        assert client.get(f"/static/{asset}").status_code == 200
    assert "http" not in page.text.replace("http://www.w3.org", "")  # nothing from elsewhere


def test_meta_lists_the_games_the_experiment_files_and_the_limits(client):
    meta = client.get("/api/meta").json()
    assert "faro" in [g["name"] for g in meta["games"]]
    assert "faro_soda.toml" in [f["file"] for f in meta["experiments"]]
    assert meta["limits"]["max_simulations"] == 1


def test_the_game_endpoint_gives_its_controls_and_first_strategy(client):
    controls = client.get("/api/game?game=faro").json()
    assert "soda" in [r["name"] for r in controls["rules"]]
    assert controls["start"] == {"strategy": "flat-rank", "p.ranks": '"K"'}


def test_open_gives_the_state_of_an_experiment_file_and_its_rows(client):
    opened = client.get("/api/open?file=faro_soda.toml&variant=no-soda&row=high%20card").json()
    assert opened["query"]["r.soda"] == "false" and opened["query"]["strategy"] == "high-card"
    assert opened["variants"] == ["soda", "no-soda"]
    assert "high card" in opened["strategies"]


@pytest.mark.parametrize("name", ["../pyproject.toml", "/etc/hostname", "seven_up.py",
                                  "missing.toml"])
def test_open_reads_experiment_files_of_the_folder_only(client, name):
    answer = client.get(f"/api/open?file={name}")
    assert answer.status_code == 400 and answer.json()["control"] == "file"


def test_status_gives_the_servers_memory_and_what_runs(client):
    status = client.get("/api/status").json()
    assert status["server_mb"] > 0 and status["simulations_running"] == 0


def test_exact_answers_with_the_fractions(client):
    shown = client.get(f"/api/exact?{FARO}&r.soda=false").json()
    what_if = next(r for r in shown["rows"] if r["role"] == "what-if")
    assert what_if["other"]["fraction"] == "1/17"


@pytest.mark.parametrize("query, control, words", [
    (f"{FARO}&r.packs=9", "r.packs", "variants.what-if.packs: expected an integer 1..8, got 9"),
    (f"{FARO}&r.sodda=true", "r.sodda", "unknown rule 'sodda' (did you mean 'soda'?"),
    (f"{FARO}&strategy=os:system", "strategy", "experiments folder only"),
    (f"{FARO}&rounds=100000000000", "rounds", "rounds: at most"),
    (f"{FARO}&bogus=1", "", "unknown setting 'bogus'"),
    ("game=farro", "game", "unknown game 'farro' (did you mean 'faro'?"),
])
def test_bad_input_is_one_message_naming_its_control(client, query, control, words):
    answer = client.get(f"/api/exact?{query}")
    assert answer.status_code == 400
    body = answer.json()
    assert body["control"] == control and words in body["error"]
    assert "Traceback" not in answer.text and "\n" not in body["error"]


def test_a_query_larger_than_the_bound_is_refused(client):
    answer = client.get(f"/api/exact?{FARO}&p.ranks={'K' * web_app.MAX_QUERY_BYTES}")
    assert answer.status_code == 400 and "at most" in answer.json()["error"]


def test_the_charts_endpoint_gives_svg(client):
    shown = client.get(f"/api/charts?{FARO}").json()
    assert shown["charts"] and shown["charts"][0]["svg"].lstrip().startswith("<?xml")


def test_the_risk_endpoint_gives_exact_ruin(client):
    shown = client.get(f"/api/risk?{FARO}&view=risk&s.bankroll=40&s.rounds=100").json()
    assert shown["rows"][0]["exact"] and 0 < shown["rows"][0]["p_ruin"] < 1


def _events(client, query):
    events = []
    with client.stream("GET", f"/api/simulate?{query}") as stream:
        kind = None
        for line in stream.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((kind, json.loads(line.removeprefix("data: "))))
    return events


def test_a_simulation_streams_its_estimates_then_done(client):
    events = _events(client, f"{PONTOON}&rounds=40000")
    assert [k for k, _ in events][-1] == "done"
    final = [d for k, d in events if k == "estimate"][-1]
    assert final["done"] and {r["rounds"] for r in final["rows"]} == {40_000}
    assert final["diffs"][0]["shared_cards"]


def test_a_simulation_of_bad_input_is_one_failure_event(client):
    events = _events(client, f"{PONTOON}&r.stick_min=40")
    assert events == [("failure", {"error": "variants.what-if.stick_min: expected an integer "
                                            "12..21, got 40", "control": "r.stick_min"})]


def test_download_experiment_gives_the_file_that_reproduces_the_view(client):
    answer = client.get(f"/download/experiment.toml?{FARO}&r.soda=false")
    assert "attachment" in answer.headers["content-disposition"]
    data = tomllib.loads(answer.text)
    assert data["variants"]["what-if"] == {"preset": "faro", "soda": False}


def test_download_report_gives_the_runs_report_html(client):
    answer = client.get(f"/download/report.html?{PONTOON}&rounds=20000")
    assert answer.status_code == 200 and "<html" in answer.text.lower()
    assert "what-if" in answer.text


def test_an_unexpected_failure_is_one_line_in_the_page_and_the_log(caplog):
    class Boom:
        app = type("App", (), {"state": type("S", (), {"server": type("X", (), {
            "requests": 0})()})()})()
        method, url = "GET", type("U", (), {"path": "/api/x"})()

    async def fails(request):
        raise RuntimeError("a broken invariant")

    with caplog.at_level(logging.ERROR, logger="houseedge.serve"):
        answer = asyncio.run(web_app._endpoint(fails)(Boom()))
    body = json.loads(answer.body)
    assert answer.status_code == 500
    assert body["error"] == "internal error: RuntimeError: a broken invariant"
    assert [r.getMessage() for r in caplog.records] == [
        "houseedge serve: GET /api/x: RuntimeError: a broken invariant"]
    assert all(r.exc_info is None for r in caplog.records)


# --------------------------------------------------------------------------- the pools
@pytest.fixture(scope="module")
def loop():
    """An event loop in a thread of its own, shared by the pool tests (a pool's queue
    belongs to one loop)."""
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running

    def stop() -> None:
        for task in asyncio.all_tasks(running):
            task.cancel()
        running.stop()

    running.call_soon_threadsafe(stop)
    thread.join(timeout=5)


def _run(loop, coroutine, timeout=120):
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout)


@pytest.fixture(scope="module")
def pool(loop):
    made = workers.WorkerPool("simulation", 1, warm=False)
    _run(loop, made.start())
    yield made
    made.close()


def _long_simulation():
    query = {"game": "pontoon", "strategy": "threshold", "rounds": "40000000",
             "chunk_rounds": "20000", "target_ci": "0"}
    return "simulate", (query, str(FOLDER), None, 300.0)


def _args(tmp_path, name, args):
    return name, tuple(str(tmp_path / "out") if a is None else a for a in args)


async def _idle_worker(pool):
    worker = await pool.idle.get()
    pool.idle.put_nowait(worker)
    return worker


def test_a_cancelled_simulation_stops_at_its_next_chunk_and_keeps_its_worker(loop, pool,
                                                                            tmp_path):
    name, args = _args(tmp_path, *_long_simulation())
    seen = []

    async def scenario():
        before = await _idle_worker(pool)
        task = asyncio.ensure_future(pool.run(name, args, 300, on_item=seen.append,
                                              interruptible=True))
        while not seen:
            await asyncio.sleep(0.01)
        task.cancel()
        cancelled_at = time.perf_counter()
        with pytest.raises(asyncio.CancelledError):
            await task
        after = await asyncio.wait_for(pool.idle.get(), 10)
        pool.idle.put_nowait(after)
        return before, after, time.perf_counter() - cancelled_at

    before, after, seconds = _run(loop, scenario())
    assert after is before and after.alive()  # stopped by itself, not ended
    assert seconds < 2 * workers.GRACE_SECONDS + 0.5
    assert seen[-1]["chunks"] < 100


def test_a_long_task_cancelled_is_ended_with_its_process(loop, pool, tmp_path):
    # Cribbage's deals are slow enough that 20 million take tens of seconds even on a warm
    # worker (pontoon's fast kernel runs them in under the three seconds a task is left).
    query = {"game": "cribbage", "rounds": "20000000", "chunk_rounds": "1000000",
             "target_ci": "0"}

    async def scenario():
        before = await _idle_worker(pool)
        task = asyncio.ensure_future(pool.run("report_html", (query, str(FOLDER),
                                                              str(tmp_path / "r")), 300))
        await asyncio.sleep(1.5)
        # Still running: were it done or failed already, it would be given back rather
        # than ended, and what it said is the failure to see.
        answered = before.conn.recv() if before.conn.poll() else None
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return answered, before, await _idle_worker(pool)

    answered, before, after = _run(loop, scenario())
    assert answered is None, f"the task answered within 1.5 s: {answered}"
    assert after is not before and not before.alive() and after.alive()


def test_a_task_past_its_time_limit_is_stopped_in_one_line(loop, pool, tmp_path):
    name, args = _args(tmp_path, *_long_simulation())
    with pytest.raises(workers.TaskError, match=r"^simulate: stopped after the page's limit "
                                                r"of 1 s$"):
        _run(loop, pool.run(name, args, 1.0, interruptible=True))


def test_a_worker_past_its_memory_limit_is_stopped_in_one_line(loop, pool, tmp_path,
                                                                monkeypatch):
    monkeypatch.setattr(workers, "MAX_WORKER_MB", 1)
    name, args = _args(tmp_path, *_long_simulation())
    with pytest.raises(workers.TaskError, match="limit of 1 MB of memory"):
        _run(loop, pool.run(name, args, 60, interruptible=True))


def test_at_most_the_pools_size_of_simulations_run_at_once(loop, pool, tmp_path):
    name, args = _args(tmp_path, *_long_simulation())

    async def scenario():
        first = asyncio.ensure_future(pool.run(name, args, 300, interruptible=True))
        await asyncio.sleep(0.2)
        try:
            with pytest.raises(workers.TaskError, match=r"^busy: the server runs at most 1 "
                                                        "simulations at once"):
                await pool.run(name, args, 300, wait=0.3)
        finally:
            first.cancel()
            with pytest.raises(asyncio.CancelledError):
                await first

    _run(loop, scenario())


def test_the_workers_are_processes_of_their_own(pool):
    assert all(w.process.pid != os.getpid() for w in pool.workers)


def test_serve_refuses_a_folder_that_is_not_there_in_one_line(capsys):
    from sim import cli

    assert cli.main(["serve", "--experiments", "no-such-folder"]) == 2
    assert capsys.readouterr().err == ("houseedge: error: --experiments no-such-folder: not a "
                                       "folder\n")


def test_serve_binds_this_machine_only_unless_told_otherwise():
    from sim import cli

    args = cli._parser().parse_args(["serve"])
    assert (args.host, args.port, args.experiments) == ("127.0.0.1", 8765, "experiments")
