"""The ``Host`` header check: the server answers only to the names it is served under.

The lab has no authentication and listens on loopback, which keeps other machines
out but not other web pages in the user's own browser: a page of ``evil.example``
whose name is then re-pointed to 127.0.0.1 (DNS rebinding) becomes same-origin with
the lab, and its scripts can drive the API. Their requests still say ``Host:
evil.example``, so :class:`HostCheck` refuses every request whose ``Host`` is not one
of ``Settings.allowed_hosts`` (by default the loopback names ``localhost``,
``127.0.0.1`` and ``[::1]``, with any port) with a 400 before any route runs.

An entry is a host name (any port), ``name:port`` (that port only) or ``*`` (any host:
for a server behind a proxy that checks the name itself).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HostCheck", "host_allowed"]


def _split(host: str) -> tuple[str, str | None]:
    """``(name, port)`` of a ``Host`` value: ``[::1]:8000`` -> ``("[::1]", "8000")``."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return host, None
        rest = host[end + 1 :]
        if rest and not rest.startswith(":"):
            # "[::1]evil.example" is no bracketed address: the whole is its name (which
            # no entry is), not [::1] with the rest ignored.
            return host, None
        return host[: end + 1], rest[1:] if rest else None
    name, colon, port = host.rpartition(":")
    if not colon or ":" in name:  # no port (or a bare IPv6 address, which Host never is)
        return host, None
    return name, port


def host_allowed(host: str | None, allowed: Iterable[str]) -> bool:
    """Whether a request with ``Host: host`` may be answered under ``allowed``."""
    entries = [a.strip().lower() for a in allowed]
    if "*" in entries:
        return True
    if not host:
        return False
    name, port = _split(host)
    if port is not None and not port.isdigit():
        return False
    for entry in entries:
        want, want_port = _split(entry)
        if want == name and (want_port is None or want_port == port):
            return True
    return False


class HostCheck:
    """ASGI middleware: a 400 (``{"detail": ...}``) for a request whose ``Host`` header is
    not allowed; every other request passes through."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        self.allowed = tuple(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = None
        for key, value in scope.get("headers", ()):
            if key == b"host":
                host = value.decode("latin-1")
                break
        if host_allowed(host, self.allowed):
            await self.app(scope, receive, send)
            return
        detail = (
            f"the Host header {host!r} is not one this server answers to; allowed: "
            f"{', '.join(self.allowed)} (mctslab serve --allowed-host adds one)"
        )
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
