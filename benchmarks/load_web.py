"""Load test of the web lab: 20 sessions searching at once, and is the server still responsive?

Run ``python benchmarks/load_web.py [--duration 60] [--sessions 20]`` (needs the ``web``
and ``dev`` extras: uvicorn, FastAPI, httpx). Not a test: it prints a table and writes
``benchmarks/results/load_web.json``.

It starts ``mctslab serve`` in a subprocess on a free loopback port, then for
``--duration`` seconds keeps ``--sessions`` sessions busy, each in its own client task,
one request at a time: AI moves with a 0.2 s time budget (``POST .../ai``) alternating with
``POST .../iterations`` requests sized to about 0.2 s of single-threaded search
(a new game when one ends). Sessions alternate games (Connect Four, tic-tac-toe, Nim) and
engines (the reference engine, and the compiled one for the AI's moves). Meanwhile a
separate task sends ``GET /api/health`` every 50 ms: its latency shows whether the event
loop stays free while the searches run in worker threads. Latencies are wall-clock times
seen by the client, p50 / p99 / max per kind of request.

``--compiled`` measures the compiled engine's concurrency instead: every session asks
only for AI moves from the start of Connect Four, 200,000 iterations of the compiled
engine on a fresh tree (``reset`` after each: the same work every time), which
releases the GIL, so the server runs up to one compiled search per core at once;
first with one session, then with ``--sessions``. It reports the simulations per
second the server made in each run and their ratio (about the number of cores when
the searches run in parallel, 1 if they took turns), with the health latencies, and
writes ``benchmarks/results/load_web_compiled.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

RESULTS = Path(__file__).resolve().parent / "results"
# Iterations of about 0.2 s of one core's search per game, on the reference engine.
ITERATIONS = {"connect_four": 2000, "tic_tac_toe": 5000, "nim": 3000}
GAMES = ("connect_four", "tic_tac_toe", "nim")
# --compiled: each AI move searches the start of Connect Four anew with this budget.
COMPILED_ITERATIONS = 200_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile by the nearest-rank method (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q * len(ordered) + 0.5)))
    return ordered[rank - 1]


def stats(values: list[float]) -> dict[str, float]:
    return {
        "count": len(values),
        "p50_ms": round(1000 * percentile(values, 0.50), 1),
        "p99_ms": round(1000 * percentile(values, 0.99), 1),
        "max_ms": round(1000 * max(values, default=0.0), 1),
    }


class Recorder:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.searched = 0.0  # seconds of search the server reported
        self.simulations = 0  # iterations the server reported

    async def call(self, client: httpx.AsyncClient, kind: str, method: str, url: str,
                   body: Any = None) -> httpx.Response:  # fmt: skip
        start = time.perf_counter()
        r = await client.request(method, url, json=body)
        self.latencies.setdefault(kind, []).append(time.perf_counter() - start)
        if r.status_code >= 400:
            self.errors[f"{kind} {r.status_code}"] = (
                self.errors.get(f"{kind} {r.status_code}", 0) + 1
            )
        return r


async def session_loop(
    client: httpx.AsyncClient, rec: Recorder, i: int, stop: float, compiled: bool
) -> None:
    game = "connect_four" if compiled else GAMES[i % len(GAMES)]  # compiled: equal work
    engine = "compiled" if compiled else "auto" if i % 2 else "reference"
    body = {"game": game, "config": {"engine": engine, "seed": i, "time": 0.2, "iterations": None}}
    r = await rec.call(client, "create", "POST", "/api/sessions", body)
    sid = r.json()["id"]
    turn = 0
    while time.perf_counter() < stop:
        if compiled:  # equal work: the same search from the start, on a fresh tree
            budget = {"iterations": COMPILED_ITERATIONS}
            r = await rec.call(client, "ai", "POST", f"/api/sessions/{sid}/ai", budget)
            await rec.call(client, "reset", "POST", f"/api/sessions/{sid}/reset")
            turn += 1
            if r.status_code == 200:
                rec.searched += r.json()["last_ai"]["seconds"]
                rec.simulations += COMPILED_ITERATIONS
            continue
        if turn % 2 == 0:
            r = await rec.call(client, "ai", "POST", f"/api/sessions/{sid}/ai", {"time": 0.2})
        else:
            k = ITERATIONS[game]
            r = await rec.call(client, "iterations", "POST", f"/api/sessions/{sid}/iterations",
                               {"k": k})  # fmt: skip
        turn += 1
        if r.status_code == 200:
            data = r.json()
            report = data.get("last_ai") or data
            rec.searched += report["seconds"]
            rec.simulations += report["iterations"]
        if r.status_code == 200 and r.json().get("state", {}).get("terminal"):
            await rec.call(client, "reset", "POST", f"/api/sessions/{sid}/reset")
    await rec.call(client, "delete", "DELETE", f"/api/sessions/{sid}")


async def health_loop(client: httpx.AsyncClient, rec: Recorder, stop: float) -> None:
    while time.perf_counter() < stop:
        await rec.call(client, "health", "GET", "/api/health")
        await asyncio.sleep(0.05)


async def run(base: str, sessions: int, duration: float, compiled: bool) -> tuple[Recorder, float]:
    rec = Recorder()
    limits = httpx.Limits(max_connections=sessions + 4)
    async with (
        httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client,
        httpx.AsyncClient(base_url=base, timeout=120) as probe,
    ):
        # Warm up: load the compiled engine from numba's cache (or compile it) once per game.
        for game in GAMES:
            await client.post("/api/move", json={"game": game, "iterations": 10})
        start = time.perf_counter()
        stop = start + duration
        await asyncio.gather(
            health_loop(probe, rec, stop),
            *(session_loop(client, rec, i, stop, compiled) for i in range(sessions)),
        )
        return rec, time.perf_counter() - start


def report_of(rec: Recorder, sessions: int, elapsed: float) -> dict[str, Any]:
    rows = {kind: stats(values) for kind, values in sorted(rec.latencies.items())}
    searches = len(rec.latencies.get("ai", [])) + len(rec.latencies.get("iterations", []))
    return {
        "sessions": sessions,
        "duration_s": round(elapsed, 1),
        "search_requests": searches,
        "search_requests_per_s": round(searches / elapsed, 2),
        # Seconds of search the server reported per second of the run: how busy its
        # search threads were (1.0: one searching all the time).
        "search_seconds_per_s": round(rec.searched / elapsed, 2),
        "simulations_per_s": round(rec.simulations / elapsed),
        "requests": rows,
        "errors": rec.errors,
    }


def print_report(report: dict[str, Any]) -> None:
    print(f"\n{'request':<12}{'count':>8}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for kind, row in report["requests"].items():
        print(
            f"{kind:<12}{row['count']:>8}{row['p50_ms']:>10.1f}{row['p99_ms']:>10.1f}"
            f"{row['max_ms']:>10.1f}"
        )
    print(
        f"\n{report['search_requests']} search requests in {report['duration_s']:.1f} s, "
        f"{report['search_seconds_per_s']:.2f} s of search a second, "
        f"{report['simulations_per_s']:,} simulations/s; errors: {report['errors'] or 'none'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument(
        "--compiled", action="store_true", help="compiled AI moves only: 1 session, then N"
    )
    args = parser.parse_args(argv)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "mctslab", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    runs = [1, args.sessions] if args.compiled else [args.sessions]
    reports = []
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                print(server.stdout.read() if server.stdout else "", file=sys.stderr)
                print("error: the server did not start", file=sys.stderr)
                return 1
            time.sleep(0.2)
        for sessions in runs:
            print(f"server at {base}; {sessions} sessions for {args.duration:g} s", flush=True)
            rec, elapsed = asyncio.run(run(base, sessions, args.duration, args.compiled))
            reports.append(report_of(rec, sessions, elapsed))
            print_report(reports[-1])
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        if server.poll() is None:
            server.kill()
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "mode": "compiled" if args.compiled else "mixed",
    }
    if args.compiled:
        one, many = reports
        report["runs"] = reports
        report["throughput_ratio"] = round(
            many["simulations_per_s"] / max(1, one["simulations_per_s"]), 2
        )
        print(
            f"\nsimulations/s with {many['sessions']} sessions / with 1: "
            f"{report['throughput_ratio']:.2f}"
        )
    else:
        report.update(reports[0])
    RESULTS.mkdir(exist_ok=True)
    name = "load_web_compiled.json" if args.compiled else "load_web.json"
    (RESULTS / name).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
