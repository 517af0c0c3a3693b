"""``mctslab export-sgf``: the Go games of a results store as SGF files.

::

    mctslab arena go -p board_size=9 --player a=mcts:iterations=2000 \\
        --player "gnugo=gtp:gnugo --mode gtp --level 10" --games 10 --db go.db
    mctslab export-sgf --db go.db --out games/        # games/run1-game0000.sgf ...

Every stored game of the store's ``go`` runs (or of ``--run N``) becomes one file,
``run{RUN}-game{SLOT}.sgf`` (:mod:`mctslab.games.go.sgf`): the board size and komi of the
run, the moves (the opening included), the players' names (``PB``, ``PW``; their specs
in ``GC`` with the run, the game and its seed), the date it was played and the result:
the Tromp-Taylor score of the final position (``RE[B+7.5]``), or the way a forfeit
went, ``B+R`` (the loser resigned), ``B+T`` (lost on time), ``B+F`` (a crash or an
illegal move). Sabaki, GoGui, Lizzie and GNU Go (``loadsgf``) read them. Registered
on :data:`mctslab.cli.app.app`; a user error (no store, no such run, a run that is not
Go, an ``--out`` that cannot be written, a store whose games are damaged or were edited
by hand: moves that are not Go moves, a game name or parameters changed) prints one
``error:`` line and exits 2. Every file is checked before the first is written, so such
an error writes nothing; a write that fails half way (a full disk) leaves no partial
file: each is written whole or not at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mctslab.arena.game_task import derive_seed
from mctslab.arena.store import GameRecord, RunInfo
from mctslab.cli.app import CliError, DbOpt, app, check_output_dir, user_errors
from mctslab.cli.arena import open_store
from mctslab.core.files import atomic_write
from mctslab.core.registry import make
from mctslab.core.text import counted
from mctslab.games.go import Go
from mctslab.games.go.sgf import SgfRecord, sgf_result, write_sgf
from mctslab.games.go.status import agreed_score
from mctslab.games.kernels import KernelState

__all__ = ["export_sgf_command", "game_record"]


def _result(game: Go, final: KernelState, record: GameRecord) -> str:
    """SGF's ``RE`` of a stored game whose moves lead to ``final`` (see the module's text)."""
    if record.termination == "normal":
        return sgf_result(game.score(final))
    if record.termination == "length":  # scored by agreement, as the arena did
        agreement = agreed_score(game, final, seed=derive_seed(record.seed, "adjudicate"))
        return sgf_result(agreement.score)
    if record.score is None:
        return "?"
    black_won = record.score == 1.0
    how = (
        "T" if record.termination == "time" else ("R" if "resign" in (record.error or "") else "F")
    )
    return sgf_result(1.0 if black_won else -1.0, how)


def game_record(run: RunInfo, record: GameRecord) -> SgfRecord:
    """The SGF record of one stored game of a ``go`` run; a record that cannot be one (not
    two seats, moves that are not Go's) raises a ``ValueError``."""
    game = make("go", **run.game_params)
    if not isinstance(game, Go):
        raise CliError(f"the run's game is not Go: {game.info.name}")
    if len(record.seats) != 2:
        raise CliError(f"a Go game has two seats, the stored game has {len(record.seats)}")
    black, white = record.seats[0], record.seats[1]
    final = game.state_from_actions(list(record.moves))  # every move checked, forfeits too
    specs = "; ".join(f"{name} = {run.players.get(name, '?')}" for name in (black, white))
    return SgfRecord(
        board_size=game.board_size,
        komi=game.komi,
        actions=tuple(record.moves),
        black=black,
        white=white,
        date=record.started[:10],
        result=_result(game, final, record),
        comment=f"mctslab {run.kind} run {run.id}, game {record.slot}, seed {record.seed}: {specs}",
    )


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file, then a rename)."""
    atomic_write(path, text)


@app.command("export-sgf")
def export_sgf_command(
    db: DbOpt = Path("mctslab.db"),
    run: Annotated[int | None, typer.Option("--run", help="Only this run id.")] = None,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The directory of the files (made if missing).")
    ] = Path("sgf"),
) -> None:
    """Write the Go games of a results store as SGF files (Sabaki, GoGui, GNU Go read them)."""
    with user_errors():
        with open_store(db, must_exist=True) as store:
            runs = store.runs()
            if run is not None:
                runs = [r for r in runs if r.id == run]
                if not runs:
                    raise CliError(f"no run {run} in {db}")
                if runs[0].game != "go":
                    raise CliError(
                        f"run {run} in {db} is {runs[0].game}: SGF records Go games only"
                    )
            runs = [r for r in runs if r.game == "go"]
            if not runs:
                raise CliError(f"no Go games in {db}")
            if out.exists() and not out.is_dir():
                raise CliError(f"cannot write to {out}: it is not a directory")
            records = [(r, g) for r in runs for g in store.games([r.id])]
            check_output_dir(out, "--out")
        texts = [(f"run{r.id}-game{g.slot:04d}.sgf", _sgf_text(db, r, g)) for r, g in records]
        try:
            out.mkdir(parents=True, exist_ok=True)
            for name, text in texts:
                _write(out / name, text)
        except OSError as err:
            where = err.filename or out
            raise CliError(f"cannot write to --out {str(where)!r}: {err.strerror or err}") from None
        print(f"{counted(len(texts), 'game')} of {counted(len(runs), 'run')} written to {out}")


def _sgf_text(db: Path, run: RunInfo, record: GameRecord) -> str:
    """One stored game as SGF; a game the store holds but SGF cannot (a store edited by
    hand: moves off the board or illegal, parameters Go does not take) is a user error
    naming the run and the game."""
    try:
        return write_sgf(game_record(run, record))
    except (ValueError, TypeError) as err:
        raise CliError(
            f"run {run.id}, game {record.slot} in {db} cannot be written as SGF (the store "
            f"was edited or is damaged): {' '.join(str(err).split())}"
        ) from None
