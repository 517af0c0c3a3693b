"""The analysis protocol's requests: one JSON line read into a :class:`Query` (the
positions to analyse and how) or an :class:`Action` (``terminate``, ``query_version``...).

Apart from the engine (:mod:`mctslab.cli.katago.engine`), which searches, and the
answers (:mod:`mctslab.cli.katago.answer`), as KataGo's ``analysis.cpp`` reads a
request before it queues it: this module knows the fields of KataGo's
``docs/Analysis_Engine.md`` and refuses a bad one with :class:`QueryError` (its
``field``, the id of its query), or notes a field read but not honoured as a
:class:`Notice` (the engine writes it as a ``warning``). The messages are KataGo's
where KataGo has one (``Illegal move 3: D4``, ``Invalid turn number: 9``).

Go is built from ``boardXSize`` (= ``boardYSize``: the board is square, 5 to 19),
``komi`` and ``rules``, the nearest rules :class:`~mctslab.games.go.Go` plays
(:func:`parse_rules`). ``initialStones`` are placed as moves, the other colour's turn
handed over between them (:meth:`Go.hand_over <mctslab.games.go.Go.hand_over>`, a pass
that does not count), and a move of the colour not to move hands the turn over the
same way (KataGo clears its history there). A position over by two passes is analysed
resumed, as ``mctslab gtp`` resumes a game (the two passes taken back). Any other
two-player game of perfect information is named by the ``game`` field (mctslab's
extension, with ``gameParams``); its moves are its own move names.

>>> limits = Limits()
>>> query = read_request(
...     '{"id":"a","moves":[["B","C3"],["W","D4"]],"rules":"chinese","komi":7.5,'
...     '"boardXSize":5,"boardYSize":5,"analyzeTurns":[0,2]}', limits)
>>> [(p.turn, p.state.history()) for p in query.positions]
[(0, []), (2, [12, 18])]
>>> [n.field for n in query.warnings]  # Chinese rules: handicap bonus, no handicap
[]
>>> read_request('{"id":"a","moves":[["B","Z9"]],"rules":"chinese",'
...     '"boardXSize":5,"boardYSize":5}', limits)
Traceback (most recent call last):
...
mctslab.cli.katago.query.QueryError: Could not parse board location: Z9
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from mctslab.core.errors import MctslabError
from mctslab.core.game import Game, State, has_chance_nodes, player_label
from mctslab.core.infoset import is_perfect_information
from mctslab.core.registry import make
from mctslab.games.go import Go
from mctslab.games.go.game import KoRule
from mctslab.games.kernels import KernelState
from mctslab.players.gtp import action_to_vertex, vertex_to_action

__all__ = [
    "ACTIONS",
    "PERSPECTIVES",
    "Action",
    "Limits",
    "Notice",
    "Position",
    "Query",
    "QueryError",
    "parse_rules",
    "read_request",
]

#: The special actions (KataGo's five).
ACTIONS = ("query_version", "query_models", "clear_cache", "terminate", "terminate_all")
#: ``reportAnalysisWinratesAs``: whose winrates, scores and ownership are reported.
PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")
#: The bound of ``priority`` (KataGo's: about 2^62 either way).
MAX_PRIORITY = 0x3FFFFFFFFFFFFFFF
#: The PV's length without its first move (KataGo's ``analysisPVLen`` default).
PV_LEN = 15

#: Fields read and honoured.
FIELDS = frozenset(
    {
        "id",
        "moves",
        "initialStones",
        "initialPlayer",
        "rules",
        "komi",
        "boardXSize",
        "boardYSize",
        "analyzeTurns",
        "maxVisits",
        "analysisPVLen",
        "includeOwnership",
        "includePolicy",
        "reportDuringSearchEvery",
        "firstReportDuringSearchAfter",
        "priority",
        "priorities",
        "overrideSettings",
        "game",
        "gameParams",
    }
)
#: KataGo's fields that this engine reads but does not honour: a warning when set.
UNSUPPORTED = frozenset(
    {
        "whiteHandicapBonus",
        "rootPolicyTemperature",
        "rootFpuReductionMax",
        "includeOwnershipStdev",
        "includeMovesOwnership",
        "includeMovesOwnershipStdev",
        "includePVVisits",
        "includeNoResultValue",
        "avoidMoves",
        "allowMoves",
    }
)
#: Go's fields, ignored (a warning) for another game.
GO_FIELDS = ("rules", "komi", "boardXSize", "boardYSize")


class QueryError(MctslabError):
    """A request refused: KataGo's ``{"error": message, "field": field, "id": id}``
    (``field`` and ``ident`` ``None`` where unknown)."""

    def __init__(self, message: str, field: str | None = None, ident: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.ident = ident


@dataclass(frozen=True)
class Notice:
    """A warning about a field of a query that still runs."""

    field: str
    message: str


@dataclass(frozen=True)
class Limits:
    """The engine's defaults and caps, which every query is read against.

    Attributes:
        visits: ``maxVisits`` when a query gives none.
        max_visits: the most visits a query may ask for (more is capped, with a warning).
        max_time: the seconds one position may search (``overrideSettings.maxTime``
            lowers it).
        perspective: ``reportAnalysisWinratesAs`` when a query does not override it.
    """

    visits: int = 500
    max_visits: int = 200_000
    max_time: float = 10.0
    perspective: str = "BLACK"


@dataclass(frozen=True)
class Position:
    """One position of a query: its turn number, its state and its priority."""

    turn: int
    state: State
    priority: int


@dataclass(frozen=True)
class Query:
    """An analysis query read and checked: its positions and how to search and report
    them (see :mod:`mctslab.cli.katago`)."""

    ident: str
    game: Game
    positions: tuple[Position, ...]
    max_visits: int
    max_time: float
    report_every: float | None
    first_report: float | None
    include_ownership: bool
    include_policy: bool
    pv_len: int
    perspective: str
    warnings: tuple[Notice, ...]

    @property
    def is_go(self) -> bool:
        """Whether the query's game is Go (KataGo's own, with its stones and rules)."""
        return isinstance(self.game, Go)


@dataclass(frozen=True)
class Action:
    """A special action: ``action`` one of :data:`ACTIONS`, ``raw`` the request (which
    the answer echoes), ``terminate_id`` and ``turns`` what a terminate names."""

    ident: str
    action: str
    raw: dict[str, Any]
    terminate_id: str | None = None
    turns: frozenset[int] | None = None


# The request -----------------------------------------------------------------------------------


def read_request(line: str, limits: Limits) -> Query | Action:
    """The query or action of one input line, or :class:`QueryError`."""
    try:
        data = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError) as err:
        shown = line if len(line) <= 200 else line[:200] + "..."
        raise QueryError(f"{err} - could not parse input line as json request: {shown}") from None
    if not isinstance(data, dict):
        raise QueryError(
            "Request line was valid json but was not an object, ignoring: " + json.dumps(data)[:200]
        )
    ident = data.get("id")
    if not isinstance(ident, str):
        raise QueryError('Request must have a string "id" field')
    try:
        if "action" in data:
            return _action(data, ident)
        return _query(data, ident, limits)
    except QueryError as err:
        err.ident = ident
        raise


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _action(data: dict[str, Any], ident: str) -> Action:
    action = data["action"]
    if action not in ACTIONS:
        raise QueryError(
            "'action' field must be 'query_version' or 'query_models' or 'clear_cache' or "
            "'terminate' or 'terminate_all'",
            "action",
        )
    terminate_id: str | None = None
    if action == "terminate":
        terminate_id = data.get("terminateId")
        if not isinstance(terminate_id, str):
            raise QueryError(
                'Requests for a terminate action must have a string "terminateId" field',
                "terminateId",
            )
    turns: frozenset[int] | None = None
    if action in ("terminate", "terminate_all") and "turnNumbers" in data:
        raw = data["turnNumbers"]
        if not isinstance(raw, list) or not all(_is_int(t) for t in raw):
            raise QueryError(
                "If provided, must be an array of integers indicating turns to terminate",
                "turnNumbers",
            )
        turns = frozenset(raw)
    return Action(ident, action, data, terminate_id, turns)


def _query(data: dict[str, Any], ident: str, limits: Limits) -> Query:
    notes: list[Notice] = []
    name = data.get("game", "go")
    if not isinstance(name, str):
        raise QueryError('Must be the name of a game, such as "go" or "connect_four"', "game")
    params = data.get("gameParams", {})
    if not isinstance(params, dict):
        raise QueryError("Must be an object of the game's parameters", "gameParams")
    if "moves" not in data:
        raise QueryError("Must specify an array of [player,location] pairs", "moves")
    game: Game
    if name == "go":
        go, go_moves, stones = _go_game(data, params, notes)
        turns, priorities = _turns(data, len(go_moves))
        states = _go_states(go, go_moves, stones, data, turns)
        game = go
    else:
        game, moves = _other_game(name, data, params, notes)
        turns, priorities = _turns(data, len(moves))
        states = _other_states(game, moves, data, turns)
    positions = tuple(Position(t, states[t], priorities[t]) for t in sorted(turns))
    max_visits, max_time, perspective = _settings(data, limits, notes)
    for key in sorted(data):
        if key in UNSUPPORTED and data[key] not in (False, None, [], {}):
            notes.append(Notice(key, "Not supported by mctslab's analysis engine: ignored"))
        elif key not in FIELDS and key not in UNSUPPORTED and key != "action":
            notes.append(Notice(key, "Unexpected or unused field, do you have a typo?"))
    report_every = _optional_number(data, "reportDuringSearchEvery", 0.001, 1e6)
    first_report = _optional_number(data, "firstReportDuringSearchAfter", 0.001, 1e6)
    return Query(
        ident=ident,
        game=game,
        positions=positions,
        max_visits=max_visits,
        max_time=max_time,
        report_every=report_every,
        first_report=first_report if first_report is not None else report_every,
        include_ownership=_boolean(data, "includeOwnership"),
        include_policy=_boolean(data, "includePolicy"),
        pv_len=int(_integer(data, "analysisPVLen", 1, 1000, PV_LEN)),
        perspective=perspective,
        warnings=tuple(notes),
    )


# Fields ----------------------------------------------------------------------------------------


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _integer(data: Mapping[str, Any], name: str, low: int, high: int, default: int) -> int:
    if name not in data:
        return default
    value = data[name]
    if not _is_int(value) or not low <= value <= high:
        raise QueryError(f"Must be an integer from {low} to {high}", name)
    return int(value)


def _optional_number(data: Mapping[str, Any], name: str, low: float, high: float) -> float | None:
    if name not in data:
        return None
    value = data[name]
    if not _is_number(value) or not low <= value <= high:
        raise QueryError(f"Must be number of seconds from {low:g} to {high:g}", name)
    return float(value)


def _boolean(data: Mapping[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise QueryError("Must be a boolean", name)
    return value


def _settings(
    data: Mapping[str, Any], limits: Limits, notes: list[Notice]
) -> tuple[int, float, str]:
    """``maxVisits`` (capped), the seconds a position may search, and the perspective:
    the query's, ``overrideSettings``' (``maxVisits``, ``maxTime``,
    ``reportAnalysisWinratesAs``) or the engine's."""
    settings = data.get("overrideSettings", {})
    if not isinstance(settings, dict):
        raise QueryError("Must be an object", "overrideSettings")
    perspective, seconds, visits = limits.perspective, limits.max_time, limits.visits
    unknown = []
    for key, value in settings.items():
        text = str(value).strip()
        if key == "reportAnalysisWinratesAs":
            if text.upper() not in PERSPECTIVES:
                raise QueryError(
                    "Could not set settings: reportAnalysisWinratesAs must be BLACK, WHITE "
                    f"or SIDETOMOVE, got {text[:40]!r}",
                    "overrideSettings",
                )
            perspective = text.upper()
        elif key in ("maxTime", "maxVisits"):
            number = _setting_number(key, value)
            if key == "maxTime":
                seconds = min(seconds, number)
            else:
                visits = max(1, int(number))
        else:
            unknown.append(key)
    if unknown:
        notes.append(
            Notice(
                "overrideSettings",
                "Unknown config params (mctslab's analysis engine reads maxTime, maxVisits "
                "and reportAnalysisWinratesAs): " + ",".join(sorted(unknown)),
            )
        )
    visits = _integer(data, "maxVisits", 1, 1 << 50, visits)
    if visits > limits.max_visits:
        notes.append(
            Notice("maxVisits", f"Capped at {limits.max_visits} (mctslab analysis --max-visits)")
        )
        visits = limits.max_visits
    return visits, seconds, perspective


