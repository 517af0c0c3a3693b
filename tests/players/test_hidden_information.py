"""Players that read the full state do not play games with hidden information unasked.

Every player is handed the full state; at Kuhn poker or Knockout Whist ``mcts`` and
``minimax`` would read the other players' cards. The arena, ``sprt``, ``tune``,
``analyze``, ``play`` and :func:`mctslab.players.player.play_game` refuse them, unless
cheating is allowed explicitly (``--allow-cheating``, ``allow_cheating=True``), and
then the results say so. (Imports of the new names sit inside the tests, so that
each test fails on its own on code without them.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mctslab
from conftest import require_extra
from mctslab.arena.store import ResultStore
from mctslab.arena.tournament import ArenaConfig, Entrant, GameTask, play_task, run_arena
from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State
from mctslab.players.player import make_player, play_game

runner = CliRunner()
CHEAT = "mcts:iterations=20"
FAIR = "ismcts:iterations=20"
REFUSED = "kuhn_poker hides information and"

#: What each player kind reads when it chooses: True, the full state (hidden cards too).
READS_HIDDEN = {
    "mcts": True,
    "puct": True,  # an MCTSPlayer: searches the state it is handed
    "gumbel": True,  # an MCTSPlayer too (Gumbel root search)
    "minimax": True,
    "openspiel-mcts": True,  # OpenSpiel's MCTSBot searches the state it is handed
    "pig-hold": True,  # reads the whole state (Pig has no hidden information)
    "az": True,  # PUCT with a network over the full observation tensor
    "policy": True,  # the network over the full observation tensor
    "ismcts": False,
    "pimc": False,
    "random": False,
    "openspiel-random": False,
    "human": False,  # shown only its observation
    "gtp": False,  # an outside program, told the moves only (and it plays go only)
}


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def assert_refused(code: int, err: str) -> None:
    assert code == 2, err
    assert err.startswith(f"error: {REFUSED}") and err.count("\n") == 1
    assert "--allow-cheating" in err


# Which players read hidden information ------------------------------------------------------


def test_every_player_kind_is_classified() -> None:
    from mctslab.players.player import KINDS, reads_hidden_information

    assert set(READS_HIDDEN) == set(KINDS)  # a new kind must be placed here
    for kind, reads in READS_HIDDEN.items():
        assert reads_hidden_information(kind) is reads, kind
        assert reads_hidden_information(f"{kind}:x=1") is reads, kind


def test_player_objects_are_classified_by_kind_or_by_what_they_declare() -> None:
    from mctslab.players.player import HumanPlayer, reads_hidden_information

    info = mctslab.make("kuhn_poker").info
    assert reads_hidden_information(make_player(CHEAT, info))
    assert reads_hidden_information(make_player("minimax:depth=2", info))
    assert not reads_hidden_information(make_player(FAIR, info))
    assert not reads_hidden_information(make_player("pimc:iterations=5", info))
    assert not reads_hidden_information(make_player("random", info))
    assert not reads_hidden_information(HumanPlayer())

    class Honest:
        name = "mine"
        reads_hidden_information = False

    class Unknown:
        name = "mine"

    assert not reads_hidden_information(Honest())  # type: ignore[arg-type]
    assert reads_hidden_information(Unknown())  # type: ignore[arg-type]  # taken to cheat


# The arena ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cheat", [CHEAT, "minimax", "openspiel-mcts:simulations=10"])
def test_the_arena_refuses_a_full_state_player_at_a_card_game(tmp_path: Path, cheat: str) -> None:
    if cheat.startswith("openspiel"):
        require_extra("pyspiel", "openspiel")
    config = ArenaConfig("kuhn_poker", (Entrant("uct", cheat), Entrant("is", FAIR)), games=2)
    with ResultStore(tmp_path / "r.db") as store:
        with pytest.raises(InvalidConfigError, match=f"{REFUSED} uct") as err:
            run_arena(config, store)
        assert "allow_cheating=True" in str(err.value)
        assert store.runs() == []  # refused before anything was stored


def test_allowed_cheating_is_recorded_with_the_run(tmp_path: Path) -> None:
    players = (Entrant("uct", CHEAT), Entrant("is", FAIR))
    config = ArenaConfig("kuhn_poker", players, games=2, allow_cheating=True)  # type: ignore[call-arg]
    with ResultStore(tmp_path / "r.db") as store:
        result = run_arena(config, store)
        assert len(result.records) == 2 and result.cheating == ("uct",)  # type: ignore[attr-defined]
        [run] = store.runs()
        assert run.cheating == ("uct",)  # type: ignore[attr-defined]


def test_fair_players_and_perfect_information_need_no_permission(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "r.db") as store:
        fair = ArenaConfig("kuhn_poker", (Entrant("is", FAIR), Entrant("r", "random")), games=2)
        perfect = ArenaConfig("tic_tac_toe", (Entrant("uct", CHEAT), Entrant("r", "random")))
        for config in (fair, perfect):
            result = run_arena(config, store)
            assert len(result.records) == 2 and result.cheating == ()  # type: ignore[attr-defined]
        assert all(run.cheating == () for run in store.runs())  # type: ignore[attr-defined]


def test_play_task_refuses_a_cheating_seat_unless_allowed() -> None:
    seats = (Entrant("uct", CHEAT), Entrant("r", "random"))
    with pytest.raises(InvalidConfigError, match=REFUSED):
        play_task(GameTask(0, "kuhn_poker", (), seats, 1))
    allowed = GameTask(0, "kuhn_poker", (), seats, 1, allow_cheating=True)  # type: ignore[call-arg]
    assert play_task(allowed).termination == "normal"


# play_game --------------------------------------------------------------------------------------


def test_play_game_refuses_a_full_state_player_unless_allowed() -> None:
    game = mctslab.make("kuhn_poker")
    players = [make_player(CHEAT, game.info, 1), make_player("random", game.info, 2)]
    with pytest.raises(InvalidConfigError, match=f"{REFUSED} seat 1 \\(mcts\\)"):
        play_game(game.new_initial_state(), players)
    final = play_game(game.new_initial_state(), players, allow_cheating=True)  # type: ignore[call-arg]
    assert final.is_terminal()
    fair = [make_player(FAIR, game.info, 1), make_player("random", game.info, 2)]
    assert play_game(game.new_initial_state(), fair).is_terminal()

    class Honest:
        """A player of the user's own that says it reads only its own information."""

        name = "mine"
        reads_hidden_information = False

        def choose(self, state: State) -> int:
            return state.legal_actions()[0]

        def inform(self, action: int) -> None:
            pass

    assert play_game(game.new_initial_state(), [Honest(), fair[1]]).is_terminal()


