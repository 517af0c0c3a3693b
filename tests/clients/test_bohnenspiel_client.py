"""The Bohnenspiel game server client, against a local server with rules of its own.

``tests/clients/bohnenspiel_server.py`` implements the course server's protocol and the
rules from the issue's text, independently of ``mctslab.games.bohnenspiel``: the
two are checked against each other move by move, then two mctslab clients play
full games through it (in threads and as the real CLI), with and without
injected faults, and the server's record is checked against the rules. A
scripted transport drives the protocol's every answer, one at a time.
"""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from bohnenspiel_server import (
    FINISHED,
    Fault,
    Lobby,
    LocalServer,
    Request,
    ServerGame,
    play_pit,
    serving,
    side,
)
from typer.testing import CliRunner, Result

import mctslab
from mctslab.cli.main import app
from mctslab.clients.bohnenspiel import (
    BohnenspielClient,
    ClientConfig,
    GameReport,
    JoinRefusedError,
    ProtocolError,
    ServerUnavailableError,
    TransportError,
    http_transport,
)
from mctslab.core.game import State

GAME = mctslab.make("bohnenspiel")
# Fast polling and retries for loopback games.
FAST: dict[str, Any] = {
    "poll": 0.01,
    "poll_max": 0.05,
    "retry_base": 0.02,
    "retry_max": 0.1,
    "request_timeout": 2.0,
    "give_up": 10.0,
}


# The server's rules against mctslab's --------------------------------------------------------


def test_server_rules_known_answers() -> None:
    pits, stores = [6] * 12, [0, 0]
    assert not play_pit(pits, stores, 0, 0)
    assert not play_pit(pits, stores, 1, 11)
    assert pits == [1, 8, 8, 8, 8, 8, 7, 6, 6, 6, 6, 0]
    pits, stores = [5, 3, 3, 5, 3, 3, 7, 6, 6, 6, 6, 0], [0, 0]
    play_pit(pits, stores, 0, 0)
    assert stores == [22, 0]


def test_server_rules_agree_with_mctslab_move_by_move() -> None:
    """300 random games: the server's rules and mctslab's kernels give the same positions."""
    rng = random.Random(7)
    ends = 0
    for _ in range(300):
        state = GAME.new_initial_state()
        pits, stores, player = [6] * 12, [0, 0], 0
        over = False
        while not over:
            legal = [p for p in side(player) if pits[p] > 0]
            assert legal == state.legal_actions()
            pit = rng.choice(legal)
            over = play_pit(pits, stores, player, pit)
            state.apply_action(pit)
            assert (pits, stores) == (GAME.pits(state), GAME.stores(state))
            assert state.is_terminal() == over
            player = 1 - player
        ends += sum(stores) == 72
    assert ends == 300


@pytest.mark.parametrize(
    ("who", "field", "reason"),
    [("bob", "7", "out of turn"), ("alice", "8", "wrong side"), ("alice", "x", "bad field")],
)
def test_the_server_ends_the_game_against_a_bad_move(who: str, field: str, reason: str) -> None:
    lobby = Lobby()
    game_id = lobby.create("alice")
    assert lobby.check(game_id, "alice") == "-4" and lobby.open_games() == game_id
    assert lobby.join(game_id, "alice") == "0"  # a name plays once
    assert lobby.join(game_id, "bob") == "1" and lobby.open_games() == ""
    assert (lobby.check(game_id, "alice"), lobby.check(game_id, "alice")) == ("0", "-1")
    assert lobby.check(game_id, "bob") == "-3"
    lobby.move(game_id, who, field)
    game = lobby.game(game_id)
    assert (game.reason, game.winner, lobby.state(game_id)) == (reason, 1 - game.seat(who), "2")
    assert lobby.check(game_id, "alice") == lobby.check(game_id, "bob") == "-2"
    assert game.violations and reason in lobby.state_message(game_id)


def test_the_server_keeps_the_turns_the_time_limit_and_empty_pits() -> None:
    clock = FakeTime()
    lobby = Lobby(move_limit=300.0, clock=clock.clock)
    game_id = lobby.create("alice")
    lobby.join(game_id, "bob")
    assert lobby.move(game_id, "alice", "1") == "1"
    assert (lobby.check(game_id, "bob"), lobby.check(game_id, "alice")) == ("1", "-3")
    assert lobby.move(game_id, "bob", "12") == "1"
    assert lobby.check(game_id, "alice") == "12"
    assert lobby.game(game_id).pits == [1, 8, 8, 8, 8, 8, 7, 6, 6, 6, 6, 0]
    clock.sleep(299.0)
    assert lobby.move(game_id, "alice", "1") == "1"  # in time
    assert lobby.move(game_id, "bob", "12") == "0"  # pit 11 is empty: bob loses
    assert lobby.game(game_id).reason == "empty pit"
    late = lobby.create("carol")
    lobby.join(late, "dave")
    clock.sleep(300.5)  # carol never moves
    assert lobby.check(late, "dave") == "-2"
    assert (lobby.game(late).reason, lobby.game(late).winner) == ("timeout", 1)