def _setting_number(key: str, value: object) -> float:
    try:
        number = float(value) if isinstance(value, str) else value
    except ValueError:
        number = None
    if not _is_number(number) or not 0 < number <= 1e9:  # type: ignore[operator]
        raise QueryError(
            f"Could not set settings: {key} must be a positive number", "overrideSettings"
        )
    return float(number)  # type: ignore[arg-type]


def _turns(data: Mapping[str, Any], moves: int) -> tuple[set[int], dict[int, int]]:
    """The turns to analyse (default: the last) and each one's priority."""
    turns = {moves}
    if "analyzeTurns" in data:
        raw = data["analyzeTurns"]
        if not isinstance(raw, list) or not all(_is_int(t) for t in raw):
            raise QueryError(
                "Must specify an array of integers indicating turns to analyze", "analyzeTurns"
            )
        for t in raw:
            if not 0 <= t <= moves:
                raise QueryError(f"Invalid turn number: {t}", "analyzeTurns")
        turns = set(raw)
    if "priority" in data and "priorities" in data:
        raise QueryError("Cannot specify both priority and priorities", "priority")
    priority = _integer(data, "priority", -MAX_PRIORITY, MAX_PRIORITY, 0)
    priorities = dict.fromkeys(turns, priority)
    if "priorities" in data:
        raw = data["priorities"]
        if not isinstance(raw, list) or not all(_is_int(p) for p in raw):
            raise QueryError(
                "Must specify an array of integers indicating priorities", "priorities"
            )
        if "analyzeTurns" not in data:
            raise QueryError("Can only specify when also specifying analyzeTurns", "priorities")
        if len(raw) != len(data["analyzeTurns"]):
            raise QueryError("Must be of matching length to analyzeTurns", "priorities")
        for t, p in zip(data["analyzeTurns"], raw, strict=True):
            if not -MAX_PRIORITY <= p <= MAX_PRIORITY:
                raise QueryError(f"Invalid priority: {p}", "priorities")
            priorities[t] = p
    return turns, priorities


