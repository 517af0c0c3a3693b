"""``mctslab serve``: start the web lab.

Registered on :data:`mctslab.cli.main.app`. FastAPI and uvicorn (the ``web`` extra) are
imported only when the command runs, so that ``mctslab`` works without them.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import sys
from typing import Annotated

import typer

from mctslab.cli.app import EXIT_USER_ERROR, app

__all__ = ["forwarded_ips", "port_in_use", "serve"]


def port_in_use(host: str, port: int) -> bool:
    """Whether ``host:port`` cannot be bound now (another server holds it).

    Checked before printing the address and starting uvicorn, which would print the
    address, then ``[Errno 98]`` and exit 3. ``SO_REUSEADDR`` as uvicorn sets it, so a
    port left in TIME_WAIT by a server just stopped does not count as busy.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return False  # an unknown host: let uvicorn say so
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            # Other failures (an address not on this machine, a privileged port) are
            # uvicorn's to report.
            return err.errno == errno.EADDRINUSE
    return False


def forwarded_ips(value: str) -> str:
    """``--forwarded-allow-ips`` checked: comma-separated addresses or networks of the
    proxies whose ``X-Forwarded-For`` is believed, or ``*`` (any peer: only where no
    client can reach the server but through the proxy). Raises ``ValueError``."""
    entries = [item.strip() for item in value.split(",")]
    if not value.strip() or "" in entries:
        raise ValueError("--forwarded-allow-ips takes comma-separated IP addresses or networks")
    for entry in entries:
        if entry == "*":
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"--forwarded-allow-ips: {entry!r} is not an IP address or network "
                "(e.g. 127.0.0.1, 10.0.0.0/8, or * for any)"
            ) from None
    return ",".join(entries)


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (loopback: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="A Host header to answer besides localhost, 127.0.0.1 and [::1] (a name, "
            "name:port, or * for any); repeat for more. Others get a 400 (DNS rebinding).",
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            help="The proxy in front of the lab, as comma-separated IP addresses or networks "
            "(or *): only requests from these have their X-Forwarded-For believed as the "
            "client's address (the per-client caps count it). Off by default: every client "
            "is the address it connects from.",
        ),
    ] = None,
) -> None:
    """Start the web lab: play against MCTS in the browser and watch its tree grow."""
    try:
        import uvicorn

        from mctslab.web.app import create_app
        from mctslab.web.sessions import tune_process
        from mctslab.web.settings import LOOPBACK_HOSTS, Settings
    except ImportError as err:
        print(
            f"error: mctslab serve needs the web extra ({err.name} is missing): "
            "pip install 'mctslab[web]'",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_USER_ERROR) from None
    if not 0 <= port <= 65535:
        print(f"error: --port must be in [0, 65535], got {port}", file=sys.stderr)
        raise typer.Exit(EXIT_USER_ERROR)
    if forwarded_allow_ips is not None:
        try:
            forwarded_allow_ips = forwarded_ips(forwarded_allow_ips)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            raise typer.Exit(EXIT_USER_ERROR) from None
    if port != 0 and port_in_use(host, port):
        hint = f"; try --port {port + 1}" if port < 65535 else ""
        print(f"error: port {port} is in use{hint}", file=sys.stderr)
        raise typer.Exit(EXIT_USER_ERROR)
    shown = f"[{host}]" if ":" in host else host
    print(f"mctslab web lab: http://{shown}:{port}/  (Ctrl-C to stop)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(
            "warning: the lab is reachable from other machines; it has no authentication"
            + ("" if allowed_host else " (name it with --allowed-host to be answered)"),
            file=sys.stderr,
        )
    # The compiled engine is warmed by a child process (mctslab.web.warmup): a first AI
    # move then loads its code from numba's cache instead of waiting for the compiler.
    print(
        "compiling the engine for the built-in games in the background (minutes the first"
        " time after an install, seconds after; the page says when a move waits for it)",
        file=sys.stderr,
    )
    settings = Settings(allowed_hosts=(*LOOPBACK_HOSTS, *(allowed_host or ())), warm_engine=True)
    tune_process()
    # uvicorn believes X-Forwarded-For from 127.0.0.1 by default, which made any local
    # client setting the header a new client of the per-client caps: forwarded headers
    # are read only from the proxies the operator names.
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
    )
