"""The command line's messages of issue 52 (item 12 and the option values of item 25):
each mistake is one ``error:`` line that says what was expected, a mistyped game name
gets a suggestion, option values are ASCII digits only, ``play go`` says the score and
a card game's hidden deal is one line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import mctslab
from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError, InvalidSpecError, UnknownGameError
from mctslab.core.registry import parse_value
from mctslab.core.text import ascii_float, did_you_mean
from mctslab.players.player import make_player, search_config


def _error(args: list[str]) -> str:
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def test_nim_piles_given_as_one_number_say_the_list_form() -> None:
    line = _error(["solve", "nim", "-p", "piles=3"])
    assert "piles is a ;-separated list" in line and 'piles="3;4;5"' in line
    assert "not iterable" not in line
    with pytest.raises(InvalidConfigError, match="piles is a ;-separated list"):
        mctslab.make("nim", piles=3)
    with pytest.raises(InvalidConfigError, match="whole numbers"):
        mctslab.make("nim", piles="3;x")
    with pytest.raises(InvalidConfigError, match="whole numbers"):
        mctslab.make("nim", piles="3;٣")  # an Arabic-Indic digit
    assert mctslab.make("nim", piles="7;").piles == (7,)  # one pile, as the message says
    assert mctslab.make("nim", piles=[1, 3]).piles == (1, 3)


def test_a_missing_file_to_grade_is_no_such_file(tmp_path: object) -> None:
    line = _error(["grade", "nothere.py"])
    assert line == "error: no such file: 'nothere.py'"


def test_a_mistyped_game_name_gets_a_suggestion() -> None:
    line = _error(["solve", "tic_tac_to"])
    assert "unknown game 'tic_tac_to' (did you mean tic_tac_toe?)" in line
    with pytest.raises(UnknownGameError, match=r"did you mean connect_four\?"):
        mctslab.make("conect_four")
    far = _error(["solve", "chess"])
    assert "did you mean" not in far and "available games" in far
    assert did_you_mean("seeed", ["seed", "c"]) == " (did you mean seed?)"


def test_a_mistyped_option_key_gets_a_suggestion() -> None:
    line = _error(["search", "tic_tac_toe", "seeed=1"])
    assert "unknown mcts option 'seeed' (did you mean seed?)" in line


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("c=abc", "bad value 'abc' for 'c': expected a number"),
        ("iterations=lots", "bad value 'lots' for 'iterations': expected an integer"),
        ("solver=maybe", "bad value 'maybe' for 'solver': expected 1 or 0"),
    ],
)
def test_a_bad_option_value_says_the_type_expected(option: str, expected: str) -> None:
    assert expected in _error(["search", "tic_tac_toe", option])


@pytest.mark.parametrize(
    "option",
    [
        "iterations=٣٠",  # Arabic-Indic digits: int() reads 30
        "iterations=１２",  # fullwidth digits: int() reads 12
        "iterations=1_000",  # int() reads 1000
        "c=１.５",
        "c=1_0.5",
        "seed=٣",
    ],
)
def test_option_values_are_ascii_digits_without_underscores(option: str) -> None:
    key, _, raw = option.partition("=")
    line = _error(["search", "tic_tac_toe", option])
    assert f"bad value {raw!r} for {key!r}" in line and "ASCII digits" in line
    with pytest.raises(InvalidSpecError, match="ASCII digits"):
        search_config({key: raw})
    info = mctslab.make("tic_tac_toe").info
    with pytest.raises(InvalidSpecError, match="ASCII digits"):
        make_player(f"ismcts:{option}", info, 0)


@pytest.mark.parametrize("raw", ["1_0", "\u0663", "\uff12"])
def test_search_openspiel_and_grid_values_are_ascii_digits_too(raw: str) -> None:
    """The optimizers' specs, the OpenSpiel MCTS options and the tuner's grids read their
    numbers as the player specs do: int() and float() alone take 1_0 and other digits."""
    from mctslab.arena.tune import parse_grid
    from mctslab.players.openspiel import openspiel_mcts_config
    from mctslab.players.optimizers import parse_optimizer

    with pytest.raises(InvalidSpecError, match="bad value"):
        parse_optimizer(f"nrpa:level={raw}")
    with pytest.raises(InvalidSpecError, match="bad value"):
        openspiel_mcts_config({"max_simulations": raw})
    with pytest.raises(InvalidConfigError, match="ASCII digits"):
        parse_grid(f"c=1,{raw}")
    assert parse_optimizer("nrpa:level=2,bias=4").options == (("level", 2), ("bias", 4.0))


def test_ascii_numbers_still_read() -> None:
    config = search_config({"iterations": "1000", "c": "1.5", "seed": "-3"})
    assert (config.iterations, config.c, config.seed) == (1000, 1.5, -3)
    assert search_config({"c": "1e-1"}).c == 0.1 and search_config({"c": ".5"}).c == 0.5
    assert ascii_float("2") == 2.0 and ascii_float("1_0") is None and ascii_float(" 1") is None


def test_game_parameters_read_ascii_numbers_only() -> None:
    assert parse_value("7") == 7 and parse_value("-2") == -2 and parse_value("0.5") == 0.5
    assert parse_value("1_0") == "1_0" and parse_value("٣") == "٣"  # the game refuses them
    line = _error(["search", "connect_four", "-p", "rows=1_0", "--iterations", "5"])
    assert "rows must be an integer" in line


def test_play_go_ends_with_the_score() -> None:
    done = CliRunner().invoke(
        app, ["play", "go", "-p", "board_size=5", "--player1", "random", "--player2", "random"]
    )
    assert done.exit_code == 0, done.output
    result, score = done.stdout.strip().splitlines()[-2:]
    assert score.startswith("score: ") and "Tromp-Taylor area, komi 7.5" in score
    margin = score.split()[1]
    winner = "Black" if margin.startswith("B+") else "White"
    assert margin[:2] in ("B+", "W+") and result.startswith(f"{winner} wins")


def test_play_tic_tac_toe_has_no_score_line() -> None:
    done = CliRunner().invoke(
        app, ["play", "tic_tac_toe", "--player1", "random", "--player2", "random"]
    )
    assert done.exit_code == 0 and "score:" not in done.stdout


def test_a_hidden_deal_is_one_line_before_the_first_prompt() -> None:
    done = CliRunner().invoke(
        app,
        ["play", "knockout_whist", "--player1", "human", "--player2", "ismcts:iterations=20"],
        input="",
    )
    assert done.exit_code == 1  # the prompt read end of input: game abandoned
    before = done.stdout.split("your move")[0]
    chance = [line for line in before.splitlines() if line.startswith("chance:")]
    assert chance == ["chance: 15 hidden deals"]  # 7 cards each and the trump card
    assert "(hidden)" not in done.stdout


def test_lessons_says_jupyterlab_is_installed_apart() -> None:
    done = CliRunner().invoke(app, ["lessons"])
    assert done.exit_code == 0
    text = " ".join(done.stdout.split())
    assert "which no extra of mctslab installs (pip install jupyterlab" in text
    assert "the dev extra installs it" not in text
