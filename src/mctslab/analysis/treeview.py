"""One read-only view of a search tree, from either engine, and its exports.

The web lab and ``mctslab tree`` draw the tree through this module alone, so
that what a student sees in the browser and in the terminal is the same thing.

A view is a tree of :class:`TreeNode`, built lazily from the engine's own tree:
only the displayed part is walked (``node``: start at a subtree, ``depth``:
levels below it, ``top``: the k most visited children of each node), so a
million-node tree costs only what is shown. The engines store no boards (the
compiled one) or store them only for opened nodes (the reference one), so
moves are named by replaying actions from the searched position with
``state.child(a)``, along displayed nodes only.

Both engines build the same tree from the same seed, node for node, so
:func:`from_reference` and :func:`from_compiled` give equal views (a test
compares their JSON).

Exports: :func:`to_json` (nested dicts), :func:`to_text` (an indented tree for
the terminal), :func:`to_dot` (Graphviz), :func:`to_svg` (the DOT rendered by
Graphviz's ``dot``), and :func:`export` naming one of :data:`FORMATS`.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mctslab.core.errors import InvalidConfigError, MctslabError
from mctslab.core.game import CHANCE, TERMINAL, State
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.engine import Searcher
from mctslab.search.mcts import MCTS
from mctslab.search.rules import RULES
from mctslab.search.tree_reader import NodeStats, TreeReader

__all__ = [
    "FORMATS",
    "GraphvizNotFoundError",
    "TreeNode",
    "check_graphviz",
    "export",
    "from_compiled",
    "from_reference",
    "from_searcher",
    "parse_node_id",
    "to_dot",
    "to_json",
    "to_svg",
    "to_text",
    "walk",
]

#: The export formats of :func:`export` (and ``mctslab tree --format``).
FORMATS = ("text", "dot", "svg", "json")

_OUTCOMES = {1: "win", 0: "draw", -1: "loss"}

H = TypeVar("H")


class GraphvizNotFoundError(MctslabError):
    """SVG needs Graphviz's ``dot`` program, and it is not on the ``PATH``."""


@dataclass(frozen=True)
class TreeNode:
    """One displayed node of a search tree (read-only; equal views compare equal).

    Attributes:
        id: the action path from the searched position, ``"4.0.8"``; ``""`` for the root.
        action: the action leading here (``None`` at the root).
        label: that action's name in the parent's position (``state.action_to_string``).
        player: the player who moved into this node (``None`` at the root): the
            player whose statistics ``visits`` and ``value`` are.
        to_play: the player to move here (``mctslab.TERMINAL`` once the game is over).
        visits: N, the number of iterations through this node.
        value: Q/N, the mean reward in ``[0, 1]`` of ``player`` (1 a win, 0.5 a
            draw, 0 a loss); ``None`` at the root and for an unvisited node.
        uct: the node's selection score seen from its parent: under UCT, with the
            search's ``c``, ``Q/N + c * sqrt(ln N_parent / N)`` (``math.inf`` when
            unvisited: selection tries it first); with RAVE or progressive bias,
            :func:`mctslab.search.reference.selection.rave_score` (the AMAF mean blended
            in with ``beta = sqrt(k / (3 N_parent + k))``, ``w * H / (N + 1)`` added); under PUCT,
            ``Q/N + c(N_parent) * P * sqrt(N_parent) / (1 + N)`` (``Q/N`` is ``fpu``
            when unvisited; without the root's exploration noise). ``None`` at the root.
        prior: the evaluator's prior ``P`` of the move into this node under PUCT;
            ``None`` under UCT, at the root and for a chance outcome.
        proven: MCTS-Solver's proof, 1 / 0 / -1 for a win / draw / loss of
            player 0; ``None`` if unproven (or the solver is off).
        terminal: whether the game is over here.
        untried: legal actions here that have no child yet.
        children: the displayed children, most visited first (ties: lowest action).
        hidden: children in the tree that are not displayed (beyond ``depth``,
            or outside the ``top`` most visited).
        hidden_visits: the visits of those hidden children, summed.
        amaf_visits: RAVE's all-moves-as-first count ``N~`` of the move into the node
            (``None`` without RAVE, at the root and for a chance outcome).
        amaf_value: its all-moves-as-first mean ``Q~/N~`` in ``[0, 1]`` for ``player``
            (``None`` without RAVE or while ``N~ = 0``).
        bias: progressive bias's ``w * H`` of the node (its score gains
            ``w * H / (N + 1)``; ``None`` without progressive bias, at the root and for
            a chance outcome).
    """

    id: str
    action: int | None
    label: str | None
    player: int | None
    to_play: int
    visits: int
    value: float | None
    uct: float | None
    proven: int | None
    terminal: bool
    untried: int
    children: tuple[TreeNode, ...]
    hidden: int
    hidden_visits: int
    prior: float | None = None
    amaf_visits: int | None = None
    amaf_value: float | None = None
    bias: float | None = None

    @property
    def num_children(self) -> int:
        """Children in the tree, displayed or not."""
        return len(self.children) + self.hidden


