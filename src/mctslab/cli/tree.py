"""``mctslab tree``: search a position and show or export the search tree.

::

    mctslab tree tic_tac_toe --moves 4 --iterations 200 --depth 1
    mctslab tree connect_four --iterations 5000 --top 3 --format svg -o tree.svg
    mctslab tree connect_four --iterations 5000 --node 3.3 --depth 2 --format json

It draws the tree with :mod:`mctslab.analysis.treeview`, the serializer the web lab uses,
so the terminal and the browser show the same tree. Registered on
:data:`mctslab.cli.app.app`; a user error prints one ``error:`` line and exits 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from mctslab.analysis import treeview
from mctslab.cli.app import (
    CliError,
    GameArg,
    MovesOpt,
    ParamOpt,
    SeedOpt,
    app,
    check_engine,
    load_position,
    parse_pairs,
    player_label,
    user_errors,
)
from mctslab.players.player import search_config
from mctslab.search.engine import make_searcher

__all__ = ["tree_command"]


def _output_path(output: str) -> Path:
    """The file to write; its directory must exist (a typo should not create directories)."""
    path = Path(output)
    if path.is_dir():
        raise CliError(f"cannot write {output}: it is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise CliError(f"cannot write {output}: directory {parent} does not exist")
    return path


@app.command("tree")
def tree_command(
    game: GameArg,
    options: Annotated[
        list[str] | None,
        typer.Argument(
            help="Search options key=value, as for 'mctslab search': c=1.4 solver=1 "
            "expansion=all ...",
            show_default=False,
        ),
    ] = None,
    moves: MovesOpt = "",
    iterations: Annotated[
        int | None,
        typer.Option("--iterations", help="Iteration budget (default 1000).", show_default=False),
    ] = None,
    depth: Annotated[int, typer.Option("--depth", help="Levels shown below the start node.")] = 2,
    top: Annotated[
        int | None,
        typer.Option(
            "--top",
            help="Show each node's K most visited children (default: all).",
            show_default=False,
        ),
    ] = None,
    node: Annotated[
        str,
        typer.Option(
            "--node", help="Start at this node: its action path, e.g. 4.0 (default: root)."
        ),
    ] = "",
    fmt: Annotated[str, typer.Option("--format", help="text, dot, svg or json.")] = "text",
    output: Annotated[
        str | None,
        typer.Option(
            "--output", "-o", help="Write to this file instead of stdout.", show_default=False
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option("--engine", help="auto (compiled for built-in games), reference or compiled."),
    ] = "auto",
    seed: SeedOpt = 0,
    param: ParamOpt = None,
) -> None:
    """Search a position, then print or export the tree: text, DOT, SVG or JSON."""
    with user_errors():
        # Everything that can be checked before the search is, so that a typo costs nothing.
        if fmt not in treeview.FORMATS:
            raise CliError(
                f"unknown --format {fmt!r}; valid formats: {', '.join(treeview.FORMATS)}"
            )
        if depth < 0:
            raise CliError(f"--depth must be an integer >= 0, got {depth}")
        if top is not None and top < 1:
            raise CliError(f"--top must be an integer >= 1, got {top}")
        treeview.parse_node_id(node)
        path = _output_path(output) if output is not None else None
        if fmt == "svg":
            treeview.check_graphviz()
        check_engine(engine)
        g, state = load_position(game, param, moves)
        raw = parse_pairs(options, "search option")
        if iterations is not None:
            raw["iterations"] = str(iterations)
        config = search_config(raw, seed)
        if config.workers != 1:
            raise CliError("tree shows one search tree: leave workers at 1")
        searcher = make_searcher(config, state, engine)
        searcher.search(state, g.info)
        view = treeview.from_searcher(searcher, state, node=node, depth=depth, top=top)
        names = [player_label(g, p) for p in range(g.info.num_players)]
        text = treeview.export(view, fmt, names)
        if path is None:
            sys.stdout.write(text)
            return
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as err:
            raise CliError(f"cannot write {output}: {err.strerror or err}") from None
    nodes = sum(1 for _ in treeview.walk(view))
    print(f"wrote {output} ({fmt}, {nodes} nodes)", file=sys.stderr)