# Full games through the local server ---------------------------------------------------------


def _run_threads(jobs: dict[str, Callable[[], GameReport]]) -> dict[str, GameReport]:
    results: dict[str, GameReport | BaseException] = {}

    def run(key: str, job: Callable[[], GameReport]) -> None:
        try:
            results[key] = job()
        except BaseException as err:  # re-raised in the test's thread
            results[key] = err

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in jobs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive(), "a client did not finish"
    for value in results.values():
        if isinstance(value, BaseException):
            raise value
    return results  # type: ignore[return-value]


def play_through(
    server: LocalServer, alice: str, bob: str, **config: Any
) -> tuple[GameReport, GameReport, ServerGame]:
    """alice creates a game; bob finds it with opengames and joins; both play it out."""
    settings = {**FAST, **config}

    def creator() -> GameReport:
        return BohnenspielClient(
            ClientConfig(server.url, "alice", player=alice, seed=1, **settings)
        ).play()

    def joiner() -> GameReport:
        client = BohnenspielClient(ClientConfig(server.url, "bob", player=bob, seed=2, **settings))
        deadline = time.monotonic() + 10
        while not (ids := client.open_games()):
            assert time.monotonic() < deadline, "no open game appeared"
            time.sleep(0.01)
        client.join_game(ids[0])
        return client.play_joined()

    reports = _run_threads({"alice": creator, "bob": joiner})
    a, b = reports["alice"], reports["bob"]
    assert a.game_id == b.game_id
    return a, b, server.lobby.game(a.game_id)


def check_game(server: LocalServer, game: ServerGame, *reports: GameReport) -> None:
    """The server's record follows the rules, mctslab's game agrees, and so do the clients."""
    assert game.status == FINISHED
    assert (game.reason, game.violations) == ("board", [])  # nobody moved out of turn
    assert sum(game.stores) == 72 and game.pits == [0] * 12
    s0, s1 = game.stores
    assert game.winner == (None if s0 == s1 else 0 if s0 > s1 else 1)
    # Replay the server's moves through mctslab's game: the same end, pit for pit.
    state = GAME.new_initial_state()
    for i, (player, field) in enumerate(game.moves):
        assert player == i % 2 == state.current_player()
        state.apply_action(state.string_to_action(str(field)))
    assert state.is_terminal()
    assert (GAME.pits(state), GAME.stores(state)) == (game.pits, game.stores)
    message = server.lobby.state_message(game.id)
    for report in reports:
        assert report.board_finished
        assert report.stores == (s0, s1)
        assert report.actions == tuple(field - 1 for _, field in game.moves)
        assert report.message == message
        assert report.server_state == FINISHED
        mine, theirs = report.our_store, report.their_store
        assert report.outcome == ("draw" if mine == theirs else "win" if mine > theirs else "loss")


@pytest.fixture
def server() -> Any:
    with serving() as srv:
        yield srv


def test_two_clients_play_a_full_game(server: LocalServer) -> None:
    a, b, game = play_through(server, "mcts:iterations=200", "random")
    check_game(server, game, a, b)
    assert (a.seat, b.seat) == (0, 1)
    assert {a.outcome, b.outcome} in ({"win", "loss"}, {"draw"})
    # The one whose opponent ended the game never saw that move: it was inferred.
    assert a.inferred_last_move != b.inferred_last_move
    assert "over after" in a.message


def test_mcts_against_minimax(server: LocalServer) -> None:
    a, b, game = play_through(server, "minimax:depth=2", "mcts:iterations=200")
    check_game(server, game, a, b)


