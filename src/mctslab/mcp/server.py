"""``mctslab mcp``'s server: mctslab's games and searches as Model Context Protocol tools.

An assistant (Claude Desktop, any MCP client) starts ``mctslab mcp`` and speaks JSON-RPC
to it over stdin and stdout (the official SDK's :class:`~mcp.server.mcpserver.MCPServer`).
Five tools:

- ``list_games``: the games it plays, their players, parameters and the search's caps;
- ``search``: a position (game, parameters, moves so far) searched with a budget, the
  chosen move, its value and the root's children (move, visits, value): ``POST
  /api/move``'s answer;
- ``solve``: a small game's position solved exactly (:func:`mctslab.search.minimax.solve`);
- ``play``: a move played against mctslab, its reply and the new position;
- ``explain``: a search's top lines as an indented tree
  (:func:`mctslab.analysis.treeview.to_text`).

Every input is checked as the web lab checks a request, by the web lab's own code: the
request model (:class:`mctslab.web.schemas.MoveIn`), the games it plays and the caps of
:class:`mctslab.web.settings.Settings` (:class:`mctslab.web.routes.lab.Lab`'s checks,
in :func:`mctslab.web.routes.bot.search_position`'s order), its positions
(:func:`mctslab.web.positions.build_position`). Only the lab's games are named, never a
file. A refusal is the tool's error (``isError``) with the lab's one-line message, never
a traceback. The web lab's code needs FastAPI: the ``mcp`` extra brings it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

import anyio.to_thread
from fastapi import HTTPException
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

import mctslab
from mctslab.analysis import treeview
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import CHANCE, Game, State, sample_chance_outcome
from mctslab.core.rng import Rng
from mctslab.search.minimax import solve
from mctslab.web.errors import validation_message
from mctslab.web.positions import build_position, lab_game_names
from mctslab.web.render import player_names
from mctslab.web.routes.bot import search_position
from mctslab.web.routes.lab import Lab, explicit_budget
from mctslab.web.routes.service import games
from mctslab.web.schemas import MoveIn, MoveOut
from mctslab.web.sessions import SessionStore, release_later
from mctslab.web.settings import Settings
from mctslab.web.views import move_fields, state_view

__all__ = ["CLIENT", "LabTools", "make_server", "run"]

#: The client the lab's per-client caps count this server's searches as (one user).
CLIENT = "mcp"

# The tools' arguments, described for the assistant (their JSON Schema's descriptions).
GameName = Annotated[
    str, Field(description="A game's name from list_games (e.g. tic_tac_toe, connect_four).")
]
Params = Annotated[
    dict[str, Any] | None,
    Field(description="Game parameters (list_games gives each game's, with defaults)."),
]
Moves = Annotated[
    list[int] | None,
    Field(description="The moves played from the start, as action ids (empty: the start)."),
]
Iterations = Annotated[
    int | None, Field(description="Iterations of the search (default 1000; capped).")
]
Seconds = Annotated[float | None, Field(description="Seconds of search instead (capped).")]
Engine = Annotated[
    Literal["auto", "compiled", "reference"] | None,
    Field(
        description="The engine: 'compiled' (numba, fast), 'reference' (plain Python) or "
        "'auto' (compiled where the game has rule kernels; the default)."
    ),
]
Seed = Annotated[int | None, Field(description="Seed of every random choice (default 0).")]
Config = Annotated[
    dict[str, Any] | None,
    Field(
        description="More options of the search, as the web lab's config: selection "
        "('uct', 'puct', ...), c, final, solver, rave, ..."
    ),
]


def _one_line(text: str) -> str:
    return " ".join(text.split())


@contextmanager
def refusals() -> Iterator[None]:
    """The lab's refusals as the tool's error: a cap's ``HTTPException`` (its detail), a
    request that breaks the schema (the web's 422 line), a user error (the 400's)."""
    try:
        yield
    except HTTPException as err:
        raise ToolError(_one_line(str(err.detail))) from None
    except ValidationError as err:  # before ValueError: pydantic's is one
        raise ToolError(validation_message(err.errors())) from None
    except ValueError as err:  # every mctslab user error (MctslabError)
        raise ToolError(_one_line(str(err)) or type(err).__name__) from None


def move_request(
    game: str,
    params: dict[str, Any] | None,
    moves: list[int] | None,
    iterations: int | None,
    seconds: float | None,
    engine: str | None,
    seed: int | None,
    config: dict[str, Any] | None,
) -> MoveIn:
    """The tool's arguments as ``POST /api/move``'s body, validated by its model (a
    ``ValidationError`` names what is wrong); ``engine`` and ``seed`` go into the config."""
    options = dict(config or {})
    if engine is not None:
        options["engine"] = engine
    if seed is not None:
        options["seed"] = seed
    body: dict[str, Any] = {"game": game, "params": params or {}, "actions": moves or []}
    body["config"] = options
    if iterations is not None:
        body["iterations"] = iterations
    if seconds is not None:
        body["time"] = seconds
    return MoveIn.model_validate(body)


def check_request(lab: Lab, body: MoveIn) -> None:
    """The bot service's checks before a position is built, in its order."""
    lab.check_game(body.game)
    lab.check_evaluator(body.config)
    lab.check_budget(*explicit_budget(body.config))
    lab.check_budget(body.iterations, body.time)