def walk(view: TreeNode) -> Iterator[TreeNode]:
    """Every displayed node of ``view``, depth first, parents before children."""
    stack = [view]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


# Building a view -----------------------------------------------------------------------------


def parse_node_id(text: str) -> tuple[int, ...]:
    """``"4.0.8"`` -> ``(4, 0, 8)``; ``""`` is the root. Raises :class:`InvalidConfigError`."""
    text = text.strip()
    if not text:
        return ()
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        raise InvalidConfigError(
            f"bad node id {text!r}: write the action path from the root, e.g. 4.0.8 "
            "(empty for the root)"
        ) from None


def _check_options(depth: int | None, top: int | None) -> None:
    if depth is not None and (not _is_int(depth) or depth < 0):
        raise InvalidConfigError(f"depth must be an integer >= 0 (or None: all), got {depth!r}")
    if top is not None and (not _is_int(top) or top < 1):
        raise InvalidConfigError(f"top must be an integer >= 1 (or None: all), got {top!r}")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _reader(searcher: Searcher, state: State) -> TreeReader[Any]:
    """The reader of ``searcher``'s kept tree, which must have been searched from ``state``
    (the view names moves in it)."""
    reader = searcher.tree_reader()
    if reader is None:
        raise InvalidConfigError("the searcher has no tree yet: run a search first")
    if list(reader.history) != list(state.history()):
        raise InvalidConfigError(
            "the state is not the position the searcher's tree was searched from "
            f"(tree: moves {list(reader.history)}, state: moves {list(state.history())})"
        )
    return reader


def from_searcher(
    searcher: Searcher,
    state: State,
    *,
    node: str = "",
    depth: int | None = None,
    top: int | None = None,
    keep: str = "",
) -> TreeNode:
    """The view of a searcher's kept tree (either engine's: what
    :func:`mctslab.make_searcher` returned, read through its
    :meth:`~mctslab.search.engine.Searcher.tree_reader`), searched from ``state``.

    ``node`` starts the view at a subtree (an id such as ``"4.0"``), ``depth`` keeps
    that many levels below it (``0``: the node alone; ``None``: all), ``top`` keeps
    each node's ``top`` most visited children (``None``: all). ``keep`` is a node id
    (from the root) whose path is shown whatever ``depth`` and ``top`` say, as far as
    it is in the tree: the web lab's step mode draws the iteration's path through
    children that are not among the most visited.
    """
    reader = _reader(searcher, state)
    return _build(reader, state, _Scorer.of(searcher.config), node, depth, top, keep)


def from_reference(
    searcher: MCTS,
    state: State,
    *,
    node: str = "",
    depth: int | None = None,
    top: int | None = None,
    keep: str = "",
) -> TreeNode:
    """The view of a reference engine's tree (``searcher.root``), searched from ``state``
    (options as :func:`from_searcher`)."""
    return from_searcher(searcher, state, node=node, depth=depth, top=top, keep=keep)


def from_compiled(
    searcher: CompiledMCTS,
    state: State,
    *,
    node: str = "",
    depth: int | None = None,
    top: int | None = None,
    keep: str = "",
) -> TreeNode:
    """The view of a compiled engine's tree (its arrays), searched from ``state``
    (options as :func:`from_searcher`)."""
    return from_searcher(searcher, state, node=node, depth=depth, top=top, keep=keep)


@dataclass(frozen=True)
class _Scorer:
    """A child's selection score under the search's rule: the registry's view of it
    (:meth:`mctslab.search.rules.RuleInfo.view_score`: UCT, UCB1-Tuned, RAVE with progressive
    bias, PUCT)."""

    config: SearchConfig

    @classmethod
    def of(cls, config: SearchConfig) -> _Scorer:
        return cls(config)

    @property
    def rave(self) -> float:
        return self.config.rave  # 0 under PUCT: the config refuses RAVE there

    @property
    def progressive_bias(self) -> float:
        return self.config.progressive_bias  # 0 under PUCT, as rave

    def __call__(self, s: NodeStats, parent_visits: int) -> float:
        return RULES[self.config.selection_rule].view_score(s, parent_visits, self.config)