def test_faults_do_not_break_the_game_or_the_turn_order(caplog: pytest.LogCaptureFixture) -> None:
    """Dropped connections, 500s, lost answers to applied moves, a server restart:
    the game is the same as without faults, and nobody moved out of turn."""
    with serving() as clean:
        *_, reference = play_through(clean, "mcts:iterations=200", "random")
        expected = list(reference.moves)

    faults = {
        ("alice", "creategame", 1): Fault("error"),
        ("alice", "check", 2): Fault("drop"),
        ("alice", "check", 5): Fault("error"),
        ("alice", "move", 2): Fault("delay_after", 1.5),  # applied; the answer times out
        ("alice", "move", 4): Fault("error"),  # not applied: resent
        ("alice", "move", 6): Fault("drop_after"),  # applied; the answer is lost
        (None, "opengames", 1): Fault("drop"),
        ("bob", "joingame", 1): Fault("drop_after"),  # joined; the answer is lost
        ("bob", "check", 3): Fault("delay", 0.2),
        ("bob", "move", 1): Fault("drop_after"),
        ("bob", "move", 3): Fault("error"),
        ("bob", "move", 5): Fault("delay_after", 1.5),
        (None, "statemsg", 1): Fault("error"),
    }
    triggered: list[Request] = []
    restarted: list[Request] = []

    def hook(request: Request) -> Fault | None:
        fault = faults.get((request.name, request.endpoint, request.nth))
        if fault:
            triggered.append(request)
        elif not restarted and request.name == "alice" and request.endpoint == "check":
            # Away for 0.3 s mid-game, while alice is to move: only checks meet the refused
            # connections (a move cut off in the listening queue could not be told apart
            # from a move applied whose answer was lost).
            game = next(iter(server.lobby.games.values()))
            if len(game.moves) >= 12 and game.to_move == 0:
                restarted.append(request)
                return Fault("restart", 0.3)
        return fault

    with serving(fault=hook) as server, caplog.at_level(logging.WARNING, "mctslab"):
        a, b, game = play_through(
            server, "mcts:iterations=200", "random", request_timeout=1.0, retry_base=0.05
        )
        check_game(server, game, a, b)
    assert game.moves == expected
    assert len(triggered) == len(faults) and len(restarted) == 1
    assert "Connection refused" in caplog.text
    moves_sent = {
        name: sum(1 for r in server.requests if r.endpoint == "move" and r.name == name)
        for name in ("alice", "bob")
    }
    # Resent exactly where the first request did nothing (HTTP 500): alice's 4th, bob's 3rd.
    # (A request refused during the restart never reached the server.)
    played = {
        name: sum(1 for p, _ in game.moves if p == seat) for seat, name in enumerate(moves_sent)
    }
    assert moves_sent == {"alice": played["alice"] + 1, "bob": played["bob"] + 1}


