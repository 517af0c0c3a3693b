"""``mctslab analysis``: KataGo's JSON analysis protocol (:mod:`mctslab.cli.katago`).

Three subprocess sessions drive ``python -m mctslab analysis`` over pipes as a GUI
would (per-turn answers, interim answers and terminate, errors and another game); the
rest reads requests and runs :class:`~mctslab.cli.katago.AnalysisEngine` in this
process.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from typing import Any

import pytest

from mctslab.cli.katago import AnalysisEngine, Limits, QueryError
from mctslab.cli.katago.answer import flipped, ownership_rows, wilson_lower
from mctslab.cli.katago.query import Action, Query, parse_rules, read_request
from mctslab.core.registry import make
from mctslab.games.go import Go
from mctslab.players.gtp import vertex_to_action

#: A hang guard for one answer over the pipe (the engine's first search may compile).
WAIT = 180.0


def go_query(ident: str, moves: list[list[str]], size: int = 5, **extra: Any) -> str:
    query = {
        "id": ident,
        "moves": moves,
        "rules": {"ko": "POSITIONAL", "suicide": False},  # mctslab's own: no warning
        "komi": 0.5,
        "boardXSize": size,
        "boardYSize": size,
        "maxVisits": 60,
        **extra,
    }
    return json.dumps(query)


class Session:
    """``python -m mctslab analysis ARGS`` with its answers read by a thread."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mctslab", "analysis", "--threads", "2", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def get(self) -> dict[str, Any]:
        reply = self.answers.get(timeout=WAIT)
        assert reply is not None, "the engine closed its output"
        return reply

    def until(self, done: Any) -> list[dict[str, Any]]:
        """Answers up to and including the first for which ``done(answer)`` holds."""
        got = []
        while True:
            got.append(self.get())
            if done(got[-1]):
                return got

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def final(reply: dict[str, Any]) -> bool:
    return "turnNumber" in reply and reply["isDuringSearch"] is False


MOVE_FIELDS = {"move", "visits", "winrate", "prior", "lcb", "order", "pv", "scoreLead"}


def check_go_answer(reply: dict[str, Any], game: Go, moves: list[list[str]]) -> None:
    """Fields of KataGo's answer, every listed move and PV legal in the turn's position."""
    n = game.board_size
    state = game.state_from_actions(
        [vertex_to_action(v, n) for _, v in moves[: reply["turnNumber"]]]  # type: ignore[misc]
    )
    root = reply["rootInfo"]
    assert root["currentPlayer"] == "BW"[state.current_player()]
    assert {"visits", "winrate", "utility", "lcb", "scoreLead", "scoreMean"} <= root.keys()
    infos = reply["moveInfos"]
    assert infos and [m["order"] for m in infos] == list(range(len(infos)))
    assert sum(m["visits"] for m in infos) <= root["visits"]
    for info in infos:
        assert set(info) >= MOVE_FIELDS
        assert 0 <= info["winrate"] <= 1 and info["pv"][0] == info["move"]
        walk = state.clone()
        for vertex in info["pv"]:
            action = vertex_to_action(vertex, n)
            assert action in walk.legal_actions(), (vertex, info["pv"])
            walk.apply_action(action)  # type: ignore[arg-type]


