"""What a game declares to the lab (mctslab.core.declarations): its parameter schema,
read by the registry (``parameter_schema``), the web lab's Optimize catalog and ``mctslab
games``; a single-player game's own searches, shipped instances and proven optimum, the
travelling salesman's written once in games/tsp and read from there by the web and the
CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Literal

import pytest
from typer.testing import CliRunner

import mctslab
from mctslab.core import registry
from mctslab.core.declarations import (
    Parameter,
    Rendering,
    baseline_limits,
    baselines,
    instances,
    known_optimum,
    record_format,
)
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, player_label
from mctslab.core.registry import parameter_schema
from mctslab.games.tsp import BASELINES
from mctslab.games.tsp import known_optimum as tsp_length
from mctslab.games.tsp.exact import MAX_EXACT_CITIES
from mctslab.games.tsp.game import form_instance


class Ladder:
    """A user's game that declares its schema: two parameters, bounds and choices."""

    def __init__(self, rungs: int = 4, wood: Literal["oak", "pine"] = "oak") -> None:
        self.rungs, self.wood = rungs, wood
        self.info = GameInfo("ladder", 1, 1, 2, rungs, False, 0.0, 1.0)

    @classmethod
    def parameter_schema(cls) -> tuple[Parameter, ...]:
        return (
            Parameter("rungs", 4, "how many", minimum=2, maximum=9),
            Parameter("wood", "oak", "what of", choices=("oak", "pine")),
        )

    def new_initial_state(self) -> None:  # never played here
        raise NotImplementedError


class Stool:
    """A user's game that declares nothing: its constructor is its schema."""

    def __init__(self, legs: int = 3, finish: Literal["matt", "gloss"] = "matt") -> None:
        self.info = GameInfo("stool", 1, 1, 2, legs, False, 0.0, 1.0)

    def new_initial_state(self) -> None:
        raise NotImplementedError


@pytest.fixture
def furniture(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(
        registry, "_REGISTRY", {**registry._REGISTRY, "ladder": Ladder, "stool": Stool}
    )
    yield


def test_a_declared_schema_is_the_games_and_a_constructor_gives_the_rest(
    furniture: None,
) -> None:
    assert parameter_schema("ladder") == Ladder.parameter_schema()
    assert parameter_schema("stool") == (
        Parameter("legs", 3),
        Parameter("finish", "matt", choices=("matt", "gloss")),
    )
    assert [p.kind for p in parameter_schema("ladder")] == ["integer", "choice"]
    assert [p.describe() for p in parameter_schema("ladder")] == [
        "rungs=4 (2..9)",
        "wood='oak' (oak | pine)",
    ]


def test_mctslab_games_shows_the_declared_schema(furniture: None) -> None:
    from mctslab.cli.main import app

    result = CliRunner().invoke(app, ["games", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["ladder"]["parameters"] == {"rungs": 4, "wood": "oak"}
    assert rows["ladder"]["schema"] == [
        {"name": "rungs", "kind": "integer", "default": 4, "minimum": 2, "maximum": 9,
         "note": "how many"},
        {"name": "wood", "kind": "choice", "default": "oak", "choices": ["oak", "pine"],
         "note": "what of"},
    ]  # fmt: skip
    assert rows["stool"]["schema"][1]["choices"] == ["matt", "gloss"]
    samegame = {p["name"]: p for p in rows["samegame"]["schema"]}
    assert (samegame["rows"]["minimum"], samegame["rows"]["maximum"]) == (1, 26)
    table = CliRunner().invoke(app, ["games"], env={"COLUMNS": "250"}).stdout
    assert "rungs=4 (2..9)" in table and "variant='5T' (5T | 5D | 4T | 4D | openspiel)" in table


def test_the_travelling_salesmans_baselines_and_optima_come_from_games_tsp() -> None:
    tsp = mctslab.make("tsp", instance="berlin52")
    assert baselines(tsp) == BASELINES == ("nn", "2opt", "sa", "ga", "exact")
    assert baseline_limits(tsp) == {"exact": MAX_EXACT_CITIES}
    assert known_optimum(tsp) == -float(tsp_length("berlin52")) == -7542.0
    assert known_optimum(mctslab.make("tsp", instance="random:9:1")) is None
    assert {i.name: i.optimum for i in instances(tsp)} == {
        name: tsp_length(name) for name in ("berlin52", "eil51", "kroA100", "st70")
    }
    samegame = mctslab.make("samegame")
    assert (baselines(samegame), known_optimum(samegame), instances(samegame)) == ((), None, ())


def test_the_web_and_the_cli_read_the_one_optimum() -> None:
    from mctslab.cli import optimize as cli_optimize
    from mctslab.web import optimize as web_optimize

    assert cli_optimize.known_optimum is known_optimum is web_optimize.known_optimum
    own = web_optimize.own_searches()
    assert own == {"tsp": BASELINES, "samegame": (), "morpion_solitaire": ()}
    searches = {s["kind"]: s for s in web_optimize.catalog()["searches"]}
    assert {k for k, s in searches.items() if s["games"] == ["tsp"]} == set(BASELINES)
    assert searches["exact"]["max_cities"] == MAX_EXACT_CITIES


def test_a_forms_tsp_instance_is_a_shipped_name_or_a_small_random_one() -> None:
    assert form_instance("EIL51") == "eil51" and form_instance(" random:30:7 ") == "random:30:7"
    for bad in ("random:301:1", "random:1:1", "/etc/passwd", 51):
        with pytest.raises(InvalidConfigError, match="random:N:SEED with 2 <= N <= 300"):
            form_instance(bad)


def test_a_players_name_in_text_is_the_one_its_game_declares() -> None:
    """core names no game: tic-tac-toe's and Connect Four's x and o and Go's Black and
    White are their Rendering's labels; a game that declares none has "player N"."""

    class Named:
        info = GameInfo("named", 1, 3, 2, 2, True, -1.0, 1.0)

        def rendering(self) -> Rendering:
            return Rendering(labels=("north", "south"))

    labels = {
        name: [player_label(mctslab.make(name), p) for p in range(2)]
        for name in ("tic_tac_toe", "connect_four", "go", "nim", "pig")
    }
    assert labels == {
        "tic_tac_toe": ["x", "o"],
        "connect_four": ["x", "o"],
        "go": ["Black", "White"],
        "nim": ["player 1", "player 2"],
        "pig": ["player 1", "player 2"],
    }
    assert [player_label(Named(), p) for p in range(3)] == ["north", "south", "player 3"]
    assert player_label(Ladder(), 0) == "player 1"


def test_go_declares_its_records_as_sgf_and_other_games_none() -> None:
    go = mctslab.make("go", board_size=5)
    declared = record_format(go)
    assert declared is not None
    assert (declared.format, declared.media_type, declared.filename) == (
        "sgf",
        "application/x-go-sgf",
        "mctslab-go.sgf",
    )
    text = declared.write(go.state_from_actions([6, 25]), ("human", "mctslab"))
    assert text.startswith("(;GM[1]FF[4]") and "PB[human]" in text and "PW[mctslab]" in text
    assert ";B[bd]" in text and ";W[]" in text
    assert record_format(mctslab.make("tic_tac_toe")) is None and record_format(Ladder()) is None