def position_of(state: State, game: Game) -> dict[str, Any]:
    """A position of ``game`` as the tools answer it: the moves, the board as text, who is
    to move (0-based; -4 once over), the returns, and the legal moves (action and name)."""
    view = state_view(state, game)
    return view.model_dump(
        include={"text", "actions", "current_player", "terminal", "returns", "legal"}
    )


def solve_position(state: State, max_nodes: int, max_seconds: float) -> dict[str, Any]:
    """:func:`solve` within ``max_nodes`` nodes and ``max_seconds`` seconds (checked every
    :data:`mctslab.search.minimax.PROGRESS_EVERY` nodes): an ``InvalidConfigError`` beyond either."""
    start = time.perf_counter()

    def in_time(nodes: int) -> None:
        if time.perf_counter() - start > max_seconds:
            raise InvalidConfigError(
                f"the solve took over {max_seconds:g} s (max_time, {nodes} nodes): this "
                "position is too large to solve exactly; search it instead"
            )

    result = solve(state, max_nodes=max_nodes, on_progress=in_time)
    player = state.current_player()
    word = {1: "win", 0: "draw", -1: "loss"}[result.outcome]
    return {
        "player": player,
        "outcome": word,
        "value": result.value,
        "best_moves": [
            {"action": a, "label": state.action_to_string(a)} for a in result.best_actions
        ],
        "nodes": result.nodes,
        "seconds": result.seconds,
        "max_nodes": max_nodes,
    }