def test_analyze_turns_answers_every_turn_with_kata_fields() -> None:
    """A game's turns are answered one each (in any order), with KataGo's fields, legal
    moves and PVs, ownership of x*y points and a policy of x*y+1 entries."""
    moves = [["B", "C3"], ["W", "D4"], ["B", "B2"]]
    game = Go(5, komi=0.5)
    session = Session()
    try:
        session.send(
            go_query(
                "g",
                moves,
                analyzeTurns=[0, 1, 2, 3],
                rules="tromp-taylor",
                includeOwnership=True,
                includePolicy=True,
                maxVisits=80,
            )
        )
        replies = [session.get() for _ in range(5)]  # the rules' warning and 4 answers
        warnings = [r for r in replies if "warning" in r]
        assert [(w["field"], w["id"]) for w in warnings] == [("rules", "g")]  # suicide
        answers = sorted((r for r in replies if "turnNumber" in r), key=lambda r: r["turnNumber"])
        assert [r["turnNumber"] for r in answers] == [0, 1, 2, 3]
        for reply in answers:
            assert reply["id"] == "g" and reply["isDuringSearch"] is False
            check_go_answer(reply, game, moves)
            assert len(reply["ownership"]) == 25 and all(-1 <= o <= 1 for o in reply["ownership"])
            assert len(reply["policy"]) == 26
            assert reply["rootInfo"]["visits"] == 80
        # Black's stone on C3 (turn 1 on): Black owns its point, row-major from the top.
        c3 = (5 - 3) * 5 + 2
        assert answers[1]["ownership"][c3] > 0.5 and answers[1]["policy"][c3] == -1
        assert session.close() == 0
    finally:
        session.close()


def test_report_during_search_then_terminate_ends_it_early() -> None:
    """Interim answers (isDuringSearch true) come before the final one; a short query
    is answered while a long one runs; a terminate ends the long one, whose last answer
    (isDuringSearch false) has fewer visits than it asked for, before its time cap."""
    session = Session("--max-time", "600")
    try:
        session.send(
            go_query("long", [["B", "C3"]], maxVisits=10_000_000, reportDuringSearchEvery=0.05)
        )
        warning = session.get()
        assert warning == {
            "warning": "Capped at 200000 (mctslab analysis --max-visits)",
            "field": "maxVisits",
            "id": "long",
        }
        interim = [session.get() for _ in range(3)]
        assert all(r["id"] == "long" and r["isDuringSearch"] is True for r in interim)
        session.send(go_query("short", [], maxVisits=40))
        got = session.until(lambda r: r["id"] == "short" and final(r))
        assert got[-1]["rootInfo"]["visits"] == 40
        session.send(json.dumps({"id": "t", "action": "terminate", "terminateId": "long"}))
        rest = session.until(lambda r: r["id"] == "long" and final(r))
        assert {"id": "t", "action": "terminate", "terminateId": "long"} in rest
        during = [r for r in interim + got + rest if r["id"] == "long"]
        visits = [r["rootInfo"]["visits"] for r in during]
        assert visits == sorted(visits) and visits[-1] < 200_000
        assert [r["isDuringSearch"] for r in during][-1] is False
        assert sum(not r["isDuringSearch"] for r in during) == 1
        assert session.close() == 0
    finally:
        session.close()


def test_bad_requests_are_answered_and_the_engine_goes_on() -> None:
    """Bad JSON, a bad field value, a bad and an illegal move each get an error (with
    the query's id and field where known) and the engine answers the next query; a
    Connect Four query answers in the same structure with its own move names."""
    session = Session()
    try:
        session.send('{"id": "x", "moves": [')  # not JSON
        reply = session.get()
        assert set(reply) == {"error"} and "could not parse input line" in reply["error"]
        for line, field, words in (
            (go_query("r", [], rules="no-such-rules"), "rules", "Could not parse rules"),
            (go_query("m", [["B", "Z9"]]), "moves", "Could not parse board location: Z9"),
            (go_query("i", [["B", "C3"], ["W", "C3"]]), "moves", "Illegal move 1: C3"),
            (go_query("s", [], size=4), "boardXSize", "from 5 to 19"),
            (go_query("t", [], analyzeTurns=[2]), "analyzeTurns", "Invalid turn number: 2"),
            (json.dumps({"id": "a", "action": "dance"}), "action", "'action' field must be"),
        ):
            session.send(line)
            reply = session.get()
            assert reply["id"] == json.loads(line)["id"] and reply["field"] == field, reply
            assert words in reply["error"]
        connect = {"id": "c4", "game": "connect_four", "moves": [["B", "4"], "4"], "maxVisits": 60}
        session.send(json.dumps(connect))
        reply = session.get()
        assert reply["id"] == "c4" and reply["turnNumber"] == 2 and not reply["isDuringSearch"]
        assert reply["rootInfo"]["currentPlayer"] == "B" and reply["rootInfo"]["visits"] == 60
        state = make("connect_four").state_from_actions([3, 3])
        names = {state.action_to_string(a) for a in state.legal_actions()}
        assert reply["moveInfos"] and {m["move"] for m in reply["moveInfos"]} <= names
        assert "ownership" not in reply and "scoreLead" not in reply["rootInfo"]
        session.send(json.dumps({"id": "v", "action": "query_version"}))
        reply = session.get()
        assert reply["id"] == "v" and "version" in reply and reply["git_hash"] == "<omitted>"
        assert session.close() == 0
    finally:
        session.close()


