"""The request body check: a body is bounded before it is read whole, and JSON that
cannot be parsed is the documented 422, whatever the reason.

One 95 MB JSON body held the event loop for 7 s (``/api/health`` waited): the server
read it whole and parsed it on the loop. :class:`BodyLimit` (ASGI middleware, inside the
``Host`` check) now

- refuses a body whose ``Content-Length`` is over ``Settings.max_body_bytes`` (413)
  before reading any of it, and a chunked body (no length) as soon as what has arrived
  passes the cap, so no request makes the server hold more than the cap;
- parses a JSON body it let through once, off the event loop where it is large (the cap
  bounds the route's own parse, on the loop, to milliseconds), and answers 422
  ``malformed JSON body: ...`` for JSON that Python's parser refuses other than as a
  syntax error: nested too deeply (a ``RecursionError``) or an integer of more digits
  than Python converts (a ``ValueError``), which FastAPI answered with a bare 400;
- hands the body it read to the application as one message.
"""

from __future__ import annotations

import json
import sys

import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit", "json_refusal"]

# JSON bodies larger than this are checked in a worker thread.
_THREAD_BYTES = 64 << 10


def _is_json(content_type: str | None) -> bool:
    """Whether FastAPI parses a body of this content type as JSON (none given, too)."""
    if not content_type:
        return True
    kind = content_type.split(";")[0].strip().lower()
    main, _, sub = kind.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


def json_refusal(body: bytes) -> str | None:
    """Why ``body`` cannot be parsed as JSON for a reason other than its syntax (the
    route's own parser reports a syntax error, as a 422 with its position), or ``None``."""
    try:
        json.loads(body)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        return "malformed JSON body: nested too deeply"
    except ValueError:  # an integer of more digits than int() converts
        return f"malformed JSON body: an integer of more than {sys.get_int_max_str_digits()} digits"
    return None


async def _answer(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: a body over ``max_bytes`` is a 413 (``{"detail": ...}``) before it
    is read whole; JSON nested too deeply or with too long an integer a 422; every other
    request passes through with its body (module docstring)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self, size: str) -> str:
        return (
            f"the request body is {size}, over the cap of {self.max_bytes} bytes (max_body_bytes)"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        length = headers.get(b"content-length", b"").decode("latin-1").strip()
        if length.isdigit() and int(length) > self.max_bytes:
            await _answer(send, 413, self._too_large(f"{int(length)} bytes"))
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: nothing to answer
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _answer(send, 413, self._too_large(f"more than {self.max_bytes} bytes"))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        content_type = headers.get(b"content-type", b"").decode("latin-1")
        if body and _is_json(content_type):
            if len(body) > _THREAD_BYTES:
                why = await anyio.to_thread.run_sync(json_refusal, body)
            else:
                why = json_refusal(body)
            if why is not None:
                await _answer(send, 422, why)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: a disconnect, when it comes

        await self.app(scope, replay, send)