def _build(
    reader: TreeReader[H],
    state: State,
    c: _Scorer,
    node: str,
    depth: int | None,
    top: int | None,
    keep: str = "",
) -> TreeNode:
    """Descend to ``node`` along its actions, replaying them on ``state``, then walk below."""
    path = parse_node_id(node)
    _check_options(depth, top)
    kept = parse_node_id(keep)
    # The kept path below the view's top node (none if it goes elsewhere).
    kept_below = kept[len(path) :] if kept[: len(path)] == path else None
    here = reader.root()
    parent_state: State | None = None
    parent_visits = 0
    for i, action in enumerate(path):
        kids = reader.children(here)
        match = next((ch for ch in kids if reader.stats(ch).action == action), None)
        if match is None:
            where = ".".join(map(str, path[:i])) or "the root"
            shown = ", ".join(str(reader.stats(ch).action) for ch in kids) or "none"
            raise InvalidConfigError(
                f"node {node.strip()!r} is not in the tree: no child {action} below {where} "
                f"(its children: {shown})"
            )
        parent_visits = reader.stats(here).visits
        parent_state, state = state, state.child(action)  # tree actions are legal there
        here = match
    return _view(reader, here, path, state, parent_state, parent_visits, c, depth, top, kept_below)


def _view(
    reader: TreeReader[H],
    handle: H,
    path: tuple[int, ...],
    state: State,
    parent_state: State | None,
    parent_visits: int,
    c: _Scorer,
    depth: int | None,
    top: int | None,
    keep: tuple[int, ...] | None = None,
) -> TreeNode:
    """The node ``handle`` at ``state`` and, down to ``depth``, its ``top`` children;
    and the child that ``keep`` (the kept path's actions below this node) goes through."""
    s = reader.stats(handle)
    kids = [(reader.stats(ch), ch) for ch in reader.children(handle)]
    # Most visited first, ties to the lowest action: the order a reader looks for.
    kids.sort(key=lambda k: (-k[0].visits, k[0].action))
    shown = [] if depth == 0 else kids[:top] if top is not None else kids
    if keep and all(cs.action != keep[0] for cs, _ in shown):
        # The kept path's child, in its place among its siblings (most visited first).
        actions = {cs.action for cs, _ in shown} | {keep[0]}
        shown = [k for k in kids if k[0].action in actions]
    below = None if depth is None else max(depth - 1, 0)  # a kept node below depth: alone

    def child_view(cs: NodeStats, ch: H) -> TreeNode:
        on = keep[1:] if keep and cs.action == keep[0] else None
        child_state = state.child(cs.action)
        return _view(
            reader, ch, (*path, cs.action), child_state, state, s.visits, c, below, top, on
        )

    children = tuple(child_view(cs, ch) for cs, ch in shown)
    prior = amaf_value = bias = None
    amaf_visits: int | None = None
    if parent_state is None:  # the searched position: nobody moved into it
        action = label = player = uct = value = None
    else:
        action = path[-1]
        label = parent_state.action_to_string(action)
        player = parent_state.current_player()
        if player == CHANCE:  # an outcome of the dice: sampled, not chosen, and no value
            value = uct = None
        else:
            value = s.value_sum / s.visits if s.visits else None
            uct = c(s, parent_visits)
            prior = s.prior
            if c.rave:
                amaf_visits = s.amaf_visits
                amaf_value = s.amaf_sum / s.amaf_visits if s.amaf_visits else None
            if c.progressive_bias:
                bias = s.bias
    return TreeNode(
        id=".".join(map(str, path)),
        action=action,
        label=label,
        player=player,
        to_play=state.current_player(),
        visits=s.visits,
        value=value,
        uct=uct,
        proven=s.proven,
        terminal=state.is_terminal(),
        untried=s.untried,
        children=children,
        hidden=len(kids) - len(shown),
        hidden_visits=sum(cs.visits for cs, _ in kids) - sum(cs.visits for cs, _ in shown),
        prior=prior,
        amaf_visits=amaf_visits,
        amaf_value=amaf_value,
        bias=bias,
    )


# Exports -------------------------------------------------------------------------------------