# Requests read in this process -----------------------------------------------------------------

LIMITS = Limits(visits=100, max_visits=1000, max_time=5.0)
#: Rules that mctslab's Go plays exactly (no warning): Chinese without a handicap bonus.
EXACT = {"ko": "SIMPLE", "suicide": False}


def read(line: str | dict[str, Any]) -> Query | Action:
    return read_request(line if isinstance(line, str) else json.dumps(line), LIMITS)


def query(**fields: Any) -> Query:
    base = {"id": "q", "moves": [], "rules": EXACT, "boardXSize": 5, "boardYSize": 5}
    made = read({**base, **fields})
    assert isinstance(made, Query)
    return made


def refused(**fields: Any) -> QueryError:
    base = {"id": "q", "moves": [], "rules": EXACT, "boardXSize": 5, "boardYSize": 5}
    with pytest.raises(QueryError) as caught:
        read({**base, **fields})
    assert caught.value.ident == "q"
    return caught.value


def test_a_query_is_read_with_defaults_and_caps() -> None:
    """Defaults (last turn, the engine's visits, priority 0, PV length 15), the cap on
    maxVisits (a warning) and overrideSettings' maxTime and perspective."""
    q = query(moves=[["B", "C3"], ["W", "D4"]], komi=6.5)
    assert [p.turn for p in q.positions] == [2] and q.max_visits == 100
    assert q.positions[0].priority == 0 and q.pv_len == 15 and q.perspective == "BLACK"
    assert isinstance(q.game, Go) and q.game.komi == 6.5 and q.game.ko == "simple"
    assert query(rules="tromp-taylor").game.ko == "superko"  # type: ignore[attr-defined]
    capped = query(maxVisits=5000)
    assert capped.max_visits == 1000 and [n.field for n in capped.warnings] == ["maxVisits"]
    over = query(overrideSettings={"reportAnalysisWinratesAs": "white", "maxTime": 2, "x": 1})
    assert over.perspective == "WHITE" and over.max_time == 2.0
    assert "Unknown config params" in over.warnings[-1].message
    assert query(overrideSettings={"maxTime": 60}).max_time == 5.0  # the engine's cap
    turns = query(moves=[["B", "C3"]], analyzeTurns=[1, 0], priorities=[5, 7])
    assert [(p.turn, p.priority) for p in turns.positions] == [(0, 7), (1, 5)]
    noted = query(includeMovesOwnership=True, avoidMoves=[], typo=1)
    assert [(n.field, n.message[:13]) for n in noted.warnings if n.field != "rules"] == [
        ("includeMovesOwnership", "Not supported"),
        ("typo", "Unexpected or"),
    ]


