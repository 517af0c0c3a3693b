"""What the server shares out: memory for every tree together, and searches per client.

A per-session node cap alone does not bound the server: a hundred sessions of a game
whose nodes are large (a Go position is kept in every opened node of the reference
tree) can take the machine's memory. So every tree is priced before it grows:

- :func:`reference_node_bytes` estimates one node of the reference engine's tree for a
  game (the node, its position, its list of untried moves), erring high;
  :func:`compiled_node_bytes` is exact for the compiled engine, which allocates its
  tree's arrays at the first search.
- :class:`MemoryBudget` holds what each session's trees (and each running stateless
  search) take, by key, against ``Settings.max_memory``: a search is given as many
  nodes as the budget has room for (its ``max_nodes``), and a request that could not
  add one is refused (429) before anything is allocated.
- :class:`ClientSearches` counts the searches each client runs at once, and all of them
  (``max_client_searches``, ``max_searches``: 429 beyond).
- Every search-like request is held in both: the sessions' searches and ``/api/move``
  for as long as the request runs, an SP-MCTS step (``POST /api/optimize/step``) for its
  iterations and its step tree for as long as it is kept, and a single-player run
  (``POST /api/optimize/runs``), which outlives its request, for as long as its thread
  searches (:func:`optimize_run_bytes` prices it): a hold given an ``alive`` test ends
  by itself once the test says so, checked whenever the counts are read.

The server's event loop is the only caller (a handler runs one step at a time), so no
lock is needed: a run's thread only changes what ``alive`` answers.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from mctslab.core.game import Game, State
from mctslab.search.compiled import CompiledMCTS
from mctslab.search.config import SearchConfig
from mctslab.search.rules import puct_config

__all__ = [
    "ClientSearches",
    "MemoryBudget",
    "compiled_node_bound",
    "compiled_node_bytes",
    "compiled_tree_nodes",
    "game_bytes",
    "one_node_an_iteration",
    "optimize_run_bytes",
    "reference_node_bytes",
    "state_bytes",
    "step_tree_bytes",
]

# A reference node without its position: the Node object (20 slots), its children
# list, its rewards, its share of the parent's list (measured: 560 to 870 bytes a node
# for tic-tac-toe's and Nim's small positions, with Python's allocator's overhead).
_NODE = 768
# Each untried move of an opened node: an int object and its list slot.
_UNTRIED = 16
# Estimates err high by this factor (allocator overhead, lists grown by doubling).
_MARGIN = 1.25


def state_bytes(state: State) -> int:
    """The bytes a copy of ``state`` takes beyond what it shares with the original (the
    game, rule tables): the objects of a clone that the original does not hold too."""
    twin = state.clone()
    shared = _ids(state)
    return _size(twin, shared, set())


def _children(obj: Any) -> list[Any]:
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, list | tuple | set | frozenset):
        return list(obj)
    found: list[Any] = list(getattr(obj, "__dict__", {}).values())
    for klass in type(obj).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if hasattr(obj, slot):
                found.append(getattr(obj, slot))
    return found


def _ids(obj: Any, depth: int = 4) -> set[int]:
    seen: set[int] = set()
    stack = [(obj, 0)]
    while stack:
        item, d = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if d < depth:
            stack.extend((child, d + 1) for child in _children(item))
    return seen


def _size(obj: Any, shared: set[int], seen: set[int], depth: int = 4) -> int:
    if id(obj) in shared or id(obj) in seen:
        return 0
    seen.add(id(obj))
    total = sys.getsizeof(obj)  # an array's own data included (not a view's)
    if isinstance(obj, np.ndarray):
        return total
    if depth > 0:
        total += sum(_size(child, shared, seen, depth - 1) for child in _children(obj))
    return total


def reference_node_bytes(state: State, native_state_bytes: int | None = None) -> int:
    """An estimate, erring high, of the bytes one node of the reference engine's tree
    takes in ``state``'s game: the node, a position (each opened node keeps one) and its
    untried moves. ``native_state_bytes`` is a position's size where Python cannot see it
    (an OpenSpiel state lives in C++: :data:`mctslab.web.openspiel.ALLOWED`)."""
    position = state_bytes(state) + (native_state_bytes or 0)
    untried = _UNTRIED * len(state.legal_actions()) if not state.is_terminal() else 0
    return int(_MARGIN * (_NODE + position + untried))


def compiled_node_bytes(config: SearchConfig) -> int:
    """The bytes of one node of the compiled engine's tree under ``config``
    (:meth:`CompiledMCTS.node_bytes`: the engine knows its layout)."""
    return CompiledMCTS.node_bytes(config)


# Single-player searches (POST /api/optimize/runs, /api/optimize/step). ----------------------

# A node of SP-MCTS's compiled tree: three links, its move, visits, untried count (8
# bytes each), a terminal flag and two float sums; the arrays grow by doubling, the old
# ones copied into the new (3 times a tree's nodes at the peak of a growth).
_SP_COMPILED_NODE = 6 * 8 + 1 + 2 * 8
_SP_GROWTH = 3
# A reference SP-MCTS node (mctslab.search.single.spmcts, the step tree's StepNode): the
# object, its children, its statistics; its untried moves are priced apart.
_SP_NODE = 512
# A move code's weight in a reference NRPA policy (a dict entry, a float); a compiled
# policy is an array of 8-byte floats.
_POLICY_ENTRY = 120
# What any run takes beside its search's structures: its thread, its best sequences,
# the sequences it keeps for the page.
_RUN_BASE = 4 << 20


def game_bytes(game: Game) -> int:
    """The bytes of ``game``'s own tables (a TSP instance's distance matrix)."""
    return _size(game, set(), set())


def step_tree_bytes(state: State, nodes: int) -> int:
    """An estimate, erring high, of an SP-MCTS step tree (:mod:`mctslab.web.spmcts_step`)
    of ``nodes`` nodes from ``state``: a node keeps its untried moves, not a position."""
    moves = 0 if state.is_terminal() else len(state.legal_actions())
    return int(_MARGIN * nodes * (_SP_NODE + _UNTRIED * moves))


def _move_codes(game: Game) -> int:
    count = getattr(game, "num_move_codes", None)
    if callable(count):
        return int(count())
    actions = int(game.info.num_actions)
    return actions * (actions + 1)  # a move in the context of the one before


def optimize_run_bytes(kind: str, options: dict[str, Any], compiled: bool, game: Game) -> int:
    """An estimate, erring high, of what a single-player run of the search ``kind`` with
    ``options`` (an :class:`mctslab.players.optimizers.Optimizer`'s) takes at most, its
    game's tables included: SP-MCTS's tree holds at most ``iterations`` nodes for each
    move of a run (a restart frees it), NRPA a policy per level over the game's move
    codes; the other searches keep a few sequences."""
    info = game.info
    length = int(info.max_game_length) + 1
    total = _RUN_BASE + game_bytes(game)
    if kind == "sp-mcts":
        nodes = int(options.get("iterations", 1000)) * length + 1
        if compiled:
            total += _SP_GROWTH * _SP_COMPILED_NODE * nodes
        else:
            total += int(_MARGIN * nodes * (_SP_NODE + _UNTRIED * int(info.num_actions)))
    elif kind in ("nrpa", "random"):
        levels = int(options.get("level", 0) if kind == "nrpa" else 0) + 2
        total += levels * _move_codes(game) * (8 if compiled else _POLICY_ENTRY)
    return total


def compiled_node_bound(config: SearchConfig, num_actions: int) -> int | None:
    """The most nodes the compiled engine's tree can make in a search of ``config`` from a
    fresh tree, or ``None`` under a time budget (no bound but the node cap).

    An iteration opens at most one leaf: one node under ``expansion="one"`` (without
    RAVE, knowledge or PUCT, which add a node's children at once), else at most
    ``num_actions`` children (PUCT: ``batch`` leaves an iteration); robust-max may extend
    the budget by ``robust_max_extra``. A search whose bound is under the tree's cap never
    reaches the cap, so the engine may size its tree by the budget (it grows it by
    doubling) instead of allocating the cap whole: node for node the same search."""
    if config.time is not None or config.iterations is None:
        return None
    iterations = config.iterations
    if config.final == "robust-max":
        iterations = math.ceil(iterations * (1.0 + config.robust_max_extra))
    if one_node_an_iteration(config):
        return iterations + num_actions + 1
    batch = puct_config(config).batch if config.rule.evaluated else 0
    leaves = iterations + 1 + batch
    return leaves * num_actions + 1


def compiled_tree_nodes(bound: int, one: bool) -> int:
    """The nodes' worth of arrays the compiled engine holds at most for a search that makes
    at most ``bound`` nodes with no node cap: its first tree (sized for the first chunk
    under ``expansion="one"`` (``one``), else ``1 << 16`` nodes) doubled until the nodes
    fit, the old arrays beside the new while they are copied (three times the nodes)."""
    return 3 * bound + 64 if one else max(1 << 16, 3 * bound)


def one_node_an_iteration(config: SearchConfig) -> bool:
    """Whether the compiled engine makes one node an iteration under ``config``."""
    return (
        config.expansion == "one"
        and not (config.rave or config.knowledge)
        and not config.rule.evaluated
    )


class MemoryBudget:
    """Bytes held against a total, by key (a session's id, a running search, a kept step
    tree); a hold given an ``alive`` test is dropped once the test answers false."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._held: dict[object, int] = {}
        self._alive: dict[object, Callable[[], bool]] = {}

    @property
    def used(self) -> int:
        for key, alive in list(self._alive.items()):
            if not alive():
                self.drop(key)
        return sum(self._held.values())

    def room(self, key: object = None) -> int:
        """Bytes ``key`` may hold: what is free, with what ``key`` holds now."""
        return self.total - self.used + self._held.get(key, 0)

    def hold(self, key: object, nbytes: int, alive: Callable[[], bool] | None = None) -> None:
        """``key`` now holds ``nbytes`` (checked against :meth:`room` by the caller), until
        :meth:`drop`, or until ``alive()`` is false where given (a background run)."""
        self._held[key] = max(0, nbytes)
        if alive is not None:
            self._alive[key] = alive

    def drop(self, key: object) -> None:
        self._held.pop(key, None)
        self._alive.pop(key, None)


class ClientSearches:
    """The searches running now, by client and in all."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self._running: Counter[str] = Counter()
        # Searches that outlive their request (a single-player run): client, alive test.
        self._background: list[tuple[str, Callable[[], bool]]] = []

    def refusal(self, client: str) -> str | None:
        """Why ``client`` may not start one more search now, or ``None``."""
        for item in list(self._background):
            if not item[1]():
                self._background.remove(item)
                self.end(item[0])
        if self._running[client] >= self.per_client:
            return (
                f"too many searches at once from this client: at most {self.per_client} "
                "(max_client_searches); wait for one to end"
            )
        if sum(self._running.values()) >= self.total:
            return (
                f"too many searches at once: the server runs at most {self.total} "
                "(max_searches); try again shortly"
            )
        return None

    def start(self, client: str, alive: Callable[[], bool] | None = None) -> None:
        """Count a search of ``client``: until :meth:`end`, or, given ``alive``, until
        ``alive()`` is false (seen at the next :meth:`refusal`)."""
        self._running[client] += 1
        if alive is not None:
            self._background.append((client, alive))

    def end(self, client: str) -> None:
        self._running[client] -= 1
        if self._running[client] <= 0:
            del self._running[client]