def to_json(view: TreeNode) -> dict[str, Any]:
    """The view as nested dicts of JSON values (``uct`` ``inf`` becomes ``None``).

    Keys: those of :class:`TreeNode`, plus ``num_children``; ``children`` is a list
    (``amaf_visits``, ``amaf_value`` and ``bias`` are ``None`` without RAVE and
    progressive bias).
    """
    return {
        "id": view.id,
        "action": view.action,
        "label": view.label,
        "player": view.player,
        "to_play": view.to_play,
        "visits": view.visits,
        "value": view.value,
        "uct": view.uct if view.uct is not None and math.isfinite(view.uct) else None,
        "prior": view.prior,
        "proven": view.proven,
        "terminal": view.terminal,
        "untried": view.untried,
        "num_children": view.num_children,
        "hidden": view.hidden,
        "hidden_visits": view.hidden_visits,
        "amaf_visits": view.amaf_visits,
        "amaf_value": view.amaf_value,
        "bias": view.bias,
        "children": [to_json(ch) for ch in view.children],
    }


def _proven_word(node: TreeNode) -> str | None:
    """The proof from the point of view of the player who moved in (at the root: to move)."""
    if node.proven is None:
        return None
    who = node.player if node.player is not None and node.player != CHANCE else node.to_play
    if who == CHANCE:  # a chance node reached from a chance node: the value is for player 0
        who = 0
    return _OUTCOMES[node.proven if who == 0 else -node.proven]


def _fmt(x: float | None, unset: str = "-") -> str:
    if x is None:
        return unset
    return "inf" if math.isinf(x) else f"{x:.3f}"


def _to_move(node: TreeNode, players: Sequence[str] | None) -> str:
    """``"player 1 to move"`` (or the caller's name for the player), ``"game over"``."""
    p = node.to_play
    if p == TERMINAL:
        return "game over"
    if p == CHANCE:
        return "chance to move"
    return f"{players[p] if players and 0 <= p < len(players) else f'player {p}'} to move"


def _score_rows(node: TreeNode) -> list[str]:
    """``UCT=...``, or under PUCT (a node with a prior) ``P=... PUCT=...``; with RAVE
    the AMAF statistics and ``RAVE=...`` (the score of :func:`rave_score`), with
    progressive bias ``wH=...`` beside the score."""
    if node.prior is not None:
        return [f"P={_fmt(node.prior)}", f"PUCT={_fmt(node.uct)}"]
    rows = []
    if node.amaf_visits is not None:
        rows += [f"N~={node.amaf_visits}", f"Q~={_fmt(node.amaf_value)}"]
    if node.bias is not None:
        rows.append(f"wH={_fmt(node.bias)}")
    name = "RAVE" if node.amaf_visits is not None else "UCT"
    return [*rows, f"{name}={_fmt(node.uct)}"]


def _stats_text(node: TreeNode) -> str:
    parts = [f"N={node.visits}"]
    if node.player is not None and node.player != CHANCE:
        parts += [f"Q/N={_fmt(node.value)}", *_score_rows(node)]
    proof = _proven_word(node)
    if proof is not None:
        parts.append(f"proven={proof}")
    if node.terminal:
        parts.append("terminal")
    if node.hidden and not node.children:
        parts.append(f"[+{node.hidden} children, N={node.hidden_visits}]")
    return " ".join(parts)


def to_text(view: TreeNode, players: Sequence[str] | None = None) -> str:
    """An indented tree for the terminal, one node a line, ending with a newline
    (``mctslab tree tic_tac_toe --moves 4 --top 1``)::

        root (o to move)  N=1000
        ├─ 6 (a3)  N=173 Q/N=0.303 UCT=0.586
        │  ├─ 0 (a1)  N=35 Q/N=0.786 UCT=1.328 [+6 children, N=34]
        │  └─ … 6 more children (N=137)
        └─ … 7 more children (N=827)

    Each child shows its action id, its name, N, Q/N and UCT for the player who
    moved into it, its proof (win / draw / loss for that player) if any, and how
    many children are not shown. ``players`` names the players by index for the
    root's "to move" (default ``"player 0"``, ``"player 1"``, ...).
    """
    head = (
        f"{view.id} ({view.label})"
        if view.player is not None
        else f"root ({_to_move(view, players)})"
    )
    lines = [f"{head}  {_stats_text(view)}"]

    def emit(node: TreeNode, prefix: str) -> None:
        rows: list[TreeNode | None] = [*node.children]
        if node.hidden and node.children:
            rows.append(None)  # the "more" line for the top-k cut
        for i, child in enumerate(rows):
            last = i == len(rows) - 1
            branch = "└─ " if last else "├─ "
            if child is None:
                lines.append(
                    f"{prefix}{branch}… {node.hidden} more children (N={node.hidden_visits})"
                )
                continue
            lines.append(f"{prefix}{branch}{child.action} ({child.label})  {_stats_text(child)}")
            emit(child, prefix + ("   " if last else "│  "))

    emit(view, "")
    return "\n".join(lines) + "\n"