class LabTools:
    """The tools, each a method the server registers (its name is the tool's, its
    docstring the tool's description, its parameters the tool's input schema), checked
    by ``lab``: the web lab's state, made for this server alone."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.lab = Lab.of(settings, SessionStore(settings), lab_game_names(), build_position)

    async def list_games(self) -> dict[str, Any]:
        """The games mctslab plays (two players or more, perfect information): each one's
        players, number of actions, parameters with their defaults and choices, and the
        trained networks offered as PUCT's evaluator; with the caps every search is held
        to (iterations and seconds)."""
        with refusals():
            found = await games(self.lab)
        return {
            "games": [
                {
                    "name": g.name,
                    "players": g.num_players,
                    "actions": g.num_actions,
                    "parameters": g.parameters,
                    "choices": g.choices,
                    "evaluators": [m.evaluator for m in g.models],
                }
                for g in found
            ],
            "max_iterations": self.settings.max_iterations,
            "max_time": self.settings.max_time,
            "max_solve_nodes": self.settings.max_nodes,
        }

    async def search(
        self,
        game: GameName,
        params: Params = None,
        moves: Moves = None,
        iterations: Iterations = None,
        time: Seconds = None,
        engine: Engine = None,
        seed: Seed = None,
        config: Config = None,
    ) -> dict[str, Any]:
        """Search a position with MCTS: the move it chooses (action, name), its value for
        the player to move (the mean return, -1 a loss to 1 a win in the two-player
        games), and the root's children (move, visits, value for the player to move):
        the web lab's POST /api/move answer. With an iteration budget and a seed, the same
        move every time."""
        with refusals():
            body = move_request(game, params, moves, iterations, time, engine, seed, config)
            done = await search_position(body, CLIENT, self.lab)
            release_later(done.searcher, threading.Lock())
            out = MoveOut(
                **move_fields(done.result, done.state),
                proven=done.result.proven,
                engine="compiled" if done.compiled else "reference",
            )
        return out.model_dump()

    async def solve(
        self, game: GameName, params: Params = None, moves: Moves = None
    ) -> dict[str, Any]:
        """Solve a position of a small game exactly (negamax with alpha-beta and a
        transposition table): its outcome for the player to move (win, draw or loss), its
        value in [-1, 1] and every optimal move. Refused beyond max_solve_nodes nodes or
        max_time seconds (tic-tac-toe's start takes about 20,000 nodes)."""
        with refusals():
            body = move_request(game, params, moves, None, None, None, None, None)
            self.lab.check_game(body.game)
            _, state, _ = await self.lab.build(
                lambda: self.lab.build_position(body.game, body.params, body.actions)
            )
            return await anyio.to_thread.run_sync(
                lambda: solve_position(state, self.settings.max_nodes, self.settings.max_time)
            )

    async def play(
        self,
        game: GameName,
        move: Annotated[
            int | str,
            Field(description="Your move: an action id, or its name as the position shows it."),
        ],
        params: Params = None,
        moves: Moves = None,
        iterations: Iterations = None,
        time: Seconds = None,
        engine: Engine = None,
        seed: Seed = None,
        config: Config = None,
    ) -> dict[str, Any]:
        """Play your move at a position; mctslab searches and answers with its own. Returns
        your move, mctslab's reply (the search's answer, as the search tool's) unless your
        move ended the game, and the new position (its moves: pass them as the next
        call's moves). Dice (chance) are rolled from the seed."""
        with refusals():
            body = move_request(game, params, moves, iterations, time, engine, seed, config)
            check_request(self.lab, body)
            rules, state, _ = await self.lab.build(
                lambda: self.lab.build_position(body.game, body.params, body.actions)
            )
            if state.is_terminal():
                raise ToolError("the game is over at this position: no move to play")
            action = state.string_to_action(move) if isinstance(move, str) else move
            before = state.clone()
            state.apply_action(action)  # IllegalActionError names the legal moves
            label = before.action_to_string(action)
            dice = Rng(body.config.seed ^ 0xD1CE)  # as a session rolls them
            _roll(state, dice)
            answer: dict[str, Any] = {"your_move": {"action": action, "label": label}}
            if state.is_terminal():
                answer["reply"] = None
            else:
                after = body.model_copy(update={"actions": state.history()})
                done = await search_position(after, CLIENT, self.lab)
                release_later(done.searcher, threading.Lock())
                reply = done.result
                answer["reply"] = MoveOut(
                    **move_fields(reply, done.state),
                    proven=reply.proven,
                    engine="compiled" if done.compiled else "reference",
                ).model_dump()
                state.apply_action(reply.action)
                _roll(state, dice)
            answer["position"] = position_of(state, rules)
        return answer

    async def explain(
        self,
        game: GameName,
        params: Params = None,
        moves: Moves = None,
        iterations: Iterations = None,
        time: Seconds = None,
        engine: Engine = None,
        seed: Seed = None,
        config: Config = None,
        depth: Annotated[int, Field(ge=0, description="Levels of the tree shown.")] = 2,
        top: Annotated[int, Field(ge=1, description="Most visited children per node.")] = 3,
    ) -> str:
        """Search a position and show the top lines of its tree as text: each node's move,
        visits N, value Q/N and UCT score for the player who moved into it, its proof if
        any, and how many children are not shown. At most max_view_nodes nodes."""
        shown = sum(top**d for d in range(depth + 1))
        if shown > self.settings.max_view_nodes:
            raise ToolError(
                f"depth={depth} and top={top} could show {shown} nodes, over the cap of "
                f"{self.settings.max_view_nodes} (max_view_nodes): ask for a smaller depth or top"
            )
        with refusals():
            body = move_request(game, params, moves, iterations, time, engine, seed, config)
            done = await search_position(body, CLIENT, self.lab)
            try:
                view = treeview.from_searcher(done.searcher, done.state, depth=depth, top=top)
                names = player_names(done.game)
            finally:
                release_later(done.searcher, threading.Lock())
        return treeview.to_text(view, names)


def make_server(settings: Settings | None = None) -> MCPServer:
    """The MCP server with its five tools (:class:`LabTools`), checked against
    ``settings`` (default: the web lab's caps, :class:`Settings`)."""
    tools = LabTools(settings or Settings())
    server: MCPServer = MCPServer(
        "mctslab",
        version=mctslab.__version__,
        instructions="mctslab's games and Monte-Carlo tree searches: list_games first; a "
        "position is a game, its parameters and the moves played from the start (action "
        "ids, as the legal moves of every answer list them).",
        log_level="WARNING",
    )
    for tool in (tools.list_games, tools.search, tools.solve, tools.play, tools.explain):
        server.add_tool(tool)
    return server


def _roll(state: State, dice: Rng) -> None:
    """Chance outcomes (dice) drawn until a player is to move or the game is over."""
    while state.current_player() == CHANCE:
        state.apply_action(sample_chance_outcome(state, dice))


def run() -> None:
    """Serve the tools over stdio until the client closes the connection."""
    make_server().run("stdio")