# Go --------------------------------------------------------------------------------------------

#: KataGo's rule sets by name (lower case, without ``-``, ``_`` or spaces): scoring,
#: ko, multi-stone suicide legal, tax, button, white's handicap bonus, default komi.
RULESETS: dict[str, tuple[str, str, bool, str, bool, str, float]] = {
    "japanese": ("TERRITORY", "SIMPLE", False, "SEKI", False, "0", 6.5),
    "korean": ("TERRITORY", "SIMPLE", False, "SEKI", False, "0", 6.5),
    "chinese": ("AREA", "SIMPLE", False, "NONE", False, "N", 7.5),
    "chineseogs": ("AREA", "POSITIONAL", False, "NONE", False, "N", 7.5),
    "chinesekgs": ("AREA", "POSITIONAL", False, "NONE", False, "N", 7.5),
    "ancientarea": ("AREA", "SIMPLE", False, "ALL", False, "0", 7.5),
    "stonescoring": ("AREA", "SIMPLE", False, "ALL", False, "0", 7.5),
    "ancientterritory": ("TERRITORY", "SIMPLE", False, "ALL", False, "0", 6.5),
    "agabutton": ("AREA", "SITUATIONAL", False, "NONE", True, "N-1", 7.0),
    "aga": ("AREA", "SITUATIONAL", False, "NONE", False, "N-1", 7.5),
    "bga": ("AREA", "SITUATIONAL", False, "NONE", False, "N-1", 7.5),
    "french": ("AREA", "SITUATIONAL", False, "NONE", False, "N-1", 7.5),
    "nz": ("AREA", "SITUATIONAL", True, "NONE", False, "0", 7.0),
    "newzealand": ("AREA", "SITUATIONAL", True, "NONE", False, "0", 7.0),
    "tromptaylor": ("AREA", "POSITIONAL", True, "NONE", False, "0", 7.5),
    "goe": ("AREA", "POSITIONAL", True, "NONE", False, "0", 7.5),
    "ing": ("AREA", "POSITIONAL", True, "NONE", False, "0", 7.5),
}
_RULE_WORDS = {
    "ko": ("SIMPLE", "POSITIONAL", "SITUATIONAL", "SPIGHT"),
    "scoring": ("AREA", "TERRITORY"),
    "tax": ("NONE", "SEKI", "ALL"),
    "whiteHandicapBonus": ("0", "N", "N-1"),
}