def test_bad_fields_are_refused_with_their_field() -> None:
    """Each malformed field is refused naming it, with KataGo's message where it has one."""
    for fields, field in (
        ({"boardXSize": 9, "boardYSize": 7}, "boardYSize"),
        ({"boardXSize": 20, "boardYSize": 20}, "boardXSize"),
        ({"komi": 7.25}, "komi"),
        ({"komi": True}, "komi"),
        ({"maxVisits": 0}, "maxVisits"),
        ({"maxVisits": 1.5}, "maxVisits"),
        ({"moves": [["X", "C3"]]}, "moves"),
        ({"moves": [["B"]]}, "moves"),
        ({"initialStones": [["B", "pass"]]}, "initialStones"),
        ({"includeOwnership": 1}, "includeOwnership"),
        ({"reportDuringSearchEvery": 0}, "reportDuringSearchEvery"),
        ({"priority": 1, "priorities": [1]}, "priority"),
        ({"priorities": [1]}, "priorities"),
        ({"rules": 3}, "rules"),
        ({"rules": {"ko": "NONE"}}, "rules"),
        ({"overrideSettings": {"reportAnalysisWinratesAs": "GREEN"}}, "overrideSettings"),
        ({"game": "kuhn_poker"}, "game"),
        ({"game": "pig"}, "game"),
        ({"game": "no_such_game"}, "game"),
        ({"gameParams": {"board_size": 9}}, "gameParams"),
    ):
        assert refused(**fields).field == field, fields
    missing = {"id": "q", "moves": [], "boardXSize": 5, "boardYSize": 5}
    with pytest.raises(QueryError, match="Must specify rules string") as caught:
        read(missing)
    assert caught.value.field == "rules"
    for line, words in (
        ("[1, 2]", "not an object"),
        ('{"moves": []}', 'string "id" field'),
        ('{"id": "q", "komi": NaN}', "could not parse"),
    ):
        with pytest.raises(QueryError, match=words):
            read(line)
    term = read({"id": "t", "action": "terminate", "terminateId": "q", "turnNumbers": [1]})
    assert isinstance(term, Action) and term.turns == frozenset({1})
    with pytest.raises(QueryError, match="terminateId"):
        read({"id": "t", "action": "terminate"})


def test_go_positions_place_stones_hand_turns_over_and_resume_after_two_passes() -> None:
    """Initial stones stand on the board with White to move after a handicap; a colour
    moving out of turn gets the turn handed over; a game over by two passes is analysed
    resumed; an occupied point is an illegal move."""
    q = query(initialStones=[["B", "B2"], ["B", "D4"]], moves=[["W", "C3"]], analyzeTurns=[0, 1])
    game = q.game
    assert isinstance(game, Go)
    start, after = (p.state for p in q.positions)
    b2, d4, c3 = (vertex_to_action(v, 5) for v in ("B2", "D4", "C3"))
    assert [game.colour_at(start, a) for a in (b2, d4)] == [1, 1]  # type: ignore[arg-type]
    assert start.current_player() == 1 and game.colour_at(after, c3) == 2  # type: ignore[arg-type]
    black_first = query(initialStones=[["B", "B2"]], initialPlayer="B")
    assert black_first.positions[0].state.current_player() == 0
    twice = query(moves=[["B", "C3"], ["B", "D4"]]).positions[0].state
    assert twice.current_player() == 1 and game.colour_at(twice, d4) == 1  # type: ignore[arg-type]
    passed = query(moves=[["B", "C3"], ["W", "pass"], ["B", "pass"]], analyzeTurns=[3])
    state = passed.positions[0].state
    assert not state.is_terminal() and state.current_player() == 1
    resumed = query(moves=[["B", "C3"], ["W", "pass"], ["B", "pass"], ["W", "D4"]])
    assert game.colour_at(resumed.positions[0].state, d4) == 2  # type: ignore[arg-type]
    assert refused(moves=[["B", "C3"], ["W", "c3"]]).args[0] == "Illegal move 1: C3"


def test_other_games_read_their_own_moves_and_players() -> None:
    """Another game's moves are its move names, bare or with B/W or its own player names;
    a move out of turn and a name that is no move are refused."""
    base = {"id": "q", "game": "tic_tac_toe"}
    made = read({**base, "moves": ["4", ["W", "0"], ["x", "8"]], "analyzeTurns": [0, 3]})
    assert isinstance(made, Query) and not made.is_go
    assert [p.state.history() for p in made.positions] == [[], [4, 0, 8]]
    with_rules = read({**base, "moves": [], "komi": 7.5})
    assert isinstance(with_rules, Query) and with_rules.warnings[0].field == "komi"
    for moves, words in (
        ([["W", "4"]], "it is B's turn"),
        (["nine"], "Could not parse move 0"),
        (["4", "4"], "Illegal move 1"),
    ):
        with pytest.raises(QueryError, match=words):
            read({**base, "moves": moves})
    with pytest.raises(QueryError, match="no turn to hand over"):
        read({**base, "moves": [], "initialPlayer": "W"})