# The command line -------------------------------------------------------------------------------


def test_cli_arena_refuses_then_reports_allowed_cheating(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    args = [
        "arena", "kuhn_poker", "--player", f"uct={CHEAT}", "--player", f"is={FAIR}",
        "--games", "2", "--workers", "1", "--db", str(db), "--no-progress",
    ]  # fmt: skip
    code, _, err = invoke(*args)
    assert_refused(code, err)
    assert "uct (mcts:iterations=20)" in err and not db.exists()
    code, out, err = invoke(*args, "--allow-cheating")
    assert code == 0, err
    assert "cheating allowed: uct (mcts:iterations=20) sees hidden information" in out
    code, out, err = invoke(*args, "--allow-cheating", "--resume", "--json")
    assert code == 0, err
    assert json.loads(out)["cheating"] == ["uct"]
    code, out, err = invoke("ratings", "--db", str(db))
    assert code == 0, err
    assert "cheating allowed: uct (mcts:iterations=20) sees hidden information" in out
    code, out, _ = invoke("ratings", "--db", str(db), "--json")
    assert json.loads(out)["cheating"] == ["uct"]


def test_cli_sprt_refuses_a_cheating_player(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    code, _, err = invoke(
        "sprt", "kuhn_poker", "--player", f"a={CHEAT}", "--player", "b=random",
        "--max-games", "4", "--workers", "1", "--db", str(db), "--no-progress",
    )  # fmt: skip
    assert_refused(code, err)
    assert not db.exists()


def test_cli_play_refuses_a_cheating_player_before_any_move() -> None:
    code, out, err = invoke("play", "kuhn_poker", "--player", CHEAT, "--player", "random")
    assert_refused(code, err)
    assert out == ""
    # The default opponent of a human is mcts: the human is protected, asked nothing.
    result = runner.invoke(app, ["play", "kuhn_poker"], input="Pass\n")
    assert result.exit_code == 2 and "player 2 (mcts:iterations=5000)" in result.stderr
    assert "your move" not in result.stdout
    code, out, err = invoke(
        "play", "kuhn_poker", "--player", CHEAT, "--player", "random", "--allow-cheating"
    )
    assert code == 0, err
    note = "cheating allowed: player 1 (mcts:iterations=20) sees hidden information"
    assert out.startswith(note) and out.rstrip().endswith(note)


def test_cli_tune_refuses_a_cheating_grid(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    args = ["tune", "kuhn_poker", "--param", "iterations=5,20", "--games", "2", "--workers", "1"]
    code, _, err = invoke(*args, "--db", str(db), "--no-progress")
    assert_refused(code, err)
    assert not db.exists()
    code, out, err = invoke(*args, "--db", str(db), "--no-progress", "--allow-cheating", "--json")
    assert code == 0, err
    assert json.loads(out)["cheating"] == ["iterations_5", "iterations_20"]
    code, _, err = invoke(*args, "--player", "ismcts", "--db", str(db), "--no-progress")
    assert code == 0, err


def test_cli_analyze_refuses_self_play_that_sees_the_cards(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    args = ["analyze", "kuhn_poker", "--games", "2", "--workers", "1", "--db", str(db)]
    code, _, err = invoke(*args, "--no-progress")  # the default players are mcts
    assert_refused(code, err)
    assert not db.exists()
    code, out, err = invoke(*args, "--player", CHEAT, "--no-progress", "--allow-cheating")
    assert code == 0, err
    assert "cheating allowed: mcts-iterations-20.first, mcts-iterations-20.second see" in out
    code, _, err = invoke(*args, "--player", FAIR, "--no-progress")
    assert code == 0, err


def test_cli_exploitability_refuses_a_policy_read_from_the_full_state() -> None:
    args = ["exploitability", "kuhn_poker", "--json"]
    code, _, err = invoke(*args, "--player", "mcts:iterations=20")
    assert_refused(code, err)
    code, out, err = invoke(*args, "--player", "mcts:iterations=20", "--allow-cheating")
    assert code == 0, err
    assert json.loads(out)["cheating"] == ["mcts:iterations=20"]
    code, out, err = invoke(*args, "--player", "ismcts:iterations=20")
    assert code == 0, err
    assert json.loads(out)["cheating"] == []