def parse_rules(value: object, handicap: bool = True) -> tuple[KoRule, float | None, str | None]:
    """The ko rule of the nearest rules :class:`~mctslab.games.go.Go` plays to KataGo's
    ``rules`` (a name such as ``"chinese"``, or an object with ``ko``, ``scoring``,
    ``tax``, ``suicide``, ``hasButton``, ``whiteHandicapBonus``, ``friendlyPassOk``,
    ``komi``), the komi the rules imply (``None``: 7.5, or the query's) and a warning
    when they differ from mctslab's: area scoring, no tax, no button, multi-stone
    suicide illegal, no handicap bonus, simple ko or positional superko. Without
    ``handicap`` stones the handicap bonus is no difference.

    >>> parse_rules("Chinese-OGS")
    ('superko', 7.5, "Rules chinese-ogs not supported exactly: white's handicap bonus; using area scoring, positional superko, suicide illegal, no tax, no button, no handicap bonus instead")
    >>> parse_rules({"ko": "SIMPLE", "suicide": False})
    ('simple', None, None)
    """
    if isinstance(value, str):
        key = value.strip().lower().replace("-", "").replace("_", "").replace(" ", "")
        if key not in RULESETS:
            raise QueryError(f"Could not parse rules: {value[:100]}", "rules")
        scoring, ko, suicide, tax, button, bonus, komi = RULESETS[key]
        shown: str = value.strip().lower()
        komi_of: float | None = komi
    elif isinstance(value, dict):
        scoring, ko, suicide, tax, button, bonus = "AREA", "POSITIONAL", True, "", False, "0"
        komi_of = None
        for k, v in value.items():
            if k in ("ko", "scoring", "score", "tax", "whiteHandicapBonus"):
                words = _RULE_WORDS["scoring" if k == "score" else k]
                if not isinstance(v, str) or v.upper() not in words:
                    raise QueryError(f"Could not parse rules: {k} must be one of {words}", "rules")
                if k == "ko":
                    ko = v.upper()
                elif k in ("scoring", "score"):
                    scoring = v.upper()
                elif k == "tax":
                    tax = v.upper()
                else:
                    bonus = v.upper()
            elif k in ("suicide", "hasButton", "friendlyPassOk"):
                if not isinstance(v, bool):
                    raise QueryError(f"Could not parse rules: {k} must be a boolean", "rules")
                if k == "suicide":
                    suicide = v
                elif k == "hasButton":
                    button = v
            elif k == "komi":
                if not _is_number(v):
                    raise QueryError("Could not parse rules: komi must be a number", "rules")
                komi_of = float(v)
            else:
                raise QueryError(f"Could not parse rules: unknown rules option {k[:40]!r}", "rules")
        tax = tax or ("SEKI" if scoring == "TERRITORY" else "NONE")
        shown = json.dumps(value, separators=(",", ":"))
    else:
        raise QueryError(
            'Must specify rules string, such as "chinese" or "tromp-taylor", or a JSON object '
            "with detailed rules parameters.",
            "rules",
        )
    ours: KoRule = "simple" if ko == "SIMPLE" else "superko"
    differs = [
        what
        for what, same in (
            ("territory scoring", scoring == "AREA"),
            (f"{ko.lower()} ko", ko in ("SIMPLE", "POSITIONAL")),
            ("suicide", not suicide),
            ("tax", tax == "NONE"),
            ("button", not button),
            ("white's handicap bonus", bonus == "0" or not handicap),
        )
        if not same
    ]
    if not differs:
        return ours, komi_of, None
    ko_words = "simple ko" if ours == "simple" else "positional superko"
    note = (
        f"Rules {shown[:100]} not supported exactly: {', '.join(differs)}; using area "
        f"scoring, {ko_words}, suicide illegal, no tax, no button, no handicap bonus instead"
    )
    return ours, komi_of, note


