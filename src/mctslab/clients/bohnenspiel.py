"""A client for the Bohnenspiel course's online game server: play a game there with any player.

The course's server speaks plain HTTP GET; every answer is a short text:

================================  =====================================================
``/api/creategame/{name}``        a new game's id (its creator is player 0 and moves first)
``/api/joingame/{id}/{name}``     ``1`` joined (as player 1), ``0`` refused
``/api/opengames``                the ids of the games waiting for a second player, ``;``-separated
``/api/check/{id}/{name}``        ``0`` the game can start, ``-1`` you make the first move,
                                  ``-2`` the game is over, ``-3`` not your turn, ``-4`` waiting
                                  for the second player, ``1``..``12`` the opponent's last
                                  field (so it is your turn)
``/api/move/{id}/{name}/{field}`` play ``field`` (1-12)
``/api/state/{id}``               ``0`` waiting, ``1`` running, ``2`` finished
``/api/statemsg/{id}``            a message describing the game's state
================================  =====================================================

The server allows 300 s a move, and a player who moves out of turn or on the
wrong side loses. So the client (:class:`BohnenspielClient`):

- keeps its own board, a :mod:`mctslab.games.bohnenspiel` state, in step with
  the server from the opponent's fields (field ``f`` is action ``f - 1``): a field
  that is not a legal move for the opponent on that board means the two boards
  disagree, and the client stops with :class:`ProtocolError` rather than send a
  move chosen on a wrong board;
- sends a move only after ``check`` said it is its turn, and only once a turn.
  A move request that fails may still have reached the server (the answer was
  lost), so it is never simply repeated: the client asks ``check`` again and
  resends only if the server is still waiting for that move (see
  :meth:`BohnenspielClient._reconcile`);
- retries every other request that fails (a dropped connection, a timeout,
  connection refused, HTTP 5xx) after an exponential backoff with jitter
  (``retry_base * 2**k``, at most ``retry_max``), and gives up with
  :class:`ServerUnavailableError` once requests have failed for ``give_up``
  seconds in a row;
- polls politely: every ``poll`` seconds at first, backing off by half again
  up to ``poll_max`` while the opponent thinks or has not joined yet.

The transport is a function ``get(path) -> str`` (:func:`http_transport` by
default, on :mod:`urllib`), so tests can inject faults; it raises
:class:`TransportError` for a failure worth retrying.
"""

from __future__ import annotations

import http.client
import logging
import math
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Final

from mctslab.core.errors import InvalidConfigError
from mctslab.games.bohnenspiel import Bohnenspiel
from mctslab.games.kernels import KernelState
from mctslab.players.player import MCTSPlayer, Player, make_player
from mctslab.players.time_control import timed_spec

__all__ = [
    "CAN_START",
    "FIRST_MOVE",
    "GAME_OVER",
    "MOVE_TIME_LIMIT",
    "NOT_YOUR_TURN",
    "WAITING_FOR_OPPONENT",
    "BohnenspielClient",
    "ClientConfig",
    "ClientError",
    "GameReport",
    "JoinRefusedError",
    "ProtocolError",
    "ServerUnavailableError",
    "Transport",
    "TransportError",
    "http_transport",
    "play_online",
]

logger = logging.getLogger(__name__)

#: ``/api/check`` answers (``1``..``12`` are the opponent's last field).
CAN_START: Final = 0
FIRST_MOVE: Final = -1
GAME_OVER: Final = -2
NOT_YOUR_TURN: Final = -3
WAITING_FOR_OPPONENT: Final = -4
#: ``/api/state`` answers.
STATE_WAITING, STATE_RUNNING, STATE_FINISHED = 0, 1, 2
#: The server's time limit for one move, in seconds.
MOVE_TIME_LIMIT: Final = 300.0

#: A transport: ``get("/api/state/12")`` returns the answer's text, stripped.
Transport = Callable[[str], str]

_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")  # safe in a URL path as it is
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class TransportError(Exception):
    """A request that got no usable answer; worth retrying.

    ``maybe_applied`` says whether the server may have acted on it all the same:
    ``False`` when it never got the request (connection refused) or said it
    failed (HTTP 500, 503); ``True`` when the answer was lost (a timeout, a
    dropped connection, a gateway's 502 or 504).
    """

    def __init__(self, message: str, *, maybe_applied: bool) -> None:
        super().__init__(message)
        self.maybe_applied = maybe_applied