def test_the_real_cli_plays_a_game(server: LocalServer) -> None:
    common = ["--server", server.url, "--poll", "0.02", "--json"]
    creator = subprocess.Popen(
        [sys.executable, "-m", "mctslab", "bohnenspiel-client", "--create", "alice",
         "--player", "mcts:iterations=200", "--seed", "1", *common],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not (ids := http_transport(server.url)("/api/opengames")):
            assert creator.poll() is None, creator.communicate()
            assert time.monotonic() < deadline, "the creator opened no game"
            time.sleep(0.02)
        joiner = subprocess.run(
            [sys.executable, "-m", "mctslab", "bohnenspiel-client", "--join", ids, "bob",
             "--player", "minimax:depth=2", *common],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        out, err = creator.communicate(timeout=30)
    finally:
        creator.kill()
    assert creator.returncode == 0, err
    assert joiner.returncode == 0, joiner.stderr
    a, b = read_report(out), read_report(joiner.stdout)
    check_game(server, server.lobby.game(ids), a, b)
    assert "created game" in err and "we play field" in err


def read_report(text: str) -> GameReport:
    """A report printed by --json, read back (its lists as tuples again)."""
    data = json.loads(text)
    outcome = data.pop("outcome")
    report = GameReport(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})
    assert report.outcome == outcome
    return report


# The protocol, answer by answer, through a scripted transport --------------------------------


class Script:
    """A fake server: each endpoint answers from its queue (the last answer repeats)."""

    def __init__(self, **answers: list[str | Exception]) -> None:
        self.answers = answers
        self.log: list[tuple[str, str]] = []  # (path, answer or the error's name)

    def __call__(self, path: str) -> str:
        queue = self.answers[path.split("/")[2]]
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        self.log.append((path, item if isinstance(item, str) else type(item).__name__))
        if isinstance(item, Exception):
            raise item
        return item

    def moves(self) -> list[str]:
        return [p.rsplit("/", 1)[1] for p, _ in self.log if "/move/" in p]

    def assert_moves_in_turn(self) -> None:
        """Every move request follows a check that said it was our turn (or a failed move)."""
        last_check = None
        for path, answer in self.log:
            if "/check/" in path:
                last_check = answer
            elif "/move/" in path:
                assert last_check is not None and last_check not in ("0", "-2", "-3", "-4")


class Fixed:
    """A player that plays the given actions in order."""

    name = "fixed"

    def __init__(self, *actions: int) -> None:
        self.actions = list(actions)
        self.informed: list[int] = []

    def choose(self, state: State) -> int:
        return self.actions.pop(0)

    def inform(self, action: int) -> None:
        self.informed.append(action)


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def scripted(
    script: Script, *actions: int, game_id: str | None = None, **config: Any
) -> tuple[BohnenspielClient, FakeTime]:
    clock = FakeTime()
    name = "alice" if game_id is None else "bob"
    cfg = ClientConfig("http://server.test", name, game_id=game_id, **config)
    client = BohnenspielClient(cfg, script, Fixed(*actions), sleep=clock.sleep, clock=clock.clock)
    return client, clock


def lost(maybe_applied: bool = True) -> TransportError:
    return TransportError("lost", maybe_applied=maybe_applied)


def test_creator_waits_for_a_player_and_the_start_then_moves_first() -> None:
    script = Script(
        creategame=["12"],
        check=["-4", "-4", "0", "-1", "-3", "-3", "9", "-3", "-2"],
        move=["1"],
        state=["2"],
        statemsg=["over"],
    )
    client, clock = scripted(script, 2, 0)
    report = client.play()
    assert script.moves() == ["3", "1"]
    script.assert_moves_in_turn()
    assert report.actions == (2, 8, 0)
    assert (report.game_id, report.seat, report.message, report.outcome) == (
        "12",
        0,
        "over",
        "unknown",
    )
    # The poll interval backs off while waiting, and starts afresh each turn.
    assert clock.sleeps == [0.5, 0.75, 1.125, 0.5, 0.75, 0.5]
    assert client.player.informed == [2, 8, 0]  # type: ignore[attr-defined]


def test_joiner_applies_the_opponents_fields() -> None:
    script = Script(
        joingame=["1"], check=["-3", "3", "-3", "-3", "-2"], move=["1"], state=["2"], statemsg=["m"]
    )
    client, _ = scripted(script, 6, game_id="5")
    report = client.play()
    assert script.moves() == ["7"]
    script.assert_moves_in_turn()
    assert report.actions == (2, 6) and report.seat == 1


@pytest.mark.parametrize(
    ("answers", "words"),
    [
        (["3", "-3", "3"], "not a legal move for player 0"),  # pit 2 was emptied by field 3
        (["8"], "not a legal move for player 0"),  # a field on our own side
        (["-1"], "we make the first move, but we are player 1"),
        (["<html>"], "is --server the Bohnenspiel game server"),
        (["13"], "expected -4..12"),
    ],
)
def test_impossible_answers_stop_without_sending_a_move(answers: list[str], words: str) -> None:
    script = Script(joingame=["1"], check=answers, move=["1"])
    client, _ = scripted(script, 6, game_id="5")
    with pytest.raises(ProtocolError, match=words):
        client.play()
    assert len(script.moves()) == (1 if answers[0] == "3" else 0)


def test_our_own_field_echoed_means_not_our_turn() -> None:
    """Some servers answer check with the last field, ours included: that is a wait."""
    script = Script(
        creategame=["1"], check=["-1", "3", "3", "9", "-2"], move=["1"], state=["2"], statemsg=["m"]
    )
    client, _ = scripted(script, 2, 0)
    assert client.play().actions == (2, 8, 0)


def test_failed_requests_are_retried_with_capped_exponential_backoff() -> None:
    script = Script(
        joingame=["1"],
        check=[lost(), lost(), lost(), lost(), lost(), "-2"],
        state=["2"],
        statemsg=["m"],
    )
    client, clock = scripted(script, game_id="5", retry_base=1.0, retry_max=4.0)
    client.play()
    for delay, cap in zip(clock.sleeps, [1, 2, 4, 4, 4], strict=True):
        assert cap / 2 <= delay <= cap  # half fixed, half jitter


def test_the_client_gives_up_after_the_limit() -> None:
    script = Script(joingame=["1"], check=[lost(False)])
    client, clock = scripted(script, game_id="5", retry_base=1.0, retry_max=8.0, give_up=60.0)
    with pytest.raises(ServerUnavailableError, match="gave up after 60 s"):
        client.play()
    assert clock.now == pytest.approx(60.0)


# After a failed move request, the client re-checks before it resends (the joiner, answering
# field 3; fields 7 and 12 are its moves).
@pytest.mark.parametrize(
    ("move", "checks", "error", "sent"),
    [
        ("7", ["-3"], lost(), 1),  # the server moved on: our move was applied
        ("7", ["3"], lost(), 2),  # still field 3, which is no reply to field 7: resend
        ("12", ["3"], lost(False), 2),  # field 3 again could be a reply; a 500: resend
        ("12", ["3"], lost(True), 1),  # the same, but the answer was lost: applied
        ("7", ["4", "4"], lost(False), 1),  # a new field: the opponent has replied
    ],
)
def test_a_failed_move_is_resent_only_if_the_server_still_waits_for_it(
    move: str, checks: list[str], error: TransportError, sent: int
) -> None:
    script = Script(
        joingame=["1"],
        check=["3", *checks, "-2"],
        move=[error, "1"],
        state=["2"],
        statemsg=["m"],
    )
    client, _ = scripted(script, int(move) - 1, 7, game_id="5")
    report = client.play()
    assert script.moves()[:sent] == [move] * sent and script.moves().count(move) == sent
    script.assert_moves_in_turn()
    assert report.actions[:2] == (2, int(move) - 1)


def test_a_failed_first_move_is_resent_while_the_server_still_asks_for_it() -> None:
    script = Script(
        creategame=["1"], check=["-1", "-1", "-2"], move=[lost(), "1"], state=["2"], statemsg=["m"]
    )
    client, _ = scripted(script, 0)
    client.play()
    assert script.moves() == ["1", "1"]


def test_join_refused_and_a_lost_join_answer() -> None:
    client, _ = scripted(Script(joingame=["0"]), game_id="5")
    with pytest.raises(JoinRefusedError, match="refused to join game 5"):
        client.play()
    # The first join went through but its answer was lost: the retry hears 0, check says -3.
    script = Script(joingame=[lost(), "0"], check=["-3", "-2"], state=["2"], statemsg=["m"])
    client, _ = scripted(script, game_id="5")
    assert client.play().seat == 1


def test_the_opponents_last_move_is_inferred_when_only_one_ends_the_game() -> None:
    script = Script(check=["-2"], state=["2"], statemsg=["bob wins"])
    client, _ = scripted(script)
    client.game_id, client.seat = "9", 0
    # Player 1's only move, pit 11, makes pit 0 hold 2: captured, and player 0 has no beans.
    client.state = GAME.state_from_pits([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], (30, 40), player=1)
    report = client.play_joined()
    assert report.inferred_last_move and report.board_finished
    assert (report.stores, report.outcome) == ((30, 42), "loss")
    assert "inferred" in report.summary()


# The command line ----------------------------------------------------------------------------

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, ["bohnenspiel-client", *args])