def _dot_id(node: TreeNode) -> str:
    return "n" + "".join(f"_{a}" for a in node.id.split(".") if a)


def _dot_escape(text: str) -> str:
    """``text`` made safe inside a DOT double-quoted string (a move name may hold either)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


# ColorBrewer's RdYlGn ends and middle: red for a losing mean, yellow even, green winning.
_RED, _YELLOW, _GREEN = (215, 48, 39), (255, 255, 191), (26, 152, 80)


def _colour(value: float | None) -> str:
    """The fill of a node: white when unvisited, else the red→yellow→green scale of Q/N."""
    if value is None:
        return "#ffffff"
    v = min(1.0, max(0.0, value))
    a, b, t = (_RED, _YELLOW, v * 2) if v < 0.5 else (_YELLOW, _GREEN, v * 2 - 1)
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))


def to_dot(view: TreeNode, players: Sequence[str] | None = None) -> str:
    """The view as a Graphviz digraph, one DOT node per displayed node.

    Nodes show the move, N and Q/N (and UCT, the proof, hidden children); they are
    filled on a red → yellow → green scale of Q/N, the mean of the player who moved
    in (white: unvisited, grey: the root); proven nodes have a double, bold border.
    Edges are labelled by the move.
    """
    lines = [
        "digraph mcts {",
        '  graph [rankdir=TB, fontname="Helvetica"];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for node in walk(view):
        if node.player is None:  # the searched position
            rows = ["root", _to_move(node, players), f"N={node.visits}"]
        else:
            name = node.label or str(node.action)
            rows = [f"{name} (node {node.id})" if node is view else name, f"N={node.visits}"]
            rows += [f"Q/N={_fmt(node.value)}", *_score_rows(node)]
        proof = _proven_word(node)
        if proof is not None:
            rows.append(f"proven {proof}")
        if node.terminal:
            rows.append("terminal")
        if node.hidden:
            rows.append(f"+{node.hidden} hidden (N={node.hidden_visits})")
        label = "\\n".join(_dot_escape(r) for r in rows)  # DOT's \\n: a line break
        fill = "#e0e0e0" if node.player is None else _colour(node.value)
        attrs = [f'label="{label}"', f'fillcolor="{fill}"']
        if node.proven is not None:
            attrs += ["peripheries=2", "penwidth=2", 'style="rounded,filled,bold"']
        lines.append(f"  {_dot_id(node)} [{', '.join(attrs)}];")
        for child in node.children:
            edge = _dot_escape(child.label or str(child.action))
            lines.append(f'  {_dot_id(node)} -> {_dot_id(child)} [label="{edge}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def check_graphviz() -> None:
    """Raise :class:`GraphvizNotFoundError` if Graphviz's ``dot`` program is missing."""
    if shutil.which("dot") is None:
        raise GraphvizNotFoundError(_NO_DOT)


_NO_DOT = (
    "SVG export needs Graphviz's 'dot' program, which is not on the PATH: "
    "install graphviz (apt-get install graphviz)"
)


def to_svg(view: TreeNode, players: Sequence[str] | None = None) -> str:
    """The DOT of :func:`to_dot` rendered to SVG by Graphviz's ``dot`` (via ``graphviz``)."""
    import graphviz

    check_graphviz()
    try:
        svg = graphviz.Source(to_dot(view, players)).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise GraphvizNotFoundError(_NO_DOT) from None
    return str(svg)


def export(view: TreeNode, format: str, players: Sequence[str] | None = None) -> str:
    """The view in ``format``, one of :data:`FORMATS`, as text ending with a newline.

    ``players`` names the players by index (text, DOT and SVG say who is to move).
    """
    if format == "text":
        return to_text(view, players)
    if format == "dot":
        return to_dot(view, players)
    if format == "svg":
        return to_svg(view, players)
    if format == "json":
        return json.dumps(to_json(view), indent=2, allow_nan=False) + "\n"
    raise InvalidConfigError(f"unknown format {format!r}; valid formats: {', '.join(FORMATS)}")