class ClientError(Exception):
    """The game could not be played on: the message says why (one line)."""


class ProtocolError(ClientError):
    """An answer the protocol does not allow, or one that contradicts the client's board."""


class JoinRefusedError(ClientError):
    """``joingame`` answered 0: no open game with that id, or the name is taken."""


class ServerUnavailableError(ClientError):
    """Requests kept failing for longer than the give-up limit."""


@dataclass(frozen=True)
class ClientConfig:
    """One online game: where, who, which player, and how patiently. Durations in seconds.

    ``game_id`` ``None`` creates a game (we are player 0 and move first); an id
    joins that game (we are player 1). ``player`` is any player spec
    (:func:`mctslab.players.player.make_player`); with ``time_per_move`` a searching spec
    without a budget of its own searches that long with no iteration cap, as in the arena
    (:func:`mctslab.players.time_control.timed_spec`). Bad values raise
    :class:`~mctslab.core.errors.InvalidConfigError`.
    """

    server: str
    name: str
    game_id: str | None = None
    player: str = "mcts"
    time_per_move: float | None = None
    seed: int = 0
    #: First poll interval while waiting; it grows by half up to ``poll_max``.
    poll: float = 0.5
    poll_max: float = 5.0
    #: Seconds before one request is abandoned (and counted as failed).
    request_timeout: float = 30.0
    #: Backoff after the k-th failure in a row: ``retry_base * 2**k``, capped, with jitter.
    retry_base: float = 0.5
    retry_max: float = 30.0
    #: Stop once requests have failed for this long without one success.
    give_up: float = 600.0

    def __post_init__(self) -> None:
        url = urllib.parse.urlsplit(self.server)
        if url.scheme not in ("http", "https") or not url.netloc:
            raise InvalidConfigError(
                f"bad server URL {self.server!r}: write http://host[:port], "
                "e.g. http://bohnenspiel.informatik.uni-mannheim.de"
            )
        if not _NAME.fullmatch(self.name):
            raise InvalidConfigError(
                f"bad player name {self.name!r}: use 1 to 64 letters, digits, '-', '_' or '.'"
            )
        if self.game_id is not None and not _NAME.fullmatch(self.game_id):
            raise InvalidConfigError(f"bad game id {self.game_id!r}")
        for key in ("poll", "poll_max", "request_timeout", "retry_base", "retry_max", "give_up"):
            value = getattr(self, key)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise InvalidConfigError(
                    f"{key} must be a positive number of seconds, got {value!r}"
                )
        if self.time_per_move is not None and not (
            math.isfinite(self.time_per_move) and self.time_per_move > 0
        ):
            raise InvalidConfigError(
                f"time per move must be a positive number of seconds, got {self.time_per_move!r}"
            )
        if self.time_per_move is not None and self.time_per_move >= MOVE_TIME_LIMIT:
            raise InvalidConfigError(
                f"time per move {self.time_per_move:g} s: the server allows {MOVE_TIME_LIMIT:g} s "
                "a move, network included"
            )

    @property
    def spec(self) -> str:
        """The player spec as played: with ``time=<time_per_move>`` where it had no budget."""
        return timed_spec(self.player, self.time_per_move)


@dataclass(frozen=True)
class GameReport:
    """How an online game ended, as the client saw it.

    ``stores`` are the stores of players 0 and 1 on the client's board;
    ``board_finished`` says whether that board reached the end of the game
    (otherwise the game ended on the server for another reason: a timeout, a
    forfeit; ``message`` says which). When the opponent's move ended the game
    the server never shows that move (``check`` answers -2); the client then
    plays the only move that ends the game, or one of several that end it with
    the same stores, and says so with ``inferred_last_move``.
    """

    game_id: str
    name: str
    seat: int
    actions: tuple[int, ...]
    pits: tuple[int, ...]
    stores: tuple[int, int]
    board_finished: bool
    inferred_last_move: bool
    server_state: int
    message: str

    @property
    def our_store(self) -> int:
        return self.stores[self.seat]

    @property
    def their_store(self) -> int:
        return self.stores[1 - self.seat]

    @property
    def outcome(self) -> str:
        """``"win"``, ``"loss"`` or ``"draw"`` on the board, ``"unknown"`` if it did not end."""
        if not self.board_finished:
            return "unknown"
        if self.our_store == self.their_store:
            return "draw"
        return "win" if self.our_store > self.their_store else "loss"

    def summary(self) -> str:
        """One line: the stores and the result, then the server's message."""
        if self.board_finished:
            word = {"win": "we win", "loss": "we lose", "draw": "a draw"}[self.outcome]
            board = f"{word} {self.our_store}-{self.their_store}"
            if self.inferred_last_move:
                board += " (the opponent's last move inferred)"
        else:
            board = (
                f"the game ended off the board after {len(self.actions)} moves, "
                f"stores {self.our_store}-{self.their_store} (ours first)"
            )
        return (
            f"game {self.game_id}: {self.name} (player {self.seat}) {board}; "
            f"server: {self.message or '(no message)'}"
        )