def test_rules_map_to_the_nearest_go_rules() -> None:
    """KataGo's rule names and objects: the ko rule, the komi they imply, a warning
    for what mctslab's Go does not play (territory, suicide, handicap bonus...)."""
    assert parse_rules("tromp-taylor")[:2] == ("superko", 7.5)
    assert "suicide" in (parse_rules("tromp-taylor")[2] or "")
    ko, komi, note = parse_rules("Japanese")
    assert (ko, komi) == ("simple", 6.5) and "territory scoring" in (note or "")
    assert parse_rules({"ko": "POSITIONAL", "suicide": False, "komi": 6}) == ("superko", 6.0, None)
    assert "situational ko" in (parse_rules("aga")[2] or "")
    # Chinese rules' handicap bonus differs only where there is a handicap.
    assert parse_rules("chinese", handicap=False) == ("simple", 7.5, None)
    assert "handicap bonus" in (parse_rules("chinese")[2] or "")
    assert query(rules="chinese").warnings == ()
    handicap = query(rules="chinese", initialStones=[["B", "C3"], ["B", "D4"]])
    assert [n.field for n in handicap.warnings] == ["rules"]
    with pytest.raises(QueryError, match="unknown rules option"):
        parse_rules({"kos": "SIMPLE"})


def test_answer_helpers() -> None:
    """KataGo's ownership order (rows from the top), the perspective's flip, the LCB."""
    assert ownership_rows(list(range(9)), 3) == [6, 7, 8, 3, 4, 5, 0, 1, 2]
    assert flipped("BLACK", 1) and not flipped("BLACK", 0) and flipped("WHITE", 0)
    assert not flipped("SIDETOMOVE", 1)
    assert wilson_lower(0.5, 10) < wilson_lower(0.5, 1000) < 0.5
    assert wilson_lower(1.0, 5) < 1.0 and wilson_lower(0.0, 5) == 0.0


# The engine in this process --------------------------------------------------------------------


class Collect:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.seen = threading.Condition()

    def __call__(self, text: str) -> None:
        with self.seen:
            self.lines.append(json.loads(text))
            self.seen.notify_all()

    def wait_for(self, done: Any) -> None:
        with self.seen:
            assert self.seen.wait_for(lambda: any(done(r) for r in self.lines), timeout=WAIT)


def engine(out: Collect, threads: int = 1) -> AnalysisEngine:
    return AnalysisEngine(
        limits=Limits(max_time=600.0),
        threads=threads,
        write=out,
        warm_up=False,
        score_playouts=4,
        ownership_playouts=4,
    )


def test_perspectives_turn_the_same_search_over() -> None:
    """The same search (same seed) reported for White is Black's turned over: winrate
    1 - w, utility and score negated, ownership negated; SIDETOMOVE with Black to move
    is Black's."""
    out = Collect()
    eng = engine(out)
    for ident, perspective in (("b", "BLACK"), ("w", "WHITE"), ("s", "SIDETOMOVE")):
        settings = {"reportAnalysisWinratesAs": perspective}
        eng.handle(
            go_query(ident, [], includeOwnership=True, maxVisits=40, overrideSettings=settings)
        )
    eng.close()
    got = {r["id"]: r for r in out.lines if "turnNumber" in r}
    black, white, side = got["b"], got["w"], got["s"]
    assert black["rootInfo"]["winrate"] == pytest.approx(1 - white["rootInfo"]["winrate"])
    assert black["rootInfo"]["scoreLead"] == pytest.approx(-white["rootInfo"]["scoreLead"])
    assert black["ownership"] == [pytest.approx(-o) for o in white["ownership"]]
    for b, w in zip(black["moveInfos"], white["moveInfos"], strict=True):
        assert b["move"] == w["move"] and b["winrate"] == pytest.approx(1 - w["winrate"])
        assert b["utility"] == pytest.approx(-w["utility"])
    assert side["moveInfos"] == black["moveInfos"]


