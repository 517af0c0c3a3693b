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

The server's event loop is the only caller (a handler runs one step at a time), so no
lock is needed.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import numpy as np

from mctslab.core.game import State
from mctslab.search import compiled
from mctslab.search.mcts import SearchConfig

__all__ = [
    "ClientSearches",
    "MemoryBudget",
    "compiled_node_bytes",
    "reference_node_bytes",
    "state_bytes",
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
    """The bytes of one node of the compiled engine's tree under ``config``."""
    rows = compiled.stats_rows(config.statistics)
    extra = 2 if config.puct is not None else 0
    return compiled.bytes_per_node() + 8 * (rows + extra)


class MemoryBudget:
    """Bytes held against a total, by key (a session's id, a running stateless search)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._held: dict[object, int] = {}

    @property
    def used(self) -> int:
        return sum(self._held.values())

    def room(self, key: object = None) -> int:
        """Bytes ``key`` may hold: what is free, with what ``key`` holds now."""
        return self.total - self.used + self._held.get(key, 0)

    def hold(self, key: object, nbytes: int) -> None:
        """``key`` now holds ``nbytes`` (checked against :meth:`room` by the caller)."""
        self._held[key] = max(0, nbytes)

    def drop(self, key: object) -> None:
        self._held.pop(key, None)


class ClientSearches:
    """The searches running now, by client and in all."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self._running: Counter[str] = Counter()

    def refusal(self, client: str) -> str | None:
        """Why ``client`` may not start one more search now, or ``None``."""
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

    def start(self, client: str) -> None:
        self._running[client] += 1

    def end(self, client: str) -> None:
        self._running[client] -= 1
        if self._running[client] <= 0:
            del self._running[client]