def one_error(result: Result, code: int) -> str:
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr
    return errors[0]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "exactly one of --create NAME, --join ID NAME, --open-games"),
        (["--create", "a", "--join", "1", "b"], "got --create and --join"),
        (["--create", "a b"], "bad player name"),
        (["--create", "a", "--player", "mcts:bogus=1"], "unknown mcts option"),
        (["--create", "a", "--time-per-move", "0"], "time per move"),
        (["--create", "a", "--time-per-move", "400"], "the server allows 300 s"),
        (["--create", "a", "--poll", "-1"], "poll"),
    ],
)
def test_cli_user_errors(args: list[str], words: str) -> None:
    assert words in one_error(invoke("--server", "http://127.0.0.1:9", *args), 2)


def test_cli_bad_server_url() -> None:
    assert "bad server URL" in one_error(invoke("--server", "ftp://x", "--create", "a"), 2)


def test_cli_unreachable_server_gives_up() -> None:
    with serving() as srv:
        url = srv.url
    # The server is gone: connection refused, retried until --give-up.
    result = invoke("--server", url, "--create", "a", "--give-up", "0.3")
    assert "gave up after" in one_error(result, 1)


def test_cli_join_refused_and_open_games(server: LocalServer) -> None:
    assert "refused to join game 99" in one_error(
        invoke("--server", server.url, "--join", "99", "bob"), 1
    )
    game_id = server.lobby.create("carol")
    result = invoke("--server", server.url, "--open-games")
    assert result.exit_code == 0 and result.stdout.split() == [game_id]
