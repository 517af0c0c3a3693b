"""OpenSpiel both ways: its games under mctslab's API, its bots as mctslab players.

Oracles: ``pyspiel`` itself (random games through the adapter agree with the raw
``pyspiel`` state move by move), mctslab's built-in twins (the reference engine
finds the same tree on ``openspiel:tic_tac_toe`` as on ``tic_tac_toe``), minimax
(tic-tac-toe is a draw) and ``check_game``.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import require_extra

pyspiel = require_extra("pyspiel", "openspiel")

import mctslab  # noqa: E402
from mctslab.core.game import ImperfectInformationState, draw_outcome  # noqa: E402
from mctslab.core.infoset import NoConsistentWorldError, determinize  # noqa: E402
from mctslab.core.rng import Rng  # noqa: E402
from mctslab.core.testing import check_game  # noqa: E402
from mctslab.games.openspiel import OpenSpielState, openspiel_twin  # noqa: E402
from mctslab.players.openspiel import (  # noqa: E402
    OpenSpielMCTSPlayer,
    SpielGameView,
    SpielStateView,
)
from mctslab.players.player import MCTSPlayer, make_player, play_game  # noqa: E402
from mctslab.search.config import SearchConfig  # noqa: E402
from mctslab.search.mcts import search  # noqa: E402
from mctslab.search.minimax import solve  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hexapawn.py"


def _load_hexapawn() -> ModuleType:
    # examples/ is not a package: load the file by path (as test_example_game.py does).
    spec = importlib.util.spec_from_file_location("hexapawn_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


hexapawn = _load_hexapawn()
PIG = "openspiel:pig(horizon=20,winscore=20)"  # a short pig: a die roll at every turn


# -- the adapter: OpenSpiel's games under mctslab's API ------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "openspiel:tic_tac_toe",
        "openspiel:connect_four",
        "openspiel:go(board_size=5)",
        "openspiel:breakthrough(rows=5,columns=5)",
        PIG,  # chance nodes
        "openspiel:kuhn_poker",  # chance and imperfect information (the engines see all)
        "openspiel:leduc_poker",  # returns in [-13, 13]
        "openspiel:turn_based_simultaneous_game(game=goofspiel(num_cards=4))",
        "openspiel:catch",  # one player, general-sum
    ],
)
def test_check_game_passes(name: str) -> None:
    assert check_game(mctslab.make(name), n_games=10, seed=0) > 10


def test_name_forms_and_parameter_types() -> None:
    in_string = mctslab.make("openspiel:go(board_size=9)")
    as_keyword = mctslab.make("openspiel:go", board_size=9)
    assert in_string.info == as_keyword.info
    assert in_string.info.name == "openspiel:go(board_size=9)"
    # What the CLI passes (strings, ints for floats) becomes what OpenSpiel declares.
    cli = mctslab.make("openspiel:go", board_size="9", komi=7)
    assert cli.spiel_game.get_parameters()["komi"] == 7.0  # type: ignore[attr-defined]
    assert cli.spiel_game.get_parameters()["board_size"] == 9  # type: ignore[attr-defined]
    nim = mctslab.make("openspiel:nim", pile_sizes="1;3;5", is_misere="false")
    assert nim.info.name == "openspiel:nim(is_misere=False,pile_sizes=1;3;5)"
    assert mctslab.core.registry.game_parameters("openspiel:go")["board_size"] == 19


def test_game_info() -> None:
    game = mctslab.make("openspiel:tic_tac_toe")
    assert isinstance(game, mctslab.Game) and isinstance(game.new_initial_state(), mctslab.State)
    info = game.info
    assert info == mctslab.GameInfo("openspiel:tic_tac_toe", 1, 2, 9, 9, True, -1.0, 1.0)
    # history() holds die rolls too: the bounds cover the chance outcomes and nodes.
    pig = mctslab.make(PIG)
    spiel = pig.spiel_game  # type: ignore[attr-defined]
    assert pig.info.num_actions == max(spiel.num_distinct_actions(), spiel.max_chance_outcomes())
    assert pig.info.num_actions == 6
    assert pig.info.max_game_length == 40
    assert mctslab.make("openspiel:kuhn_poker").info.min_utility == -2.0
    assert not mctslab.make("openspiel:catch").info.zero_sum


def _spiel_random_action(state: Any, rng: Rng) -> int:
    if state.is_chance_node():
        return draw_outcome(state.chance_outcomes(), rng)
    return rng.choice(state.legal_actions())


@pytest.mark.parametrize(
    ("name", "n_games"),
    [("tic_tac_toe", 50), ("connect_four", 20), ("pig(horizon=20,winscore=20)", 20),
     ("kuhn_poker", 30), ("chess", 2)],
)  # fmt: skip
def test_random_games_agree_with_pyspiel_move_by_move(name: str, n_games: int) -> None:
    game = mctslab.make("openspiel:" + name)
    spiel_game = pyspiel.load_game(name)
    for seed in range(n_games):
        rng = Rng(seed)
        state, other = game.new_initial_state(), spiel_game.new_initial_state()
        while True:
            got = (state.current_player(), state.is_terminal(), state.legal_actions(), str(state))
            want = (other.current_player(), other.is_terminal(), other.legal_actions(), str(other))
            assert got == want, f"{name} seed {seed} after {state.history()}"
            if other.is_terminal():
                break
            action = _spiel_random_action(other, rng)
            state.apply_action(action)
            other.apply_action(action)
        assert state.returns() == list(other.returns())
        assert state.history() == list(other.history())


def test_chance_outcomes_sum_to_one() -> None:
    state = mctslab.make(PIG).new_initial_state()
    assert state.chance_outcomes() == []  # a decision node
    state.apply_action(0)  # roll
    assert state.current_player() == mctslab.CHANCE
    outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
    assert [a for a, _ in outcomes] == state.legal_actions() == list(range(6))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)


def test_reference_engine_finds_the_winning_move() -> None:
    # x: a1 b1 (0, 1), o: a2 b2 (3, 4); x to move wins with c1 (2), and must not
    # miss it: o threatens c2 (5).
    state = mctslab.make("openspiel:tic_tac_toe").state_from_actions([0, 3, 1, 4])
    result = search(state, SearchConfig(iterations=2000, seed=0))
    assert result.action == 2
    solved = search(state, SearchConfig(iterations=2000, seed=0, solver=True))
    assert (solved.action, solved.proven, solved.stopped_by) == (2, 1, "proven")


def test_reference_engine_grows_the_same_tree_as_on_the_builtin_twin() -> None:
    # Same rules, action ids and seed: any difference is the adapter's.
    config = SearchConfig(iterations=1500, seed=7)
    for moves in ([], [4], [0, 4, 8]):
        builtin = mctslab.make("tic_tac_toe").state_from_actions(moves)
        ours = mctslab.search(builtin, config, engine="reference")
        theirs = search(mctslab.make("openspiel:tic_tac_toe").state_from_actions(moves), config)
        assert theirs.children == ours.children and theirs.action == ours.action


def test_minimax_solves_tic_tac_toe_to_a_draw() -> None:
    assert solve(mctslab.make("openspiel:tic_tac_toe").new_initial_state()).outcome == 0


def test_action_names_round_trip() -> None:
    state = mctslab.make("openspiel:chess").new_initial_state()
    e4 = state.string_to_action("e4")
    assert state.action_to_string(e4) == "e4"
    state.apply_action(e4)
    assert str(state).startswith("rnbqkbnr/pppppppp/8/8/4P3")
    ttt = mctslab.make("openspiel:tic_tac_toe").new_initial_state()
    assert ttt.string_to_action("x(1,1)") == ttt.string_to_action(" X(1, 1) ") == 4
    assert ttt.string_to_action("4") == 4  # an action id is accepted too
    with pytest.raises(mctslab.IllegalActionError, match=r"unknown action 'zz'.*x\(0,0\)"):
        ttt.string_to_action("zz")


def test_illegal_actions_raise_and_change_nothing() -> None:
    state = mctslab.make("openspiel:tic_tac_toe").state_from_actions([4])
    before = (str(state), state.history(), state.legal_actions())
    for action in (4, 9, -1, 1.5, "3"):
        with pytest.raises(mctslab.IllegalActionError, match=r"legal actions: 0 \(o\(0,0\)\)"):
            state.apply_action(action)  # type: ignore[arg-type]
    assert (str(state), state.history(), state.legal_actions()) == before
    over = mctslab.make("openspiel:tic_tac_toe").state_from_actions([0, 3, 1, 4, 2])
    with pytest.raises(mctslab.IllegalActionError, match="game is over"):
        over.apply_action(5)


def test_an_action_pyspiel_would_accept_silently_is_refused() -> None:
    # pyspiel lets kuhn_poker deal the same card twice (a corrupt state); the adapter does not.
    raw = pyspiel.load_game("kuhn_poker").new_initial_state()
    raw.apply_action(2)
    raw.apply_action(2)
    assert raw.history() == [2, 2]
    state = mctslab.make("openspiel:kuhn_poker").state_from_actions([2])
    with pytest.raises(mctslab.IllegalActionError, match="legal actions: 0"):
        state.apply_action(2)
    assert state.history() == [2]


@pytest.mark.parametrize("name", ["openspiel:nonexistent", "openspiel:", "openspiel:tic_tac_to"])
def test_unknown_games_raise_one_line_errors(name: str) -> None:
    with pytest.raises(mctslab.UnknownGameError) as info:
        mctslab.make(name)
    assert "\n" not in str(info.value)
    if name.endswith("tic_tac_to"):
        assert "did you mean tic_tac_toe" in str(info.value)


def test_the_registry_error_mentions_openspiel() -> None:
    with pytest.raises(mctslab.UnknownGameError, match="openspiel:<name>"):
        mctslab.make("chess960")


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("openspiel:go", {"boardsize": 9}, "unknown parameter 'boardsize'.*board_size, handicap"),
        ("openspiel:go(boardsize=9)", {}, "unknown parameter 'boardsize'"),
        (
            "openspiel:go",
            {"board_size": "x"},
            "'board_size' of OpenSpiel game 'go' takes an integer",
        ),
        ("openspiel:go", {"komi": [1]}, "'komi' .* takes a number"),
        ("openspiel:go", {"board_size": -3}, "unsupported board size"),
        ("openspiel:go(board_size=9", {}, "bad OpenSpiel game string"),
        ("openspiel:goofspiel", {}, "simultaneous.*turn_based_simultaneous_game"),
        ("openspiel:matrix_rps", {}, "sequential moves only"),
    ],
)
def test_bad_parameters_and_unplayable_games_raise_invalid_config(
    name: str, params: dict[str, Any], match: str
) -> None:
    with pytest.raises(mctslab.InvalidConfigError, match=match) as info:
        mctslab.make(name, **params)
    assert "\n" not in str(info.value)


def test_openspiel_names_cannot_be_registered() -> None:
    with pytest.raises(mctslab.InvalidConfigError, match="OpenSpiel's"):
        mctslab.register("openspiel:mine", mctslab.make("openspiel:tic_tac_toe").__class__)


def test_missing_pyspiel_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    info = mctslab.make("tic_tac_toe").info
    with pytest.raises(mctslab.UnknownGameError, match=r"pip install 'mctslab\[openspiel\]'"):
        mctslab.make("openspiel:tic_tac_toe")
    for spec in ("openspiel-mcts", "openspiel-random"):
        with pytest.raises(mctslab.InvalidSpecError, match=r"mctslab\[openspiel\]"):
            make_player(spec, info)


# -- the players: OpenSpiel's bots on mctslab's games --------------------------------------


def test_twins() -> None:
    assert str(openspiel_twin(mctslab.make("tic_tac_toe"))) == "tic_tac_toe()"
    c4 = openspiel_twin(mctslab.make("connect_four", rows=5, columns=6, x_in_row=3))
    assert {"rows": 5, "columns": 6, "x_in_row": 3}.items() <= c4.get_parameters().items()
    nim = openspiel_twin(mctslab.make("nim", piles="1;3;5"))
    assert nim.get_parameters() == {"pile_sizes": "1;3;5", "is_misere": False}
    game = mctslab.make("openspiel:go(board_size=5)")
    assert openspiel_twin(game) is game.spiel_game  # type: ignore[attr-defined]
    assert openspiel_twin(mctslab.make("bachet")) is None  # a take limit: no twin
    assert openspiel_twin(mctslab.make("nim", piles=[2, 5], max_take=3)) is None
    assert openspiel_twin(hexapawn.Hexapawn()) is None


def test_openspiel_mcts_beats_random_on_the_builtin_tic_tac_toe() -> None:
    game = mctslab.make("tic_tac_toe")
    scores = []
    for g in range(4):
        bot = make_player("openspiel-mcts:simulations=1000", game.info, seed=g)
        rand = make_player("random", game.info, seed=100 + g)
        seat = g % 2
        players = [bot, rand] if seat == 0 else [rand, bot]
        final = play_game(game.new_initial_state(), players)
        scores.append(final.returns()[seat])
        assert isinstance(bot, OpenSpielMCTSPlayer) and bot.backend == "cpp"
    assert min(scores) >= 0 and sum(scores) >= 2, scores


def test_openspiel_mcts_plays_a_game_without_twin_through_the_python_bot() -> None:
    game = hexapawn.Hexapawn()
    white = make_player("openspiel-mcts:simulations=300", game.info, seed=1)
    black = make_player("openspiel-mcts:simulations=300,solve=0", game.info, seed=2)
    final = play_game(game.new_initial_state(), [white, black])  # every move is checked
    assert final.is_terminal() and sum(final.returns()) == 0
    assert isinstance(white, OpenSpielMCTSPlayer) and white.backend == "python"


def test_openspiel_mcts_with_the_solver_takes_a_win_in_one() -> None:
    for spec in ("openspiel-mcts:simulations=500", "openspiel-mcts:simulations=500,backend=python"):
        bot = make_player(spec, hexapawn.Hexapawn().info, seed=0)
        # 3x3 after a1-a2 c3-c2: a2xb3 reaches the far row at once.
        state = hexapawn.Hexapawn().state_from_actions([0 * 9 + 3, 8 * 9 + 5])
        assert state.action_to_string(bot.choose(state)) == "a2xb3"
        ttt = mctslab.make("tic_tac_toe").state_from_actions([0, 3, 1, 4])
        bot = make_player(spec, mctslab.make("tic_tac_toe").info, seed=0)
        assert bot.choose(ttt) == 2


def test_play_game_openspiel_mcts_against_mcts_on_an_openspiel_game() -> None:
    game = mctslab.make("openspiel:tic_tac_toe")
    players = [
        make_player("openspiel-mcts:simulations=500", game.info, seed=0),
        make_player("mcts:iterations=500", game.info, seed=1),
    ]
    final = play_game(game.new_initial_state(), players)
    assert final.is_terminal() and sum(final.returns()) == 0
    assert isinstance(players[1], MCTSPlayer)


@pytest.mark.parametrize("backend", ["cpp", "python"])
def test_openspiel_mcts_same_seed_same_game(backend: str) -> None:
    game = mctslab.make("connect_four", rows=4, columns=5, x_in_row=3)

    def one_game(seed: int) -> list[int]:
        spec = f"openspiel-mcts:simulations=60,solve=0,backend={backend}"
        a, b = make_player(spec, game.info, seed=seed), make_player(spec, game.info, seed=seed + 1)
        return play_game(game.new_initial_state(), [a, b]).history()

    assert one_game(3) == one_game(3)
    assert any(one_game(s) != one_game(3) for s in (4, 5, 6))


def test_openspiel_random_is_reproducible_with_a_seed() -> None:
    game = mctslab.make("connect_four")

    def one_game(seed: int) -> list[int]:
        a = make_player("openspiel-random", game.info, seed=seed)
        b = make_player(f"openspiel-random:seed={seed + 1}", game.info, seed=999)
        return play_game(game.new_initial_state(), [a, b]).history()

    assert one_game(5) == one_game(5)
    assert one_game(5) != one_game(6)
    # The spec's seed wins over make_player's.
    a = make_player("openspiel-random:seed=1", game.info, seed=2)
    b = make_player("openspiel-random", game.info, seed=1)
    state = game.new_initial_state()
    assert [a.choose(state) for _ in range(20)] == [b.choose(state) for _ in range(20)]


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("openspiel-mcts:iterations=5", r"unknown openspiel-mcts option 'iterations' \(did you mean simulations\?\); valid options: backend, max_memory_mb, rollouts"),
        ("openspiel-mcts:time=1", r"'time'.*no time budget"),
        ("openspiel-mcts:uct_c=x", r"bad value 'x' for 'uct_c': expected a number"),
        ("openspiel-mcts:simulations=0", r"simulations must be a positive integer"),
        ("openspiel-mcts:backend=gpu", r"backend must be one of auto, cpp, python"),
        ("openspiel-random:depth=2", r"unknown openspiel-random option 'depth'; valid options: seed"),
        ("openspiel-random:seed=x", r"bad value 'x'"),
        ("openspiel", r"valid: mcts, .*minimax, random, human, .*openspiel-mcts, openspiel-random"),
    ],
)  # fmt: skip
def test_bad_specs_raise_invalid_spec(spec: str, match: str) -> None:
    with pytest.raises(mctslab.InvalidSpecError, match=match):
        make_player(spec, mctslab.make("tic_tac_toe").info)


def test_max_simulations_is_an_alias() -> None:
    a = make_player("openspiel-mcts:max_simulations=77", mctslab.make("tic_tac_toe").info)
    assert isinstance(a, OpenSpielMCTSPlayer) and a.config.simulations == 77


def test_cpp_backend_needs_a_twin_and_no_move_at_chance_or_terminal() -> None:
    game = hexapawn.Hexapawn()
    bot = make_player("openspiel-mcts:backend=cpp", game.info)
    with pytest.raises(mctslab.InvalidConfigError, match="hexapawn has none: use backend=python"):
        bot.choose(game.new_initial_state())
    pig = mctslab.make(PIG)
    rolling = pig.state_from_actions([0])
    for spec in ("openspiel-mcts", "openspiel-random"):
        with pytest.raises(mctslab.InvalidConfigError, match="chance node"):
            make_player(spec, pig.info).choose(rolling)
    over = mctslab.make("tic_tac_toe").state_from_actions([0, 3, 1, 4, 2])
    with pytest.raises(mctslab.InvalidConfigError, match="game is over"):
        make_player("openspiel-mcts", over.game.info).choose(over)  # type: ignore[attr-defined]


def test_the_views_speak_pyspiel() -> None:
    state = hexapawn.Hexapawn().new_initial_state()
    view = SpielStateView(state)
    assert view.current_player() == 0 and not view.is_chance_node() and view.is_player_node()
    assert view.legal_actions(0) == state.legal_actions() and view.legal_actions(1) == []
    child = view.clone()
    child.apply_action(view.legal_actions()[0])
    assert state.history() == [] and len(child.history()) == 1
    assert view.action_to_string(0, 13) == view.action_to_string(13) == "b1-b2"
    game = SpielGameView(state.game.info)
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.max_utility() == 1.0 and game.num_players() == 2


def test_the_adapter_state_is_what_openspiel_bots_replay() -> None:
    # On an OpenSpiel game the C++ bot searches a clone of the wrapped pyspiel state.
    game = mctslab.make("openspiel:connect_four")
    state = game.state_from_actions([3, 3, 3])
    assert isinstance(state, OpenSpielState)
    bot = make_player("openspiel-mcts:simulations=200", game.info, seed=0)
    assert bot.choose(state) in state.legal_actions()
    assert state.history() == [3, 3, 3]


# -- imperfect information: information states, observations, determinizations ------------


def _random_states(name: str, n_games: int) -> list[OpenSpielState]:
    """Every state along ``n_games`` random games of ``name``, terminal ones included."""
    game = mctslab.make(name)
    states = []
    for seed in range(n_games):
        rng = Rng(seed)
        state = game.new_initial_state()
        assert isinstance(state, OpenSpielState)
        states.append(state.clone())
        while not state.is_terminal():
            state.apply_action(_spiel_random_action(state.spiel_state, rng))
            states.append(state.clone())
    return states


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker", "tic_tac_toe", "liars_dice"])
def test_information_state_strings_are_pyspiels(name: str) -> None:
    spiel_game = pyspiel.load_game(name)
    has_observations = spiel_game.get_type().provides_observation_string
    for state in _random_states("openspiel:" + name, 10):
        assert isinstance(state, ImperfectInformationState)
        other = spiel_game.new_initial_state()
        for action in state.history():
            other.apply_action(action)
        for player in range(spiel_game.num_players()):
            got = state.information_state_string(player)
            assert got == other.information_state_string(player)
            if has_observations:
                assert state.observation_string(player) == other.observation_string(player)
    kuhn = mctslab.make("openspiel:kuhn_poker").state_from_actions([2, 0, 0, 1])
    assert [kuhn.information_state_string(p) for p in (0, 1)] == ["2pb", "0pb"]  # type: ignore[attr-defined]


def test_games_without_information_states_or_observations_raise_invalid_config(
    capfd: pytest.CaptureFixture[str],
) -> None:
    pig = mctslab.make(PIG).state_from_actions([0, 3])
    # Perfect information without OpenSpiel strings: the history, as mctslab's own pig.
    assert pig.information_state_string(0) == "0, 3"  # type: ignore[attr-defined]
    assert pig.information_state_string(1) == "0, 3"  # type: ignore[attr-defined]
    with pytest.raises(mctslab.InvalidConfigError, match="no information state strings"):
        mctslab.make("openspiel:crazy_eights").new_initial_state().information_state_string(0)  # type: ignore[attr-defined]
    dice = mctslab.make("openspiel:liars_dice").new_initial_state()
    with pytest.raises(mctslab.InvalidConfigError, match="liars_dice provides no observation"):
        dice.observation_string(0)  # type: ignore[attr-defined]
    kuhn = mctslab.make("openspiel:kuhn_poker").new_initial_state()
    for bad in (2, -1, mctslab.CHANCE, 0.5):
        for method in ("information_state_string", "observation_string"):
            with pytest.raises(mctslab.InvalidConfigError, match=r"player must be .* \[0, 2\)"):
                getattr(kuhn, method)(bad)
        with pytest.raises(mctslab.InvalidConfigError, match=r"\[0, 2\)"):
            kuhn.resample_from_infostate(bad, Rng(0))  # type: ignore[attr-defined]
    assert "OpenSpiel exception" not in capfd.readouterr().err


@pytest.mark.parametrize(
    ("name", "n_games"),
    [("kuhn_poker", 20), ("kuhn_poker(players=3)", 10), ("leduc_poker", 20), ("leduc_poker(players=3)", 5)],
)  # fmt: skip
def test_resampled_worlds_are_consistent_and_legal(name: str, n_games: int) -> None:
    # Every state of random games, the deal and the showdown included (pyspiel's
    # own draw fails before the player's card is dealt and, in Leduc, at a
    # showdown: the adapter replays the deal there).
    game = mctslab.make("openspiel:" + name)
    rng = Rng(1)
    for state in _random_states("openspiel:" + name, n_games):
        for player in range(game.info.num_players):
            world = state.resample_from_infostate(player, rng)
            assert isinstance(world, OpenSpielState) and world is not state
            info = state.information_state_string(player)
            assert world.information_state_string(player) == info, (state.history(), player)
            replayed = game.state_from_actions(world.history())  # every action legal
            assert replayed.history() == world.history()
            assert len(world.history()) == len(state.history())
            assert world.is_terminal() == state.is_terminal()


def test_every_kuhn_poker_state_resamples() -> None:
    game = mctslab.make("openspiel:kuhn_poker")
    rng = Rng(2)
    stack = [game.new_initial_state()]
    count = 0
    while stack:
        state = stack.pop()
        for player in (0, 1):
            world = state.resample_from_infostate(player, rng)  # type: ignore[attr-defined]
            assert world.information_state_string(player) == state.information_state_string(player)  # type: ignore[attr-defined]
            count += 1
        stack.extend(state.child(a) for a in state.legal_actions())
    assert count == 2 * 58


def test_resampling_is_reproducible_uniform_and_reweighted_by_a_model() -> None:
    # Player 0 holds the Jack (0) and checked; player 1 holds the King (2).
    state = mctslab.make("openspiel:kuhn_poker").state_from_actions([0, 2, 0])

    def draws(seed: int, n: int, model: Any = None) -> list[list[int]]:
        rng = Rng(seed)
        return [state.resample_from_infostate(0, rng, model).history() for _ in range(n)]  # type: ignore[attr-defined]

    assert draws(5, 50) == draws(5, 50)
    assert draws(5, 50) != draws(6, 50)
    many = draws(7, 2000)
    assert {tuple(h) for h in many} == {(0, 1, 0), (0, 2, 0)}
    queens = sum(h[1] == 1 for h in many)
    assert abs(queens - 1000) < 4 * math.sqrt(2000 * 0.25)  # uniform: p = 1/2
    assert state.history() == [0, 2, 0]  # the state itself is untouched

    # A model that rules out the King: only the Queen is left.
    def no_king(world: mctslab.State, player: int) -> float:
        return 0.0 if world.history()[1] == 2 else 1.0

    assert all(h == [0, 1, 0] for h in draws(8, 30, no_king))

    # A model that gives the King weight 1/4: Queen : King = 4 : 1 (rejection sampling).
    def unlikely_king(world: mctslab.State, player: int) -> float:
        return 0.25 if world.history()[1] == 2 else 1.0

    kings = sum(h[1] == 2 for h in draws(9, 2000, unlikely_king))
    assert abs(kings - 400) < 4 * math.sqrt(2000 * 0.2 * 0.8)
    with pytest.raises(NoConsistentWorldError):
        state.resample_from_infostate(0, Rng(0), lambda world, player: 0.0)  # type: ignore[attr-defined]


def test_perfect_information_games_resample_to_a_copy() -> None:
    for name, moves in (("openspiel:tic_tac_toe", [4, 0]), (PIG, [0, 3])):
        state = mctslab.make(name).state_from_actions(moves)
        assert isinstance(state, OpenSpielState)
        world = state.resample_from_infostate(1, Rng(0))
        assert world is not state and world.spiel_state is not state.spiel_state
        assert world.history() == state.history() and str(world) == str(state)
        assert determinize(state, 0, Rng(0)).history() == moves
    ttt = mctslab.make("openspiel:tic_tac_toe").state_from_actions([4, 0])
    assert ttt.information_state_string(0) == "4, 0"  # type: ignore[attr-defined]


def test_games_pyspiel_cannot_resample_raise_invalid_config(
    capfd: pytest.CaptureFixture[str],
) -> None:
    game = mctslab.make("openspiel:liars_dice")
    state = game.state_from_actions([0, 1])
    for _ in range(2):  # the first try finds out, the second knows
        with pytest.raises(
            mctslab.InvalidConfigError, match="liars_dice: OpenSpiel cannot resample"
        ):
            state.resample_from_infostate(0, Rng(0))  # type: ignore[attr-defined]
    assert game.resamples is False  # type: ignore[attr-defined]
    assert "OpenSpiel exception" not in capfd.readouterr().err  # pyspiel's complaint is muted