def _go_game(
    data: Mapping[str, Any], params: dict[str, Any], notes: list[Notice]
) -> tuple[Go, list[tuple[int, int]], list[tuple[int, int]]]:
    """The query's Go, its moves and its initial stones as (colour, action) pairs."""
    sizes = []
    for name in ("boardXSize", "boardYSize"):
        value = data.get(name)
        if not _is_int(value) or not 5 <= value <= 19:
            raise QueryError("Must provide an integer from 5 to 19", name)
        sizes.append(int(value))
    if sizes[0] != sizes[1]:
        raise QueryError(
            "mctslab's Go board is square: boardYSize must equal boardXSize", "boardYSize"
        )
    n = sizes[0]
    stones = (
        _go_moves(data, "initialStones", n, allow_pass=False) if "initialStones" in data else []
    )
    moves = _go_moves(data, "moves", n, allow_pass=True)
    handicap = any(colour == 0 for colour, _ in stones)
    ko, komi, note = parse_rules(data.get("rules"), handicap)  # missing: parse_rules' error
    if note is not None:
        notes.append(Notice("rules", note))
    if "komi" in data:
        value = data["komi"]
        if not _is_number(value) or not -400 <= value <= 400 or not float(value * 2).is_integer():
            raise QueryError("Must be a integer or half-integer from -400.0 to 400.0", "komi")
        komi = float(value)
    for key in ("board_size", "komi", "ko", "max_game_length"):
        if key in params:
            raise QueryError(
                f"{key} is set by boardXSize, komi, rules and the moves, not gameParams",
                "gameParams",
            )
    # Room for the stones, the moves and the turns handed over, then for the search's own
    # playouts: 2 N^2 moves beyond (Go's default length), within Go's bound of 100 N^2.
    length = 2 * n * n + 2 * (len(stones) + len(moves)) + 2
    if length > 100 * n * n:
        raise QueryError(f"Too many moves and stones for a {n}x{n} board", "moves")
    try:
        game = make(
            "go",
            board_size=n,
            komi=7.5 if komi is None else komi,
            ko=ko,
            max_game_length=length,
            **params,
        )
    except ValueError as err:
        raise QueryError(str(err), "komi" if "komi" in str(err) else "gameParams") from None
    assert isinstance(game, Go)
    return game, moves, stones


