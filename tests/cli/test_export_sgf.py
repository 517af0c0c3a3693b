"""``mctslab export-sgf``: a results store's Go games as SGF files (:mod:`mctslab.cli.sgf`)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mctslab.arena.game_task import derive_seed
from mctslab.arena.store import GameRecord, ResultStore
from mctslab.cli.main import app
from mctslab.core.registry import make
from mctslab.games.go.sgf import read_sgf, sgf_result
from mctslab.games.go.status import agreed_score

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_an_arena_s_games_read_back_move_for_move(tmp_path: Path) -> None:
    db = str(tmp_path / "go.db")
    code, _, err = run(
        "arena", "go", "-p", "board_size=5", "-p", "komi=2.5",
        "--player", "search=mcts:iterations=60", "--player", "rnd=random",
        "--games", "4", "--seed", "3", "--workers", "1", "--db", db, "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    out = tmp_path / "games"
    code, text, err = run("export-sgf", "--db", db, "--out", str(out))
    assert code == 0, err
    assert text.strip() == f"4 games of 1 run written to {out}"
    with ResultStore(db) as store:
        (info,) = store.runs()
        stored = {g.slot: g for g in store.games([info.id])}
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"run{info.id}-game{s:04d}.sgf" for s in range(4)]
    game = make("go", board_size=5, komi=2.5)
    for f, slot in zip(files, range(4), strict=True):
        record = read_sgf(f.read_text())
        g = stored[slot]
        assert (record.board_size, record.komi) == (5, 2.5)
        assert record.actions == g.moves
        assert (record.black, record.white) == g.seats  # seat 0 plays Black
        final = game.state_from_actions(list(g.moves))
        score = game.score(final)  # type: ignore[attr-defined]
        if g.termination == "length":  # the arena scored it by agreement; so does RE
            score = agreed_score(game, final, seed=derive_seed(g.seed, "adjudicate")).score  # type: ignore[arg-type]
        assert record.result == sgf_result(score)
        assert (score > 0) == (g.score == 1.0) and (score < 0) == (g.score == 0.0)
        assert "search = mcts:iterations=60" in record.comment
        assert f"game {slot}, seed {g.seed}" in record.comment


def test_forfeits_say_how_they_were_won(tmp_path: Path) -> None:
    db = str(tmp_path / "f.db")
    with ResultStore(db) as store:
        run_id = store.start_run(
            "arena", "go", 1, {"game_params": {"board_size": 7}}, 0, {"a": "random", "b": "x"}, 3
        )
        for slot, (score, termination, error) in enumerate(
            [
                (1.0, "time", "b: 2.10 s over the 1 s limit"),
                (0.0, "error", "gtp:x resigns as black"),
                (1.0, "error", "b played an illegal move"),
            ]
        ):
            moves, returns = (24, 25), (0.0, 0.0)
            record = GameRecord(
                slot, ("a", "b"), slot, (), moves, returns, score, termination, error
            )
            store.add_game(run_id, record)
    out = tmp_path / "o"
    code, _, err = run("export-sgf", "--db", db, "--run", str(run_id), "--out", str(out))
    assert code == 0, err
    results = [read_sgf(f.read_text()).result for f in sorted(out.iterdir())]
    assert results == ["B+T", "W+R", "B+F"]


def test_user_errors_are_one_line_and_write_nothing(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    code, _, err = run(
        "arena", "tic_tac_toe", "--player", "a=random", "--player", "b=random",
        "--games", "2", "--workers", "1", "--db", str(db), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    out = tmp_path / "out"
    a_file = tmp_path / "file.txt"
    a_file.write_text("keep")
    for args, message in (
        (["--db", str(tmp_path / "none.db")], "no results store at"),
        (["--db", str(db)], "no Go games in"),
        (["--db", str(db), "--run", "1"], "is tic_tac_toe: SGF records Go games only"),
        (["--db", str(db), "--run", "7"], "no run 7 in"),
        (["--db", str(db), "--run", "x"], "--run"),
    ):
        code, _, err = run("export-sgf", *args, "--out", str(out))
        assert code == 2, (args, err)
        assert message in err and len(err.strip().splitlines()) <= 3, err
        assert not out.exists()
    code, _, err = run("export-sgf", "--db", str(tmp_path / "none.db"), "--out", str(a_file))
    assert code == 2 and a_file.read_text() == "keep"
