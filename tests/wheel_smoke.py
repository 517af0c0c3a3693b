"""The smoke test of an installed wheel, run by tests/test_wheel.py with the Python of a
fresh virtual environment the wheel was installed into (from a folder outside the source
tree, without PYTHONPATH), so that every import and every file it reads is the wheel's.

It checks, in order: the package is the venv's own (``mctslab.__file__`` under
``sys.prefix``) at version ``EXPECTED_VERSION`` (the first argument); the venv's
``mctslab`` command says the version; a tic-tac-toe search; ``mctslab solve`` finds the
draw; ``mctslab serve`` on a free port answers ``/api/health`` and serves the page and
its script; every network ``mctslab models`` lists is the package's and loads;
``mctslab lessons`` lists the eleven notebooks from the package's data and ``--copy``
copies them. Each check prints one ``ok:`` line; a failed one ends the script with an
``AssertionError`` naming it.

The search runs on the reference engine: the compiled engine's first compilation in a new
place takes about 40 s on these machines, which ``mctslab warm`` pays once after an
install; the engine's code is the same files either way.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

#: The lessons the wheel ships: the eleven notebooks and the module lesson 11 grades.
NOTEBOOKS = 11


def _inside(path: str | Path, folder: str | Path) -> bool:
    return Path(path).resolve().is_relative_to(Path(folder).resolve())


def mctslab_command(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The venv's own ``mctslab`` console script (the wheel's entry point), checked."""
    script = Path(sys.executable).parent / "mctslab"
    done = subprocess.run(
        [str(script), *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, (args, done.returncode, done.stdout, done.stderr)
    return done


def check_package(expected: str) -> None:
    """The package imported is the venv's, at the expected version, metadata included."""
    from importlib import metadata

    import mctslab

    assert _inside(mctslab.__file__ or "", sys.prefix), (mctslab.__file__, sys.prefix)
    assert mctslab.__version__ == expected, mctslab.__version__
    assert metadata.version("mctslab") == expected, metadata.version("mctslab")
    print(f"ok: mctslab {mctslab.__version__} from {Path(mctslab.__file__ or '').parent}")


def check_version(expected: str) -> None:
    line = mctslab_command("--version").stdout
    assert line.startswith(f"mctslab {expected} (Python "), line
    print(f"ok: {line.strip()}")


def check_search() -> None:
    done = mctslab_command(
        "search",
        "tic_tac_toe",
        "--iterations",
        "2000",
        "--seed",
        "1",
        "--engine",
        "reference",
        "--json",
    )
    result = json.loads(done.stdout)
    visits = sum(child["visits"] for child in result["children"])
    assert 0 <= result["action"] < 9 and len(result["children"]) == 9, result
    assert visits >= 1900, visits  # each iteration but the root's visit reaches a child
    print(f"ok: search tic_tac_toe plays {result['action']} after {visits} visits")


def check_solve() -> None:
    result = json.loads(mctslab_command("solve", "tic_tac_toe", "--json").stdout)
    assert result["outcome"] == 0 and result["best_actions"] == list(range(9)), result
    print(f"ok: solve tic_tac_toe is a draw ({result['nodes']} nodes)")


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.status, answer.read().decode("utf-8")


def check_serve(expected: str) -> None:
    """``mctslab serve`` answers health with the version and serves the page."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = Path(sys.executable).parent / "mctslab"
    # A session of its own: the server and its warm-up child are ended together.
    server = subprocess.Popen(
        [str(script), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # a hang, not a slow start on a loaded machine
        while True:
            try:
                status, body = _get(f"{base}/api/health")
                break
            except OSError:
                assert server.poll() is None, f"mctslab serve ended ({server.returncode})"
                assert time.monotonic() < deadline, "mctslab serve did not answer in 120 s"
                time.sleep(0.2)
        health = json.loads(body)
        assert status == 200 and health["status"] == "ok", body
        assert health["version"] == expected, health
        status, page = _get(f"{base}/")
        assert status == 200 and "/static/app.js" in page, page[:200]
        status, script_text = _get(f"{base}/static/app.js")
        assert status == 200 and "api" in script_text, script_text[:200]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    print(f"ok: serve answered /api/health (version {health['version']}) and / on port {port}")


def check_models() -> None:
    """Every shipped network is the package's file and loads (ONNX Runtime or PyTorch)."""
    rows = json.loads(mctslab_command("models", "--json").stdout)
    names = sorted(row["name"] for row in rows)
    assert {"tic_tac_toe", "connect_four"} <= set(names), names
    for row in rows:
        assert _inside(row["path"], sys.prefix), row["path"]
        assert row["inference"]["backend"] in ("onnx", "torch"), (row["name"], row["inference"])
    backends = ", ".join(f"{row['name']} by {row['inference']['backend']}" for row in rows)
    print(f"ok: models load: {backends}")


def check_lessons() -> None:
    """The notebooks are the package's data, and ``--copy`` copies them all."""
    import mctslab

    data = Path(mctslab.__file__ or "").parent / "lessons_data"
    out = mctslab_command("lessons").stdout
    assert f"The lessons are in {data}" in out, out
    notebooks = sorted(data.glob("*.ipynb"))
    assert len(notebooks) == NOTEBOOKS and all(p.name in out for p in notebooks), out
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "course"
        mctslab_command("lessons", "--copy", str(target))
        copied = sorted(p.name for p in target.iterdir())
        assert copied == sorted([*(p.name for p in notebooks), "find_the_bugs.py"]), copied
    print(f"ok: lessons lists {len(notebooks)} notebooks from {data} and copies them")


def main() -> None:
    expected = sys.argv[1]
    assert not os.environ.get("PYTHONPATH"), "run without PYTHONPATH"
    check_package(expected)
    check_version(expected)
    check_search()
    check_solve()
    check_serve(expected)
    check_models()
    check_lessons()


if __name__ == "__main__":
    main()