def http_transport(server: str, timeout: float = 30.0) -> Transport:
    """``get(path)`` on :mod:`urllib`: the answer's text, or :class:`TransportError`.

    HTTP 5xx, 408 and 429, timeouts, refused and dropped connections raise
    :class:`TransportError` (retried by the client); any other HTTP error is a
    :class:`ProtocolError`. A loopback server is reached without the
    environment's proxy.
    """
    base = server.rstrip("/")
    host = urllib.parse.urlsplit(base).hostname or ""
    handlers = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []
    opener = urllib.request.build_opener(*handlers)
    headers = {"User-Agent": "mctslab-bohnenspiel-client"}

    def get(path: str) -> str:
        request = urllib.request.Request(base + path, headers=headers)
        try:
            with opener.open(request, timeout=timeout) as response:
                body: bytes = response.read()
        except urllib.error.HTTPError as err:
            if err.code >= 500 or err.code in (408, 429):
                lost = err.code in (408, 502, 504)  # the request may have gone through
                raise TransportError(f"HTTP {err.code} {err.reason}", maybe_applied=lost) from None
            raise ProtocolError(
                f"the server answered HTTP {err.code} {err.reason} to {path}"
            ) from None
        except urllib.error.URLError as err:  # before the request was sent, mostly
            refused = isinstance(err.reason, ConnectionRefusedError | socket.gaierror)
            raise TransportError(
                f"cannot reach {base}: {err.reason}", maybe_applied=not refused
            ) from None
        except (OSError, http.client.HTTPException) as err:  # timeouts, resets, lost answers
            raise TransportError(
                f"{type(err).__name__}: {err}" if str(err) else type(err).__name__,
                maybe_applied=True,
            ) from None
        return body.decode("utf-8", errors="replace").strip()

    return get


@dataclass
class _Streak:
    """Failures in a row: how many, and since when (the give-up clock)."""

    count: int = 0
    since: float | None = None


class _Resolution(Enum):
    """What a re-check after a failed move request showed."""

    APPLIED = "applied"
    NOT_APPLIED = "not applied"
    GAME_OVER = "game over"