def test_terminate_answers_a_queued_position_without_results_and_priorities_order() -> None:
    """With one worker busy, queued positions wait: a terminate answers one at once with
    ``noResults``; the others run highest priority first once the worker is free."""
    out = Collect()
    eng = engine(out)
    eng.handle(go_query("busy", [], maxVisits=10_000_000, reportDuringSearchEvery=0.05))
    out.wait_for(lambda r: r.get("isDuringSearch"))  # the worker is searching it
    eng.handle(go_query("low", [], maxVisits=20, priority=-1))
    eng.handle(go_query("high", [], maxVisits=20, priority=5))
    eng.handle(go_query("gone", [], maxVisits=20, priority=9))
    eng.handle(json.dumps({"id": "t1", "action": "terminate", "terminateId": "gone"}))
    assert {"id": "gone", "isDuringSearch": False, "noResults": True, "turnNumber": 0} in out.lines
    eng.handle(json.dumps({"id": "t2", "action": "terminate", "terminateId": "busy"}))
    eng.close()
    finals = [r["id"] for r in out.lines if "turnNumber" in r and not r["isDuringSearch"]]
    assert finals == ["gone", "busy", "high", "low"]


def test_a_game_over_is_answered_without_moves() -> None:
    """A finished game of another kind (tic-tac-toe won by x) has no moves to analyse:
    one answer, no moveInfos, the result as the root's winrate."""
    out = Collect()
    eng = engine(out)
    eng.handle(json.dumps({"id": "end", "game": "tic_tac_toe", "moves": ["0", "3", "1", "4", "2"]}))
    eng.close()
    (reply,) = out.lines
    assert reply["moveInfos"] == [] and reply["rootInfo"]["winrate"] == 1.0
    assert reply["rootInfo"]["gameOver"] is True


def test_engine_refuses_a_player_it_cannot_read() -> None:
    """The engine's players must be searches it can read (not random, not gumbel)."""
    for spec in ("random", "gumbel", "puct:gumbel=1"):
        with pytest.raises(ValueError, match="mctslab analysis"):
            AnalysisEngine(player=spec, warm_up=False, threads=1, write=Collect())


def test_ownership_is_left_out_where_the_history_cannot_be_replayed() -> None:
    """Black passes, then moves again (White's turn handed over right after the pass):
    final_status cannot replay that history (two passes in a row end the game), so the
    answer comes without ownership rather than as an error."""
    out = Collect()
    eng = engine(out)
    eng.handle(go_query("hp", [["B", "pass"], ["B", "C3"]], includeOwnership=True, maxVisits=30))
    eng.handle(go_query("ok", [["B", "C3"]], includeOwnership=True, maxVisits=30))
    eng.close()
    got = {r["id"]: r for r in out.lines}
    assert got["hp"]["moveInfos"] and "ownership" not in got["hp"]
    assert got["hp"]["rootInfo"]["currentPlayer"] == "W" and len(got["ok"]["ownership"]) == 25


def test_bad_options_are_one_error_line_and_exit_2() -> None:
    """The command's own options are checked before it reads a query."""
    for args, words in (
        (["--threads", "0"], "--threads must be in [1, 64]"),
        (["--player", "random"], "mctslab analysis: --player must be an mcts: or puct: spec"),
        (["--report-as", "GREEN"], "--report-as must be BLACK, WHITE or SIDETOMOVE"),
        (["--visits", "0"], "--visits must be in [1, --max-visits=200000]"),
    ):
        run = subprocess.run(
            [sys.executable, "-m", "mctslab", "analysis", *args],
            input="",
            capture_output=True,
            text=True,
            timeout=WAIT,
        )
        assert run.returncode == 2 and run.stdout == "", args
        assert run.stderr.startswith(f"error: {words}") and run.stderr.count("\n") == 1
