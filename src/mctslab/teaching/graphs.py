"""Game graphs: every position reachable from a state, drawn, and valued by backward
induction.

A small game can be written out whole: each position a node, each move an edge. As a
**tree** every sequence of moves is its own node (the same position reached by two
orders appears twice); **merged**, the positions that are the same (the same
:func:`~mctslab.core.game.state_key`, which includes the player to move) are one node
and the tree becomes a directed acyclic graph, much smaller. **Backward induction**
values it from the end: a finished position is worth its returns; any other is worth the
child that is best for the player to move (for two players with opposite returns, this is
minimax). The graphs here hold each node's return vector so found and the moves that
reach it, and :func:`to_dot` draws them for Graphviz.

>>> import mctslab
>>> game = mctslab.make("bachet")  # 4 stones, take 1 or 2; who cannot move loses
>>> tree = game_graph(game.new_initial_state())
>>> merged = game_graph(game.new_initial_state(), merge=True)
>>> len(tree.nodes), len(merged.nodes)
(12, 8)
>>> merged.nodes[0].returns  # the first player wins from 4 stones
(1.0, -1.0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import State, has_chance_nodes

__all__ = ["GameGraph", "GraphNode", "game_graph", "to_dot"]


@dataclass(frozen=True)
class GraphNode:
    """A position: its ``id`` (``n0`` the start), ``label``, the ``player`` to move
    (``-1`` once the game is over), its depth in moves, its ``returns`` by backward
    induction, ``best``: the moves (edge labels) that keep them for the mover, and
    ``best_actions`` the same moves as action ids; ``history``: the actions from the start
    that first reached it (``game.state_from_actions(history)`` rebuilds it)."""

    id: str
    label: str
    player: int
    depth: int
    returns: tuple[float, ...]
    best: tuple[str, ...]
    best_actions: tuple[int, ...] = ()
    history: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameGraph:
    """The nodes (the start first) and the edges ``(from id, to id, move)``."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[tuple[str, str, str], ...]
    merged: bool

    def node(self, node_id: str) -> GraphNode:
        """The node with this id."""
        return next(n for n in self.nodes if n.id == node_id)


def game_graph(
    state: State,
    merge: bool = False,
    label: Callable[[State], str] | None = None,
    max_nodes: int = 5_000,
) -> GameGraph:
    """The game graph from ``state``: a tree, or ``merge``-d by position; ``label``
    names a node (default: the position's text, first line). Games with chance nodes
    are refused, as are graphs of more than ``max_nodes`` nodes (an ``InvalidConfigError``:
    write out small games only)."""
    if has_chance_nodes(getattr(state, "game", None)):
        raise InvalidConfigError("game_graph: a game with chance nodes has no game graph here")
    name = label or (lambda s: str(s).splitlines()[0] if str(s) else "")
    ids: dict[object, str] = {}
    found: dict[str, tuple[State, int]] = {}
    paths: dict[str, tuple[int, ...]] = {}
    children: dict[str, list[tuple[str, str, int]]] = {}

    def visit(s: State, depth: int, path: tuple[int, ...]) -> str:
        key = _position(s) if merge else path
        if key in ids:
            return ids[key]
        if len(ids) >= max_nodes:
            raise InvalidConfigError(f"game_graph: more than {max_nodes} nodes; a smaller game")
        node_id = f"n{len(ids)}"
        ids[key] = node_id
        found[node_id] = (s, depth)
        paths[node_id] = path
        kids = []
        if not s.is_terminal():
            for action in s.legal_actions():
                child = s.clone()
                child.apply_action(action)
                kid = visit(child, depth + 1, (*path, action))
                kids.append((kid, _move_name(s, action), action))
        children[node_id] = kids
        return node_id

    visit(state.clone(), 0, ())
    returns: dict[str, tuple[float, ...]] = {}
    best: dict[str, list[tuple[str, str, int]]] = {}
    for node_id in sorted(found, key=lambda i: -found[i][1]):  # deepest first
        s, _ = found[node_id]
        if s.is_terminal():
            returns[node_id], best[node_id] = tuple(float(r) for r in s.returns()), []
            continue
        mover = s.current_player()
        top = max(returns[kid][mover] for kid, _, _ in children[node_id])
        best[node_id] = [k for k in children[node_id] if returns[k[0]][mover] == top]
        returns[node_id] = returns[best[node_id][0][0]]
    nodes = tuple(
        GraphNode(
            node_id,
            name(s),
            -1 if s.is_terminal() else s.current_player(),
            depth,
            returns[node_id],
            tuple(move for _, move, _ in best[node_id]),
            tuple(action for _, _, action in best[node_id]),
            paths[node_id],
        )
        for node_id, (s, depth) in found.items()
    )
    edges = tuple((a, kid, move) for a, kids in children.items() for kid, move, _ in kids)
    return GameGraph(nodes, edges, merge)


def _position(state: State) -> tuple[str, object]:
    """What merges two nodes: the position's text and who is to move (or the result)."""
    if state.is_terminal():
        return str(state), tuple(state.returns())
    return str(state), state.current_player()


def _move_name(state: State, action: int) -> str:
    game = getattr(state, "game", None)
    namer = getattr(game, "action_name", None)
    return str(namer(state, action)) if namer is not None else str(action)


#: Fill colours by the outcome for the first player; shapes by the player to move.
_FILL = {1: "#b7e4c7", 0: "#fff3b0", -1: "#f4c2c2"}
_SHAPE = {0: "box", 1: "ellipse", -1: "doubleoctagon"}


def to_dot(graph: GameGraph, title: str = "") -> str:
    """Graphviz source for ``graph``: a node's shape is the player to move (a box for
    the first, an ellipse for the second, a double octagon once the game is over), its
    fill the outcome for the first player by backward induction (green a win, yellow a
    draw, red a loss); the mover's best moves are bold."""
    lines = ["digraph game {", '  rankdir="TB";', '  node [style="filled", fontname="Helvetica"];']
    if title:
        lines.append(f'  label="{_escape(title)}"; labelloc="t";')
    for n in graph.nodes:
        outcome = (n.returns[0] > 0) - (n.returns[0] < 0)
        shape = _SHAPE.get(n.player, "ellipse")
        lines.append(
            f'  {n.id} [label="{_escape(n.label)}", shape={shape}, fillcolor="{_FILL[outcome]}"];'
        )
    for a, b, move in graph.edges:
        bold = move in graph.node(a).best
        style = ', style="bold", penwidth=2' if bold else ""
        lines.append(f'  {a} -> {b} [label="{_escape(move)}"{style}];')
    lines.append("}")
    return "\n".join(lines)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
