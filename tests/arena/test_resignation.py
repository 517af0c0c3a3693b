"""Resignation in the arena (``resign_below``, ``mctslab arena --resign-below``): a
search whose root value falls below the threshold (or that proved its position lost)
gives the game up and loses it, with termination ``"resign"`` (a result, not a
forfeit); a game that is not lost is played on; the threshold is part of a run's
identity only when set, and marks the players' specs as played."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from mctslab.arena.game_task import SCORED
from mctslab.arena.pooling import played_spec
from mctslab.arena.store import ResultStore
from mctslab.arena.tournament import ArenaConfig, Entrant, GameTask, play_task
from mctslab.cli.main import app
from mctslab.core.errors import InvalidConfigError
from mctslab.core.registry import make
from mctslab.players.player import make_player
from mctslab.players.resign import (
    RESIGN_BELOW,
    RESIGN_MIN_VISITS,
    resign_value,
    resigns,
    result_resigns,
)

# Bachet's game with 6 stones, take 1 or 2: lost for the first player (6 = 0 mod 3).
LOST = (("stones", 6),)
SOLVER = "mcts:iterations=200,solver=1"


def task(resign_below: float | None, seats: tuple[str, str] = ("first", "second")) -> GameTask:
    return GameTask(
        slot=0,
        game="bachet",
        game_params=LOST,
        seats=tuple(Entrant(name, SOLVER) for name in seats),
        seed=3,
        resign_below=resign_below,
    )


def test_a_proven_loss_resigns_at_once_and_loses() -> None:
    record = play_task(task(RESIGN_BELOW))
    assert record.termination == "resign" and record.termination in SCORED
    assert record.moves == () and record.returns == (-1.0, 1.0) and record.score == 0.0
    assert record.error is not None
    assert re.fullmatch(r"first resigns: root value -1\.000 after \d+ simulations", record.error)


def test_without_a_threshold_the_lost_game_is_played_out() -> None:
    record = play_task(task(None))
    assert record.termination == "normal" and len(record.moves) >= 3
    assert record.returns == (-1.0, 1.0)  # the same loss, on the board


def test_a_low_value_without_proof_resigns_after_enough_simulations() -> None:
    game = make("bachet", stones=3)
    player = make_player("mcts:iterations=200", game.info, seed=1)  # no solver
    player.choose(game.new_initial_state())
    seen = resign_value(player)
    assert seen is not None and seen[1] == 200 and -1 < seen[0] < -0.9  # random replies
    assert resigns(player, -0.9) and not resigns(player, RESIGN_BELOW)


def test_a_drawn_game_is_not_resigned() -> None:
    game = make("tic_tac_toe")
    player = make_player("mcts:iterations=400", game.info, seed=2)
    state = game.new_initial_state()
    for a in (4, 0):
        state.apply_action(a)
    player.choose(state)
    seen = resign_value(player)
    assert seen is not None and seen[1] >= RESIGN_MIN_VISITS
    assert not resigns(player, RESIGN_BELOW)
    assert not resigns(player, -1.0)  # -1 never resigns: no value is below it
    few = make_player(f"mcts:iterations={RESIGN_MIN_VISITS - 1}", game.info, seed=2)
    few.choose(state)
    assert not resigns(few, 1.0)  # too few simulations to judge, whatever the threshold
    assert not resigns(make_player("random", game.info), 1.0)  # no search, no resignation


def test_the_threshold_is_checked_and_kept_in_the_identity_only_when_set() -> None:
    players = (Entrant("a", "mcts"), Entrant("b", "random"))
    for bad in (-1.5, 1.01, float("nan")):
        with pytest.raises(InvalidConfigError, match="resign threshold"):
            ArenaConfig("bachet", players, resign_below=bad)
    assert "resign_below" not in ArenaConfig("bachet", players).identity(1)
    assert ArenaConfig("bachet", players, resign_below=-0.9).identity(1)["resign_below"] == -0.9
    assert played_spec("mcts", 1.0, None, -0.9) == "mcts:time=1.0 [resigns below -0.9]"


def test_resignation_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    args = ["arena", "bachet", "-p", "stones=6", "--player", f"s={SOLVER}",
            "--player", "r=random", "--games", "2", "--resign-below", "-0.95",
            "--workers", "1", "--db", str(db), "--no-progress", "--json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["played_now"] == 2 and data["forfeits"] == []  # a resignation is no forfeit
    with ResultStore(db) as store:
        (run,) = store.runs()
        assert run.config["resign_below"] == -0.95
        records = list(store.games([run.id]))
    by_first = {r.seats[0]: r for r in records}
    assert by_first["s"].termination == "resign" and by_first["s"].score == 0.0
    assert by_first["r"].termination == "normal"  # the search moves second: it never resigns
    bad = CliRunner().invoke(app, [*args[:-4], "--resign-below", "2", "--db", str(db)])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: ")
    assert "resign threshold" in bad.stderr and bad.stderr.count("\n") == 1


def test_the_rule_on_a_result_counts_the_simulations_it_is_given() -> None:
    """``result_resigns``: the result's own iterations unless told the search's total
    (``lz-genmove_analyze`` searches in slices); a proven loss needs none."""
    lost = SimpleNamespace(value=-1.0, iterations=RESIGN_MIN_VISITS // 2, proven=0)
    assert not result_resigns(lost, RESIGN_BELOW)
    assert result_resigns(lost, RESIGN_BELOW, simulations=RESIGN_MIN_VISITS)
    assert not result_resigns(lost, -1.0, simulations=RESIGN_MIN_VISITS)
    proven = SimpleNamespace(value=0.3, iterations=1, proven=-1)
    assert result_resigns(proven, RESIGN_BELOW)
