"""The ``mctslab`` command line: list the games, play them, search and solve positions.

::

    mctslab games
    mctslab play connect_four --player1 human --player2 mcts:iterations=5000
    mctslab search tic_tac_toe --moves 0,4 --iterations 300 solver=1 --json
    mctslab search tic_tac_toe --puct --evaluator heuristic c=2 --iterations 800
    mctslab selfplay tic_tac_toe --player puct:simulations=100 --games 10 --out data.npz
    mctslab solve tic_tac_toe --moves 0,4

A position is a game (``--param key=value`` sets its parameters) and the action
ids played from its start (``--moves 3,3,4``). Every user error (an unknown
game, option or parameter, an illegal move, a bad budget, ...) prints one
``error: ...`` line to stderr and exits with status 2, like a usage error.

The app, the shared options and the parsing live in :mod:`mctslab.cli.app`;
the other commands in their own modules (:mod:`mctslab.cli.arena`, ...), which
import that module and never this one. This module imports them all, so
importing it registers every command.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from mctslab.cli.app import (
    EXIT_INTERRUPTED,
    EXIT_USER_ERROR,
    AllowCheatingOpt,
    CliError,
    GameArg,
    JsonOpt,
    MovesOpt,
    ParamOpt,
    SeedOpt,
    app,
    check_engine,
    load_position,
    make_console,
    parse_moves,
    parse_pairs,
    parse_value,
    player_label,
    user_errors,
)
from mctslab.core.game import CHANCE, Game, GameInfo, State, sample_chance_outcome
from mctslab.core.infoset import is_perfect_information
from mctslab.core.options import options_of, read_options
from mctslab.core.registry import available_games, game_parameters, parameter_schema
from mctslab.core.rng import Rng
from mctslab.core.text import counted
from mctslab.players.player import (
    ISMCTSPlayer,
    MCTSPlayer,
    Player,
    cheating_note,
    check_hidden_information,
    make_player,
)
from mctslab.players.time_control import timed_spec
from mctslab.search import minimax
from mctslab.search.config import SearchConfig
from mctslab.search.engine import make_searcher
from mctslab.search.puct import PuctConfig
from mctslab.search.result import ChildStats, SearchResult

# The shared pieces live in mctslab.cli.app; they are re-exported here for the code that
# has always imported them from mctslab.cli.main (the web lab: app, EXIT_USER_ERROR, parse_value,
# player_label).
__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_USER_ERROR",
    "CliError",
    "app",
    "check_engine",
    "load_position",
    "main",
    "parse_moves",
    "parse_pairs",
    "parse_value",
    "player_label",
    "user_errors",
]

_OUTCOMES = {1: "win", 0: "draw", -1: "loss"}
#: ``mctslab solve`` says it is still working once it has run this long (seconds).
SLOW_SOLVE_SECONDS = 2.0


# Presentation --------------------------------------------------------------------------------


def result_line(state: State, game: Game) -> str:
    """``"x wins (returns 1, -1)"``, ``"draw (returns 0, 0)"`` (the players named as
    ``game`` names them, :func:`~mctslab.core.game.player_label`)."""
    returns = state.returns()
    shown = ", ".join(f"{r:g}" for r in returns)
    best = max(returns)
    winners = [player_label(game, p) for p, r in enumerate(returns) if r == best]
    if len(winners) == len(returns):
        return f"draw (returns {shown})"
    verb = "wins" if len(winners) == 1 else "win"
    return f"{' and '.join(winners)} {verb} (returns {shown})"


def score_line(game: object, state: State) -> str | None:
    """The final score where a game's result has one: Go's, as SGF and GTP write it
    (``score: W+7.5``, Tromp-Taylor area with komi, the count the returns follow), so
    that a game played out says by how much; ``None`` for every other game."""
    from mctslab.games.go import Go
    from mctslab.games.go.sgf import sgf_result

    if not isinstance(game, Go) or not state.is_terminal():
        return None
    ended = "the length limit" if game.ended_by_length(state) else "two passes"  # type: ignore[arg-type]
    counted_as = f"Tromp-Taylor area, komi {game.komi:g}, after {ended}"
    return f"score: {sgf_result(game.score(state))} ({counted_as})"  # type: ignore[arg-type]


def proven_word(proven: int | None) -> str:
    return "" if proven is None else _OUTCOMES[proven]


def move_value(child: ChildStats, info: GameInfo) -> float:
    """What the CLI calls a move's *value*: the return the player to move at the root
    expects after it, on the game's scale: the proven return when MCTS-Solver proved
    the move (a win is ``max_utility``, a draw 0, a loss ``min_utility``), else the mean
    return of the simulations through it."""
    if child.proven is None:
        return child.value
    return {1: info.max_utility, 0: 0.0, -1: info.min_utility}[child.proven]


def search_json(result: SearchResult, info: GameInfo) -> dict[str, Any]:
    """``search --json``: the :class:`SearchResult`, each child's ``value`` meaning what the
    table shows (:func:`move_value`: the proven return of a proven move) and its ``mean``
    the mean return of its simulations (the API's ``ChildStats.value``)."""
    data = result.to_dict()
    for child, row in zip(result.children, data["children"], strict=True):
        row["mean"] = child.value
        row["value"] = move_value(child, info)
    return data


def value_text(child: ChildStats, info: GameInfo) -> str:
    """``"+0.371"``, or ``"+1 (proven win)"``."""
    value = move_value(child, info)
    if child.proven is None:
        return f"{value:+.3f}"
    return f"{value:+g} (proven {_OUTCOMES[child.proven]})" if value else "0 (proven draw)"


def mcts_summary(result: SearchResult, game: Game, name: str = "mcts") -> str:
    """One line: visits and value of the chosen move (for the player who played it),
    iterations, speed."""
    chosen = next(c for c in result.children if c.action == result.action)
    if result.iterations == 0 and result.stopped_by == "proven":
        work = "no iterations: the kept tree had proved the position"
    else:
        work = f"{result.iterations} iterations, {result.sims_per_s:,.0f} sims/s"
    return (
        f"  {name}: {chosen.visits} visits, value {value_text(chosen, game.info)} for "
        f"{player_label(game, result.player)}; {work}"
    )


def play_out(state: State, players: list[Player], game: Game, chance_seed: int = 0) -> State:
    """Play to the end, drawing the board before each move and naming each move played.

    Chance outcomes are drawn from ``Rng(chance_seed)`` and named. The position is
    shown as the game says it for people (``human_view``, players counted from 1)
    where it can, else ``str(state)``. In a game with hidden information a human is
    shown only its own cards before its move (the full table once no human plays,
    and at the end).
    """
    chance = Rng(chance_seed)
    humans = any(player.name == "human" for player in players)
    # A deal names the card: with a human at a card game, say only that chance moved.
    secret = humans and not is_perfect_information(game)
    hidden = 0  # hidden deals in a row, said in one line (a whist deal is 22 of them)
    while not state.is_terminal():
        p = state.current_player()
        if p == CHANCE:
            action = sample_chance_outcome(state, chance)
            if secret:
                hidden += 1
            else:
                print(f"chance: {state.action_to_string(action)}")
            state.apply_action(action)
            for each in players:
                each.inform(action)
            continue
        if hidden:
            print(f"chance: {counted(hidden, 'hidden deal')}")
            hidden = 0
        player = players[p]
        observe = getattr(state, "human_view", None) or getattr(state, "observation_string", None)
        if player.name == "human" and observe is not None:
            print(observe(p))
        elif not humans or observe is None:
            board = getattr(state, "human_view", None)
            print(board() if board is not None else state)
        if player.name == "human":
            print(f"{player_label(game, p)} to move")
        action = player.choose(state.clone())
        name = state.action_to_string(action)  # named in the state it is played in
        state.apply_action(action)
        for each in players:
            each.inform(action)
        print(f"{player_label(game, p)} ({player.name}) plays {name}")
        if isinstance(player, MCTSPlayer | ISMCTSPlayer) and player.last_result is not None:
            print(mcts_summary(player.last_result, game, player.name))
        print()
    if hidden:
        print(f"chance: {counted(hidden, 'hidden deal')}")
    everything = getattr(state, "human_view", None)
    print(everything() if everything is not None else state)
    return state


#: ``search`` shows this many root moves unless ``--top`` says (Go has 82).
TOP_MOVES = 20


def show_search(state: State, game: Game, result: SearchResult, top: int = TOP_MOVES) -> None:
    """The root's children as a table, the ``top`` most visited first (the rest counted
    in one line), and the chosen move."""
    print(state)
    info = game.info
    mover = player_label(game, result.player)
    table = Table(title=f"{mover} to move")
    # PUCT's results carry each move's prior; UCT's do not (their column would be empty).
    priors = any(child.prior is not None for child in result.children)
    columns = ("move", "visits", *(("prior",) if priors else ()), f"value for {mover}", "proven")
    for column in columns:
        table.add_column(column, justify="left" if column == "move" else "right")
    ranked = sorted(result.children, key=lambda c: (-c.visits, c.action))
    shown, rest = ranked[:top], ranked[top:]
    for child in shown:
        prior = () if not priors else ("" if child.prior is None else f"{child.prior:.3f}",)
        table.add_row(
            escape(state.action_to_string(child.action)),
            str(child.visits),
            *prior,
            f"{move_value(child, info):+.3f}",
            proven_word(child.proven),
        )
    make_console().print(table)
    if rest:
        unvisited = sum(1 for c in rest if c.visits == 0)
        print(
            f"+{counted(len(rest), 'more move')} ({sum(c.visits for c in rest):,} visits"
            + (f"; {unvisited:,} never visited" if unvisited else "")
            + "): --top N shows more"
        )
    chosen = next(c for c in result.children if c.action == result.action)
    if result.proven is not None:
        position = f"position proven: {proven_word(result.proven)}"
    else:
        position = f"position {result.value:+.3f}, the mean of every simulation"
    print(
        f"chosen move: {state.action_to_string(result.action)} by rule {result.final_rule}; "
        f"value for {mover}: move {value_text(chosen, info)}, {position}"
    )
    print(
        f"{result.iterations:,} iterations, {result.nodes:,} nodes, {result.seconds:.3f} s, "
        f"{result.sims_per_s:,.0f} sims/s; stopped by {result.stopped_by}"
    )


@contextmanager
def solve_progress() -> Iterator[minimax.ProgressFn]:
    """An ``on_progress`` for :func:`minimax.solve`: silent for a quick solve; after
    :data:`SLOW_SOLVE_SECONDS`, a note on stderr that it may take very long, then (on a
    terminal) a live line with the nodes searched and the seconds spent."""
    console = make_console(stderr=True)
    status = console.status("", spinner="dots")
    start = time.perf_counter()
    shown = False

    def on_progress(nodes: int) -> None:
        nonlocal shown
        elapsed = time.perf_counter() - start
        if not shown:
            if elapsed < SLOW_SOLVE_SECONDS:
                return
            shown = True
            print(
                "note: an exact solve of a large game may take very long (hours for "
                "connect_four from the start); --max-nodes bounds it, Ctrl-C stops it",
                file=sys.stderr,
                flush=True,
            )
            if console.is_terminal:
                status.start()
        status.update(f"solving: {nodes:,} nodes, {elapsed:.0f} s")

    try:
        yield on_progress
    finally:
        status.stop()


# Commands ------------------------------------------------------------------------------------


@app.command()
def games(json_output: JsonOpt = False) -> None:
    """List the registered games with their parameters and defaults, and what each
    parameter takes as the game declares it (bounds, choices: its parameter schema)."""
    names = available_games()
    params = {name: game_parameters(name) for name in names}
    schemas = {name: parameter_schema(name) for name in names}
    if json_output:
        rows = [
            {"name": name, "parameters": p, "schema": [s.to_dict() for s in schemas[name]]}
            for name, p in params.items()
        ]
        print(json.dumps(rows, indent=2, default=repr))
        return
    table = Table(title="games")
    table.add_column("game")
    table.add_column("parameters (defaults)")
    table.add_column("what they take")
    for name, p in params.items():
        shown = ", ".join(f"{k}={v!r}" for k, v in p.items()) or "none"
        takes = ", ".join(s.describe() for s in schemas[name] if s.kind != "value")
        table.add_row(escape(name), escape(shown), escape(takes))
    make_console().print(table)


#: The longest ``--time-per-move`` of ``mctslab play`` (a day).
MAX_TIME_PER_MOVE = 86400.0

# The seats of `mctslab play` when no --player is given.
_PLAYER1, _PLAYER2 = "human", "mcts:iterations=5000"


def seat_specs(
    info: GameInfo, player: list[str] | None, player1: str | None, player2: str | None
) -> list[str]:
    """The spec of every seat: ``--player`` once per seat, or ``--player1``/``--player2``
    (for two players), never both: a mix is refused with every player given counted."""
    named = [spec for spec in (player1, player2) if spec is not None]
    if player and named:
        given = len(player) + len(named)
        raise CliError(
            f"got {given} players ({len(player)} --player and {len(named)} --player1/--player2): "
            "use either --player once per seat or --player1 and --player2"
        )
    if player:
        specs = list(player)
        how = "give one --player per seat"
    else:
        specs = [player1 or _PLAYER1, player2 or _PLAYER2]
        how = "use --player once per seat"
    if len(specs) != info.num_players:
        raise CliError(f"{info.name} has {info.num_players} players, got {len(specs)}: {how}")
    return specs


@app.command()
def play(
    game: GameArg,
    player1: Annotated[
        str | None,
        typer.Option(
            "--player1",
            help="First player: human, random, minimax, mcts:...",
            show_default=_PLAYER1,
        ),
    ] = None,
    player2: Annotated[
        str | None,
        typer.Option(
            "--player2", help="Second player (same forms as --player1).", show_default=_PLAYER2
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of player 1 (player k gets seed + k - 1).")
    ] = 0,
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player",
            help="Every seat in order, for any number of players (repeat it; replaces "
            "--player1/--player2).",
            show_default=False,
        ),
    ] = None,
    chance_seed: Annotated[
        int, typer.Option("--chance-seed", help="Seed of the dice and deals.")
    ] = 0,
    param: ParamOpt = None,
    moves: MovesOpt = "",
    allow_cheating: AllowCheatingOpt = False,
    time_per_move: Annotated[
        float | None,
        typer.Option(
            "--time-per-move",
            help="Seconds a move for every searching player without a budget of its own "
            "(mcts, puct, az, ismcts, pimc; no iteration cap then). A spec's own budget wins.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Play a game in the terminal; a human types the moves' names."""
    with user_errors():
        if time_per_move is not None and not (
            math.isfinite(time_per_move) and 0 < time_per_move <= MAX_TIME_PER_MOVE
        ):
            raise CliError(
                f"--time-per-move must be a number of seconds in (0, {MAX_TIME_PER_MOVE:g}], "
                f"got {time_per_move!r}"
            )
        g, state = load_position(game, param, moves)
        info = g.info
        specs = [timed_spec(s, time_per_move) for s in seat_specs(info, player, player1, player2)]
        players = [make_player(spec, info, seed + i) for i, spec in enumerate(specs)]
        seats = {player_label(g, i): spec for i, spec in enumerate(specs)}
        cheats = check_hidden_information(g, seats.items(), allow_cheating)
        note = cheating_note([f"{name} ({seats[name]})" for name in cheats])
    if note:
        print(note)
    try:
        with user_errors():
            final = play_out(state, players, g, chance_seed)
    except (EOFError, KeyboardInterrupt) as err:
        print()  # end the prompt's line
        print("game abandoned", file=sys.stderr)
        code = EXIT_INTERRUPTED if isinstance(err, KeyboardInterrupt) else 1
        raise typer.Exit(code) from None
    print(result_line(final, g))
    score = score_line(g, final)
    if score:
        print(score)
    if note:
        print(note)


def command_config(
    raw: dict[str, str], typed: dict[str, Any], seed: int, puct: bool
) -> SearchConfig:
    """``search``'s configuration: its ``key=value`` options (``raw``, read against the
    options that :class:`SearchConfig` and, with ``--puct``, :class:`PuctConfig` declare:
    :func:`~mctslab.core.options.read_options`), then its typed flags (``typed``, by
    field name), straight into the configs. A time budget alone replaces the default
    iterations; ``seed`` is ``--seed`` unless ``seed=`` says. Under PUCT, UCT's own
    options (``c``, ``expansion``, ...) are unknown keys and ``c`` is PUCT's."""
    search = [o for o in options_of(SearchConfig).values() if o.spec and (o.under_puct or not puct)]
    pucts = [o for o in options_of(PuctConfig).values() if o.spec] if puct else []
    values = read_options([*pucts, *search], raw, "puct" if puct else "mcts", listed=["engine"])
    values.update(typed)
    if "time" in values and "iterations" not in values:
        values["iterations"] = None  # a time budget alone: no iteration limit
    values.setdefault("seed", seed)
    if not puct:
        return SearchConfig(**values)
    puct_values = {opt.name: values.pop(opt.name) for opt in pucts if opt.name in values}
    return SearchConfig(**values, puct=PuctConfig(**puct_values))


@app.command()
def search(
    game: GameArg,
    options: Annotated[
        list[str] | None,
        typer.Argument(
            help="Search options key=value: c=1.4 expansion=all simulation=heavy solver=1 "
            "final=robust-max max_nodes=1000 ...",
            show_default=False,
        ),
    ] = None,
    moves: MovesOpt = "",
    iterations: Annotated[
        int | None, typer.Option("--iterations", help="Iteration budget.", show_default=False)
    ] = None,
    time_budget: Annotated[
        float | None,
        typer.Option("--time", help="Time budget in seconds (alone: no iteration limit)."),
    ] = None,
    engine: Annotated[
        str,
        typer.Option("--engine", help="auto (compiled for built-in games), reference or compiled."),
    ] = "auto",
    seed: SeedOpt = 0,
    param: ParamOpt = None,
    json_output: JsonOpt = False,
    puct: Annotated[
        bool,
        typer.Option(
            "--puct",
            help="Select by PUCT (AlphaGo's rule, with an evaluator's priors) instead of UCT; "
            "the key=value options are then a puct: player's (c=1.25 is PUCT's c).",
        ),
    ] = False,
    evaluator: Annotated[
        str | None,
        typer.Option(
            "--evaluator",
            help="PUCT's evaluator: uniform+rollout (default), uniform or heuristic.",
            show_default=False,
        ),
    ] = None,
    fpu: Annotated[
        float | None,
        typer.Option(
            "--fpu",
            help="PUCT: an unvisited move's value in [0, 1] (default 0).",
            show_default=False,
        ),
    ] = None,
    temperature: Annotated[
        float | None,
        typer.Option(
            "--temperature",
            help="PUCT: sample the move by visits ** (1/T); 0 (default) plays the final rule.",
            show_default=False,
        ),
    ] = None,
    noise: Annotated[
        float | None,
        typer.Option(
            "--noise",
            help="PUCT: share of Dirichlet noise in the root priors (default 0; alpha=...).",
            show_default=False,
        ),
    ] = None,
    batch: Annotated[
        int | None,
        typer.Option(
            "--batch", help="PUCT: leaves per evaluator call (default 1).", show_default=False
        ),
    ] = None,
    top: Annotated[
        int, typer.Option("--top", min=1, help="Root moves shown, the most visited first.")
    ] = TOP_MOVES,
) -> None:
    """Run MCTS from a position and show the root's statistics (UCT, or PUCT with --puct)."""
    with user_errors():
        check_engine(engine)
        g, state = load_position(game, param, moves)
        flags = {
            "--evaluator": ("evaluator", evaluator),
            "--fpu": ("fpu", fpu),
            "--temperature": ("temperature", temperature),
            "--noise": ("noise_fraction", noise),
            "--batch": ("batch", batch),
        }
        given = [flag for flag, (_, value) in flags.items() if value is not None]
        if given and not puct:
            what = "a PUCT option" if len(given) == 1 else "PUCT options"
            raise CliError(f"{', '.join(given)}: {what}; add --puct")
        typed = {name: value for name, value in flags.values() if value is not None}
        if iterations is not None:
            typed["iterations"] = iterations
        if time_budget is not None:
            typed["time"] = time_budget
        raw = parse_pairs(options, "search option")
        config = command_config(raw, typed, seed, puct)
        result = make_searcher(config, state, engine).search(state, g.info)
    if not is_perfect_information(g):
        print(
            f"note: {g.info.name} hides information and MCTS searched the full state, hidden "
            "cards included; a player's own view: mctslab play/arena with ismcts:... or pimc:...",
            file=sys.stderr,
        )
    if json_output:
        print(json.dumps(search_json(result, g.info), indent=2))
    else:
        show_search(state, g, result, top)


@app.command()
def solve(
    game: GameArg,
    moves: MovesOpt = "",
    param: ParamOpt = None,
    max_nodes: Annotated[
        int | None,
        typer.Option("--max-nodes", help="Give up after this many nodes.", show_default=False),
    ] = None,
    values: Annotated[
        bool, typer.Option("--values", help="Also give the exact value of every move.")
    ] = False,
    json_output: JsonOpt = False,
) -> None:
    """Solve a position exactly (minimax with alpha-beta)."""
    with user_errors():
        g, state = load_position(game, param, moves)
        if max_nodes is not None and max_nodes < 1:
            raise CliError(f"--max-nodes must be a positive integer, got {max_nodes}")
        if state.is_terminal():
            raise CliError(f"the game is over: {result_line(state, g)}")
        with solve_progress() as on_progress:
            result = minimax.solve(state, g.info, max_nodes, values=values, on_progress=on_progress)
    if json_output:
        data = result.to_dict()
        data["best_actions"] = list(result.best_actions)
        data["action_values"] = [[a, v] for a, v in result.action_values]
        print(json.dumps(data, indent=2))
        return
    mover = player_label(g, state.current_player())
    best = ", ".join(state.action_to_string(a) for a in result.best_actions)
    print(f"{_OUTCOMES[result.outcome]} for the player to move ({mover}); optimal moves: {best}")
    if result.action_values:
        shown = ", ".join(f"{state.action_to_string(a)} {v:+g}" for a, v in result.action_values)
        print(f"move values: {shown}")
    print(f"{result.nodes} nodes, {result.seconds:.3f} s")


# The other commands live in their own modules and register themselves on ``app`` when
# imported; imported after this module's commands so that ``mctslab --help`` lists these first.
from mctslab.cli import (  # noqa: E402, F401
    arena,
    bohnenspiel,
    exploitability,
    grade,  # mctslab grade: lesson 11's autograder
    gtp,  # mctslab gtp: a Go engine speaking GTP
    katago,  # mctslab analysis: KataGo's JSON analysis engine protocol
    lessons,  # mctslab lessons: the course's notebooks
    mcp,  # mctslab mcp: a Model Context Protocol server over stdio
    models,  # mctslab models: the shipped networks and where az runs them
    optimize,  # mctslab optimize: single-player search (NRPA, NMCS, SP-MCTS)
    selfplay,
    serve,  # mctslab serve: the web lab
    sgf,  # mctslab export-sgf: a store's Go games as SGF files
    train,  # mctslab train: AlphaZero self-play training (the nn extra)
    tree,
    tune,
    warm,  # mctslab warm: the compiled engine compiled ahead of time
)


def main() -> None:
    """The ``mctslab`` console script."""
    app()


if __name__ == "__main__":
    main()