class BohnenspielClient:
    """Plays one game on the server (see the module docstring for the rules it keeps).

    ``get`` defaults to :func:`http_transport` on ``config.server``; ``player``
    defaults to ``make_player(config.spec, ...)``. ``sleep`` and ``clock`` are
    injectable so that tests run without waiting.
    """

    def __init__(
        self,
        config: ClientConfig,
        get: Transport | None = None,
        player: Player | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        log: logging.Logger = logger,
    ) -> None:
        self.config = config
        self.game = Bohnenspiel()
        self.state: KernelState = self.game.new_initial_state()
        self.player: Player = player or make_player(config.spec, self.game.info, config.seed)
        self.game_id: str | None = config.game_id
        #: 0 for the creator, 1 for the joiner; known once created or joined.
        self.seat: int | None = None
        self.log = log
        self._get = get or http_transport(config.server, config.request_timeout)
        self._sleep = sleep
        self._clock = clock
        self._rng = random.Random(config.seed)  # backoff jitter only
        self._streak = _Streak()  # failed requests in a row
        self._uncertain = False  # a failure in the last _call may have been applied
        #: The opponent field that began the current turn (None before their first move).
        self._last_opponent_field: int | None = None
        self._our_last_field: int | None = None
        self._inferred = False

    # Requests ---------------------------------------------------------------------------------

    def _call(self, path: str) -> str:
        """GET ``path``, retrying failures with backoff until the give-up limit."""
        self._uncertain = False
        while True:
            try:
                answer = self._get(path)
            except TransportError as err:
                self._uncertain |= err.maybe_applied
                self._after_failure(path, err, self._streak)
                continue
            self._streak = _Streak()
            return answer.strip()

    def _after_failure(self, path: str, err: TransportError, streak: _Streak) -> None:
        """Count a failure in ``streak``; sleep the backoff, or give up past the limit."""
        now = self._clock()
        if streak.since is None:
            streak.since = now
        failing = now - streak.since
        if failing >= self.config.give_up:
            raise ServerUnavailableError(
                f"gave up after {failing:.3g} s of failed requests to {self.config.server} "
                f"({streak.count + 1} in a row); last: {path}: {err}"
            )
        cap = min(self.config.retry_max, self.config.retry_base * 2.0**streak.count)
        # "Equal jitter": half the delay fixed, half random, so that clients who lost
        # the server together do not all come back at the same instant.
        delay = min(cap * (0.5 + 0.5 * self._rng.random()), self.config.give_up - failing)
        streak.count += 1
        self.log.warning("GET %s failed (%s); retry %d in %.2f s", path, err, streak.count, delay)
        self._sleep(max(0.0, delay))

    def _int(self, path: str, answer: str, low: int, high: int) -> int:
        try:
            value = int(answer)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise ProtocolError(
                f"unexpected answer {answer[:80]!r} to {path} (expected {low}..{high}); "
                "is --server the Bohnenspiel game server?"
            )
        return value

    def _path(self, endpoint: str, *parts: object) -> str:
        return "/api/" + "/".join([endpoint, *(str(p) for p in parts)])

    def create_game(self) -> str:
        """``creategame``: a new game, with us as player 0. Returns its id."""
        path = self._path("creategame", self.config.name)
        answer = self._call(path)
        if self._uncertain:
            # Not idempotent: a lost answer may have left a game nobody plays.
            self.log.warning("an earlier creategame request may have created another game")
        if not _NAME.fullmatch(answer):
            raise ProtocolError(
                f"unexpected answer {answer[:80]!r} to {path} (expected a game id); "
                "is --server the Bohnenspiel game server?"
            )
        self.game_id, self.seat = answer, 0
        self.log.info(
            "created game %s as %s: player 0, fields 1-6, we move first", answer, self.config.name
        )
        return answer

    def join_game(self, game_id: str) -> None:
        """``joingame``: join ``game_id`` as player 1; :class:`JoinRefusedError` if refused."""
        path = self._path("joingame", game_id, self.config.name)
        answer = self._call(path)
        joined = self._int(path, answer, 0, 1) == 1
        if not joined and self._uncertain:
            # Our lost first request may be what filled the game: ask whether we are in it.
            self.game_id = game_id
            try:
                code = self.check()
            except ProtocolError:
                code = None
            joined = code is not None and (code == NOT_YOUR_TURN or 1 <= code <= 6)
        if not joined:
            raise JoinRefusedError(
                f"the server refused to join game {game_id} as {self.config.name} (answer 0): "
                "no open game with that id, or the name is taken"
            )
        self.game_id, self.seat = game_id, 1
        self.log.info("joined game %s as %s: player 1, fields 7-12", game_id, self.config.name)

    def open_games(self) -> list[str]:
        """``opengames``: the ids of the games waiting for a second player."""
        answer = self._call(self._path("opengames"))
        return [g.strip() for g in answer.split(";") if g.strip()]

    def check(self) -> int:
        """``check``: one of the codes above, or the opponent's last field 1..12."""
        path = self._path("check", self._id(), self.config.name)
        return self._int(path, self._call(path), WAITING_FOR_OPPONENT, 12)

    def server_state(self) -> int:
        """``state``: 0 waiting, 1 running, 2 finished."""
        path = self._path("state", self._id())
        return self._int(path, self._call(path), STATE_WAITING, STATE_FINISHED)

    def state_message(self) -> str:
        """``statemsg``: the server's description of the game."""
        return self._call(self._path("statemsg", self._id()))

    def _id(self) -> str:
        if self.game_id is None:
            raise ProtocolError("no game yet: create or join one first")
        return self.game_id

    # Playing ----------------------------------------------------------------------------------

    def play(self) -> GameReport:
        """Create or join the game (as configured) and play it to the end."""
        if self.config.game_id is None:
            self.create_game()
        else:
            self.join_game(self.config.game_id)
        return self.play_joined()

    def play_joined(self) -> GameReport:
        """Play the game already created or joined, to the end; report how it ended."""
        seat = self.seat
        if seat is None:
            raise ProtocolError("no game yet: create or join one first")
        delay = self.config.poll
        waiting_since = self._clock()
        said: int | None = None
        while not self.state.is_terminal():
            code = self.check()
            if code == GAME_OVER:
                break
            if self._is_wait(code, seat):
                if code != said:  # say it once, not at every poll
                    said = code
                    what = {WAITING_FOR_OPPONENT: "a second player", CAN_START: "the start"}
                    level = logging.INFO if code in what else logging.DEBUG
                    self.log.log(level, "waiting for %s", what.get(code, "the opponent's move"))
                self._sleep(delay)
                delay = min(self.config.poll_max, delay * 1.5)
                continue
            said = None
            if code != FIRST_MOVE:
                self._opponent_moved(code, seat, self._clock() - waiting_since)
            elif seat != 0 or self.state.history():
                raise ProtocolError(
                    f"the server says we make the first move, but we are player {seat} "
                    f"after {len(self.state.history())} moves"
                )
            if self.state.is_terminal():
                # The server showed the opponent's move yet says it is our turn.
                raise ProtocolError(
                    "the opponent's move ended the game on our board, but the server "
                    "says it is our turn"
                )
            if self._our_turn(seat) is _Resolution.GAME_OVER:
                break
            delay = self.config.poll
            waiting_since = self._clock()
        return self._finish(seat)

    def _is_wait(self, code: int, seat: int) -> bool:
        """Whether ``code`` means "not our turn yet" (it echoes our own move on some servers)."""
        if code in (WAITING_FOR_OPPONENT, CAN_START, NOT_YOUR_TURN):
            return True
        own_side = 6 * seat < code <= 6 * seat + 6
        return own_side and code == self._our_last_field and self._to_move() != seat

    def _to_move(self) -> int:
        return self.state.current_player()

    def _opponent_moved(self, field: int, seat: int, waited: float) -> None:
        """Apply the opponent's ``field`` to our board, or stop if it cannot be their move."""
        opponent = 1 - seat
        action = field - 1
        if self._to_move() != opponent:
            raise ProtocolError(
                f"the server reports the opponent's field {field}, but on our board it is "
                f"player {self._to_move()}'s turn (we are player {seat})"
            )
        if action not in self.state.legal_actions():
            legal = ", ".join(str(a + 1) for a in self.state.legal_actions())
            raise ProtocolError(
                f"the server reports the opponent played field {field}, which is not a legal "
                f"move for player {opponent} on our board (legal fields: {legal}): our board "
                f"and the server's disagree after moves {self._fields()}; stopping rather "
                "than sending a move chosen on the wrong board"
            )
        self._apply(action)
        self._last_opponent_field = field
        self.log.info(
            "move %d: opponent plays field %d (after %.1f s); stores %s",
            len(self.state.history()), field, waited, self._stores_text(seat),
        )  # fmt: skip
        self.log.debug("board:\n%s", self.state)

    def _our_turn(self, seat: int) -> _Resolution:
        """Choose a move and make sure the server gets it exactly once."""
        started = self._clock()
        action = self.player.choose(self.state.clone())
        thought = self._clock() - started
        if action not in self.state.legal_actions() or not 6 * seat <= action < 6 * seat + 6:
            raise ProtocolError(
                f"{self.player.name} chose action {action}, not a legal move for player {seat}"
            )
        field = action + 1
        if thought > MOVE_TIME_LIMIT:
            self.log.warning(
                "%s thought %.0f s, over the server's %g s a move", self.player.name, thought,
                MOVE_TIME_LIMIT,
            )  # fmt: skip
        path = self._path("move", self._id(), self.config.name, field)
        resends = 0
        # Failed move requests form their own streak: the checks in between succeed,
        # and must not reset the backoff or the give-up clock of the move.
        streak = _Streak()
        while True:
            try:
                self._get(path)  # once: a lost answer is resolved by _reconcile, not a retry
                outcome = _Resolution.APPLIED
            except TransportError as err:
                self._after_failure(path, err, streak)
                outcome = self._reconcile(action, err)
                self.log.info("after the failed move request: our move was %s", outcome.value)
            if outcome is not _Resolution.NOT_APPLIED:
                break
            resends += 1
        if outcome is _Resolution.APPLIED:
            self._apply(action)
            self._our_last_field = field
            self.log.info(
                "move %d: we play field %d (%s, %.1f s%s)%s; stores %s",
                len(self.state.history()), field, self.player.name, thought,
                self._search_note(), f", sent {resends + 1} times" if resends else "",
                self._stores_text(seat),
            )  # fmt: skip
            self.log.debug("board:\n%s", self.state)
        return outcome

    def _reconcile(self, action: int, err: TransportError) -> _Resolution:
        """After a failed move request: did the server apply our move? Ask ``check``.

        ``-3`` (or our own field echoed) means it did; ``-1`` (our first move still
        awaited) that it did not. A field of the opponent's means the server is
        waiting for a move from us: a reply to our move if it differs from the
        field that began this turn, else the same old question, unless that field
        cannot be a reply (its pit is empty once our move is played). Only when
        both readings fit does the kind of failure decide: a lost answer (timeout,
        dropped connection) most likely followed an applied move, an error answer
        (HTTP 500, 503) or a refused connection an unapplied one.
        """
        code = self.check()
        after = self.state.child(action)
        field = action + 1
        if code in (NOT_YOUR_TURN, field):
            return _Resolution.APPLIED
        if code == GAME_OVER:
            return _Resolution.APPLIED if after.is_terminal() else _Resolution.GAME_OVER
        if code in (FIRST_MOVE, CAN_START, WAITING_FOR_OPPONENT):
            if code == WAITING_FOR_OPPONENT or self.state.history():
                raise ProtocolError(f"check answered {code} while we were making a move")
            return _Resolution.NOT_APPLIED
        last = self._last_opponent_field
        if last is None or code != last:
            return _Resolution.APPLIED  # the opponent has replied to our move
        if after.is_terminal() or code - 1 not in after.legal_actions():
            return _Resolution.NOT_APPLIED
        guess = _Resolution.APPLIED if err.maybe_applied else _Resolution.NOT_APPLIED
        self.log.warning(
            "cannot tell whether our move (field %d) reached the server: the opponent may "
            "have replied with field %d again; assuming it was %s (%s)",
            field, code, guess.value, err,
        )  # fmt: skip
        return guess

    def _apply(self, action: int) -> None:
        self.state.apply_action(action)
        self.player.inform(action)

    def _finish(self, seat: int) -> GameReport:
        """The game is over on the server: complete our board if we can, and report."""
        server_state = self.server_state()
        message = self.state_message()
        if self.state.is_terminal() and server_state != STATE_FINISHED:
            # Only mctslab's ply limit ends a game the server would go on with.
            self.log.warning(
                "our board says the game is over, the server does not (state %d)", server_state
            )
        if not self.state.is_terminal() and self._to_move() == 1 - seat:
            self._infer_last_move(seat)
        report = GameReport(
            game_id=self._id(),
            name=self.config.name,
            seat=seat,
            actions=tuple(self.state.history()),
            pits=tuple(self.game.pits(self.state)),
            stores=(self.game.stores(self.state)[0], self.game.stores(self.state)[1]),
            board_finished=self.state.is_terminal(),
            inferred_last_move=self._inferred,
            server_state=server_state,
            message=message,
        )
        self.log.info("%s", report.summary())
        return report

    def _infer_last_move(self, seat: int) -> None:
        """The server hides the move that ended the game: play it if the board tells which."""
        ends = [a for a in self.state.legal_actions() if self.state.child(a).is_terminal()]
        finals = {tuple(self.game.stores(self.state.child(a))) for a in ends}
        if len(finals) != 1:
            return  # no such move (a timeout or a forfeit ended it), or no way to tell
        self._apply(ends[0])
        self._inferred = True
        fields = ", ".join(str(a + 1) for a in ends)
        self.log.info(
            "the game is over without the opponent's last field: field %s ends it; "
            "stores %s", fields, self._stores_text(seat),
        )  # fmt: skip

    # Presentation -----------------------------------------------------------------------------

    def _stores_text(self, seat: int) -> str:
        stores = self.game.stores(self.state)
        return f"{stores[seat]}-{stores[1 - seat]} (ours first)"

    def _fields(self) -> str:
        return ",".join(str(a + 1) for a in self.state.history()) or "(none)"

    def _search_note(self) -> str:
        if isinstance(self.player, MCTSPlayer) and self.player.last_result is not None:
            r = self.player.last_result
            return f", {r.iterations} iterations, value {r.value:+.2f}"
        return ""


def play_online(config: ClientConfig, get: Transport | None = None) -> GameReport:
    """Create or join a game on ``config.server`` and play it to the end."""
    return BohnenspielClient(config, get).play()
