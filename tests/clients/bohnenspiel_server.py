"""A local Bohnenspiel game server speaking the course server's protocol, for the client's tests.

Its rules are its own, written from the issue's text and not from mctslab's game,
so that a game played through it checks the two implementations against each
other. It keeps every game's moves and the end (stores, winner, why), enforces
the time limit a move (300 s, configurable), and ends a game against a player
who moves out of turn, on the wrong side or from an empty pit, recording the
violation. Faults are injected per request by a hook (:class:`Fault`): drop
the connection or answer HTTP 500 before doing anything, apply a request and
then drop the answer, delay before or after applying, or take the whole server
away for a while (connections refused) before answering.

Run on its own for manual play: ``python tests/clients/bohnenspiel_server.py [PORT]``.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

PITS = 12
BEANS = 6
CAPTURED = (2, 4, 6)


# The rules ------------------------------------------------------------------------------------


def side(player: int) -> range:
    """Player 0 owns pits 0-5 (fields 1-6), player 1 pits 6-11 (fields 7-12)."""
    return range(6 * player, 6 * player + 6)


def play_pit(pits: list[int], stores: list[int], player: int, pit: int) -> bool:
    """Sow from ``pit`` for ``player``, capture, and apply the end rule; True if the game ended.

    The caller has checked that ``pit`` is a non-empty pit of ``player``'s side.
    """
    beans = pits[pit]
    pits[pit] = 0
    sown: set[int] = set()
    position = pit
    while beans > 0:
        # Every pit of the ring, the chosen one included (passed with 12 beans or more).
        position = (position + 1) % PITS
        pits[position] += 1
        sown.add(position)
        beans -= 1
    # Capture backwards from the last pit sown, over pits sown in this move.
    while position in sown and pits[position] in CAPTURED:
        stores[player] += pits[position]
        pits[position] = 0
        sown.discard(position)
        position = (position - 1) % PITS
    opponent = 1 - player
    if sum(pits[i] for i in side(opponent)) == 0:
        for i in side(player):
            stores[player] += pits[i]
            pits[i] = 0
        return True
    return False


# The games ------------------------------------------------------------------------------------

WAITING, RUNNING, FINISHED = 0, 1, 2


@dataclass
class ServerGame:
    """One game on the server, and everything that happened in it."""

    id: str
    players: list[str]
    created: float
    pits: list[int] = field(default_factory=lambda: [BEANS] * PITS)
    stores: list[int] = field(default_factory=lambda: [0, 0])
    status: int = WAITING
    to_move: int = 0
    #: Each move as (player, field).
    moves: list[tuple[int, int]] = field(default_factory=list)
    turn_started: float = 0.0
    start_announced: bool = False
    winner: int | None = None
    #: "board" (no beans left to move), "timeout", "out of turn", "wrong side",
    #: "empty pit", "bad field", "no second player".
    reason: str = ""
    #: Every move request the rules refused, and moves sent after the end.
    violations: list[str] = field(default_factory=list)

    def seat(self, name: str) -> int | None:
        return self.players.index(name) if name in self.players else None

    def finish(self, winner: int | None, reason: str) -> None:
        self.status, self.winner, self.reason = FINISHED, winner, reason


class Lobby:
    """The server's games and its protocol, independent of HTTP. Thread-safe."""

    def __init__(
        self,
        move_limit: float = 300.0,
        join_limit: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.move_limit = move_limit
        self.join_limit = join_limit
        self.clock = clock
        self.games: dict[str, ServerGame] = {}
        self._next_id = 1
        self._lock = threading.Lock()

    def game(self, game_id: str) -> ServerGame:
        return self.games[game_id]

    def _expire(self, g: ServerGame) -> None:
        now = self.clock()
        if g.status == RUNNING and now - g.turn_started > self.move_limit:
            g.finish(1 - g.to_move, "timeout")
        elif (
            g.status == WAITING
            and self.join_limit is not None
            and now - g.created > self.join_limit
        ):
            g.finish(None, "no second player")

    def _get(self, game_id: str) -> ServerGame:
        g = self.games.get(game_id)
        if g is None:
            raise LookupError(f"no game {game_id}")
        self._expire(g)
        return g

    def create(self, name: str) -> str:
        with self._lock:
            game_id = str(self._next_id)
            self._next_id += 1
            self.games[game_id] = ServerGame(game_id, [name], self.clock())
            return game_id

    def join(self, game_id: str, name: str) -> str:
        with self._lock:
            g = self.games.get(game_id)
            if g is None:
                return "0"
            self._expire(g)
            if g.status != WAITING or name in g.players:
                return "0"
            g.players.append(name)
            g.status, g.turn_started = RUNNING, self.clock()
            return "1"

    def open_games(self) -> str:
        with self._lock:
            for g in self.games.values():
                self._expire(g)
            return ";".join(g.id for g in self.games.values() if g.status == WAITING)

    def check(self, game_id: str, name: str) -> str:
        with self._lock:
            g = self._get(game_id)
            seat = g.seat(name)
            if seat is None:
                raise LookupError(f"{name} does not play game {game_id}")
            if g.status == FINISHED:
                return "-2"
            if g.status == WAITING:
                return "-4"
            if g.to_move != seat:
                return "-3"
            if not g.moves:
                if not g.start_announced:  # the creator hears once that the game can start
                    g.start_announced = True
                    return "0"
                return "-1"
            return str(g.moves[-1][1])

    def move(self, game_id: str, name: str, field_text: str) -> str:
        with self._lock:
            g = self._get(game_id)
            seat = g.seat(name)
            if seat is None:
                raise LookupError(f"{name} does not play game {game_id}")
            if g.status == FINISHED:
                g.violations.append(f"{name} sent field {field_text} after the game ended")
                return "0"
            if g.status == WAITING or g.to_move != seat:
                return self._forfeit(g, seat, "out of turn", field_text)
            try:
                number = int(field_text)
            except ValueError:
                number = 0
            if not 1 <= number <= PITS:
                return self._forfeit(g, seat, "bad field", field_text)
            pit = number - 1
            if pit not in side(seat):
                return self._forfeit(g, seat, "wrong side", field_text)
            if g.pits[pit] == 0:
                return self._forfeit(g, seat, "empty pit", field_text)
            g.moves.append((seat, number))
            if play_pit(g.pits, g.stores, seat, pit):
                s0, s1 = g.stores
                g.finish(None if s0 == s1 else (0 if s0 > s1 else 1), "board")
            else:
                g.to_move, g.turn_started = 1 - seat, self.clock()
            return "1"

    def _forfeit(self, g: ServerGame, seat: int, reason: str, field_text: str) -> str:
        g.violations.append(f"{g.players[seat]} sent field {field_text}: {reason}")
        g.finish(1 - seat if len(g.players) == 2 else None, reason)
        return "0"

    def state(self, game_id: str) -> str:
        with self._lock:
            return str(self._get(game_id).status)

    def state_message(self, game_id: str) -> str:
        with self._lock:
            g = self._get(game_id)
            if g.status == WAITING:
                return f"game {g.id}: waiting for a second player ({g.players[0]} created it)"
            s0, s1 = g.stores
            score = f"{g.players[0]} {s0} : {s1} {g.players[1]}"
            if g.status == RUNNING:
                who = g.players[g.to_move]
                return f"game {g.id}: move {len(g.moves) + 1}, {who} to move; {score}"
            result = "draw" if g.winner is None else f"{g.players[g.winner]} wins"
            if g.reason == "board":
                return f"game {g.id} over after {len(g.moves)} moves: {score}; {result}"
            return f"game {g.id} over ({g.reason}): {score}; {result}"


# HTTP -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """A request as the fault hook sees it: ``nth`` counts ``(name, endpoint)`` from 1."""

    seq: int
    path: str
    endpoint: str
    name: str | None
    nth: int


@dataclass(frozen=True)
class Fault:
    """What to do to a request.

    ``drop``: close the connection without doing anything; ``error``: answer
    HTTP 500 without doing anything; ``delay``: wait ``seconds``, then do it;
    ``drop_after``: do it, then close the connection without answering;
    ``delay_after``: do it, wait ``seconds``, then answer (after the client
    gave up on it, when ``seconds`` exceeds the client's timeout); ``restart``:
    stop listening for ``seconds`` (new connections are refused), then do it
    and answer on this request's connection, which stays open.
    """

    kind: str
    seconds: float = 0.0


FaultHook = Callable[[Request], Fault | None]

#: The endpoints and where the player's name is in their path (None: no name).
_NAME_AT = {
    "creategame": 0,
    "joingame": 1,
    "opengames": None,
    "check": 1,
    "move": 1,
    "state": None,
    "statemsg": None,
}


class LocalServer:
    """The :class:`Lobby` on HTTP, on a free port of 127.0.0.1, served from a thread."""

    def __init__(self, lobby: Lobby | None = None, fault: FaultHook | None = None) -> None:
        self.lobby = lobby or Lobby()
        self.fault = fault
        self.requests: list[Request] = []
        self._counts: dict[tuple[str | None, str], int] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = _free_port()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        handler = _handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def restart(self, down_for: float) -> None:
        """Stop listening for ``down_for`` seconds (connections are refused), then serve again."""
        self.stop()
        time.sleep(down_for)
        self.start()

    def record(self, path: str, endpoint: str, name: str | None) -> Request:
        with self._lock:
            key = (name, endpoint)
            self._counts[key] = self._counts.get(key, 0) + 1
            request = Request(len(self.requests) + 1, path, endpoint, name, self._counts[key])
            self.requests.append(request)
            return request

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _handler(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    lobby = server.lobby

    def route(endpoint: str, args: list[str]) -> str:
        """The protocol's answer; LookupError for an unknown game or player (HTTP 404)."""
        if endpoint == "creategame" and len(args) == 1:
            return lobby.create(args[0])
        if endpoint == "joingame" and len(args) == 2:
            return lobby.join(args[0], args[1])
        if endpoint == "opengames" and not args:
            return lobby.open_games()
        if endpoint == "check" and len(args) == 2:
            return lobby.check(args[0], args[1])
        if endpoint == "move" and len(args) == 3:
            return lobby.move(args[0], args[1], args[2])
        if endpoint == "state" and len(args) == 1:
            return lobby.state(args[0])
        if endpoint == "statemsg" and len(args) == 1:
            return lobby.state_message(args[0])
        raise LookupError(f"no such endpoint: {endpoint}/{'/'.join(args)}")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = [unquote(p) for p in self.path.split("?")[0].strip("/").split("/")]
            if len(parts) < 2 or parts[0] != "api" or parts[1] not in _NAME_AT:
                self._answer(404, "not found")
                return
            endpoint, args = parts[1], parts[2:]
            at = _NAME_AT[endpoint]
            name = args[at] if at is not None and at < len(args) else None
            fault = server.fault(server.record(self.path, endpoint, name)) if server.fault else None
            kind = fault.kind if fault else ""
            if kind == "drop":
                self.close_connection = True
                return
            if kind == "error":
                self._answer(500, "internal server error (injected)")
                return
            if kind == "delay" and fault:
                time.sleep(fault.seconds)
            if kind == "restart" and fault:
                server.restart(fault.seconds)
            try:
                status, body = 200, route(endpoint, args)
            except LookupError as err:
                status, body = 404, str(err)
            if kind == "drop_after":
                self.close_connection = True
                return
            if kind == "delay_after" and fault:
                time.sleep(fault.seconds)
            with contextlib.suppress(OSError):  # the client may be gone
                self._answer(status, body)

        def _answer(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: the tests read server.requests

    return Handler


@contextlib.contextmanager
def serving(lobby: Lobby | None = None, fault: FaultHook | None = None) -> Iterator[LocalServer]:
    """A :class:`LocalServer` started for the ``with`` block."""
    with LocalServer(lobby, fault) as server:
        yield server


if __name__ == "__main__":
    srv = LocalServer()
    if len(sys.argv) > 1:
        srv.port = int(sys.argv[1])
    srv.start()
    print(f"Bohnenspiel server on {srv.url} (Ctrl-C to stop)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()
    srv.stop()