def _colour(text: object, field: str) -> int:
    word = text.strip().lower() if isinstance(text, str) else ""
    if word in ("b", "black"):
        return 0
    if word in ("w", "white"):
        return 1
    raise QueryError(f"Could not parse player: {str(text)[:40]}", field)


def _go_moves(
    data: Mapping[str, Any], field: str, n: int, allow_pass: bool
) -> list[tuple[int, int]]:
    """KataGo's ``[["B", "D4"], ...]``: (colour, action) pairs, GTP vertices."""
    shape = 'Must be an array of pairs of the form: ["b" or "w", GTP board vertex]'
    raw = data[field]
    if not isinstance(raw, list):
        raise QueryError(shape, field)
    pairs = []
    for item in raw:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(isinstance(x, str) for x in item)
        ):
            raise QueryError(shape, field)
        colour = _colour(item[0], field)
        action = vertex_to_action(item[1], n)
        if action is None or (action == n * n and not allow_pass):
            raise QueryError(f"Could not parse board location: {item[1][:40]}", field)
        pairs.append((colour, action))
    return pairs


class _GoReplay:
    """A Go game replayed step by step: each step an action, or ``None`` for a turn
    handed over; a game over by two passes resumes (both taken back) before the next
    move, as ``mctslab gtp`` resumes one."""

    def __init__(self, game: Go) -> None:
        self.game = game
        self.steps: list[int | None] = []
        self.state: KernelState = game.new_initial_state()

    def to_move(self, colour: int) -> None:
        self.resume()
        if self.state.current_player() != colour:
            self.game.hand_over(self.state)
            self.steps.append(None)

    def resume(self) -> None:
        if self.state.is_terminal():  # by two passes: the length leaves room for the rest
            self.steps = self.steps[:-2]
            self.state = self.game.new_initial_state()
            for step in self.steps:
                if step is None:
                    self.game.hand_over(self.state)
                else:
                    self.state.apply_action(step)

    def play(self, colour: int, action: int) -> bool:
        """Play ``action`` for ``colour``; ``False`` (nothing played) if illegal."""
        self.to_move(colour)
        if action not in self.state.legal_actions():
            return False
        self.state.apply_action(action)
        self.steps.append(action)
        return True

    def position(self) -> KernelState:
        """The state to analyse here (a game over by two passes resumed)."""
        saved = (list(self.steps), self.state.clone())
        self.resume()
        state = self.state.clone()
        self.steps, self.state = saved
        return state


