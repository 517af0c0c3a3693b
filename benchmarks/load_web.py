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


async def session_loop(client: httpx.AsyncClient, rec: Recorder, i: int, stop: float) -> None:
    game = GAMES[i % len(GAMES)]
    engine = "auto" if i % 2 else "reference"
    body = {"game": game, "config": {"engine": engine, "seed": i, "time": 0.2, "iterations": None}}
    r = await rec.call(client, "create", "POST", "/api/sessions", body)
    sid = r.json()["id"]
    turn = 0
    while time.perf_counter() < stop:
        if turn % 2 == 0:
            r = await rec.call(client, "ai", "POST", f"/api/sessions/{sid}/ai", {"time": 0.2})
        else:
            k = ITERATIONS[game]
            r = await rec.call(client, "iterations", "POST", f"/api/sessions/{sid}/iterations",
                               {"k": k})  # fmt: skip
        turn += 1
        if r.status_code == 200:
            data = r.json()
            rec.searched += data["last_ai"]["seconds"] if "last_ai" in data else data["seconds"]
        if r.status_code == 200 and r.json().get("state", {}).get("terminal"):
            await rec.call(client, "reset", "POST", f"/api/sessions/{sid}/reset")
    await rec.call(client, "delete", "DELETE", f"/api/sessions/{sid}")


async def health_loop(client: httpx.AsyncClient, rec: Recorder, stop: float) -> None:
    while time.perf_counter() < stop:
        await rec.call(client, "health", "GET", "/api/health")
        await asyncio.sleep(0.05)


async def run(base: str, sessions: int, duration: float) -> tuple[Recorder, float]:
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
            *(session_loop(client, rec, i, stop) for i in range(sessions)),
        )
        return rec, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args(argv)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "mctslab", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
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
        print(f"server at {base}; {args.sessions} sessions for {args.duration:g} s", flush=True)
        rec, elapsed = asyncio.run(run(base, args.sessions, args.duration))
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        if server.poll() is None:
            server.kill()
    rows = {kind: stats(values) for kind, values in sorted(rec.latencies.items())}
    searches = len(rec.latencies.get("ai", [])) + len(rec.latencies.get("iterations", []))
    report = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "sessions": args.sessions,
        "duration_s": round(elapsed, 1),
        "search_requests_per_s": round(searches / elapsed, 2),
        # Seconds of search the server reported per second of the run: how busy its search
        # thread was (1.0: searching all the time).
        "search_seconds_per_s": round(rec.searched / elapsed, 2),
        "requests": rows,
        "errors": rec.errors,
    }
    print(f"\n{'request':<12}{'count':>8}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for kind, row in rows.items():
        print(
            f"{kind:<12}{row['count']:>8}{row['p50_ms']:>10.1f}{row['p99_ms']:>10.1f}"
            f"{row['max_ms']:>10.1f}"
        )
    print(
        f"\n{searches} search requests in {elapsed:.1f} s, {rec.searched:.1f} s of search; "
        f"errors: {rec.errors or 'none'}"
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "load_web.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