def _go_states(
    game: Go,
    moves: list[tuple[int, int]],
    stones: list[tuple[int, int]],
    data: Mapping[str, Any],
    turns: set[int],
) -> dict[int, State]:
    n = game.board_size
    replay = _GoReplay(game)
    for colour, action in stones:
        if not replay.play(colour, action):
            raise QueryError(
                f"Could not place stone: {action_to_vertex(action, n)}", "initialStones"
            )
    if "initialPlayer" in data:
        initial = _colour(data["initialPlayer"], "initialPlayer")
    elif moves:
        initial = moves[0][0]
    else:  # KataGo's guess: White moves first after handicap stones
        initial = 1 if stones and all(c == 0 for c, _ in stones) else 0
    replay.to_move(initial)
    states: dict[int, State] = {}
    for t, (colour, action) in enumerate(moves):
        if t in turns:
            states[t] = replay.position()
        if not replay.play(colour, action):
            raise QueryError(f"Illegal move {t}: {action_to_vertex(action, n)}", "moves")
    if len(moves) in turns:
        states[len(moves)] = replay.position()
    return states


# Any other game --------------------------------------------------------------------------------


def _other_game(
    name: str, data: Mapping[str, Any], params: dict[str, Any], notes: list[Notice]
) -> tuple[Game, list[tuple[int | None, str]]]:
    """Another game than Go and its moves as (player or ``None``, move name) pairs."""
    try:
        game = make(name, **params)
    except ValueError as err:
        field = "game" if name not in str(err) or "unknown" in str(err).lower() else "gameParams"
        raise QueryError(" ".join(str(err).split()), field) from None
    info = game.info
    why = None
    if info.num_players != 2 or not info.zero_sum:
        why = "a two-player zero-sum game"
    elif has_chance_nodes(game) or not is_perfect_information(game):
        why = "a game without chance or hidden information"
    if why is not None:
        raise QueryError(f"The analysis engine analyses {why}; {name} is not one", "game")
    for key in GO_FIELDS:
        if key in data:
            notes.append(Notice(key, f"Go's field: ignored for {name}"))
    if data.get("initialStones") not in (None, []):
        raise QueryError(f"Only Go has stones to place; {name} has none", "initialStones")
    raw = data["moves"]
    if not isinstance(raw, list):
        raise QueryError("Must be an array of moves: [player, move] pairs or move names", "moves")
    moves: list[tuple[int | None, str]] = []
    for item in raw:
        if isinstance(item, str):
            moves.append((None, item))
        elif isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            moves.append((_player(game, item[0]), item[1]))
        else:
            raise QueryError(
                "Must be an array of moves: [player, move] pairs or move names", "moves"
            )
    return game, moves


def _player(game: Game, text: str) -> int:
    """``B``/``W`` (``black``/``white``) or the game's own names of its two players."""
    word = text.strip().lower()
    for p in (0, 1):
        if word in (("b", "black"), ("w", "white"))[p] or word == player_label(game, p).lower():
            return p
    raise QueryError(f"Could not parse player: {text[:40]}", "moves")


def _other_states(
    game: Game, moves: list[tuple[int | None, str]], data: Mapping[str, Any], turns: set[int]
) -> dict[int, State]:
    state = game.new_initial_state()
    if "initialPlayer" in data and _player(game, str(data["initialPlayer"])) != 0:
        raise QueryError(
            f"{game.info.name} has no turn to hand over: the first player moves first",
            "initialPlayer",
        )
    states: dict[int, State] = {}
    for t, (player, text) in enumerate(moves):
        if t in turns:
            states[t] = state.clone()
        if state.is_terminal():
            raise QueryError(f"Illegal move {t}: {text[:40]}: the game is over", "moves")
        mover = state.current_player()
        if player is not None and player != mover:
            raise QueryError(
                f"Illegal move {t}: {text[:40]}: it is {'BW'[mover]}'s turn "
                f"({player_label(game, mover)})",
                "moves",
            )
        try:
            action = state.string_to_action(text)
        except ValueError:
            raise QueryError(f"Could not parse move {t}: {text[:40]}", "moves") from None
        if action not in state.legal_actions():
            raise QueryError(f"Illegal move {t}: {text[:40]}", "moves")
        state.apply_action(action)
    if len(moves) in turns:
        states[len(moves)] = state.clone()
    return states
