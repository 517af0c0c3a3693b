"""The compiled engine: a whole MCTS iteration in one numba ``nopython`` function.

It makes the same choices as the reference engine (:mod:`mctslab.mcts`) from
the same seed, so it builds the same tree: the same four phases, the same
SplitMix64 draws (:mod:`mctslab.rng`), the same tie-breaking (lowest action)
and the same floating-point expressions. Only the data structure differs:

The tree is a struct of preallocated arrays (as mctx's ``Tree``); node ``i``
is described by ``parent[i]``, ``action[i]``, ``player[i]`` (who moved into
it, whose statistics ``visits[i]``/``value_sum[i]`` are), ``to_play[i]``,
``opened[i]``, ``terminal[i]``, ``proven[i]`` (1/0/-1 for player 0,
``UNPROVEN`` else), and a block of ``n_slots[i]`` slots starting at
``slot_start[i]``, one per legal action in ascending order:
``child_slot[s]`` is the child for that action (``-1`` before it exists) and
``untried[slot_start[i]:slot_start[i] + n_untried[i]]`` lists the legal-action
indices not yet expanded, in the order the random draws leave them. Node 0 is
the root. Boards are not stored: each iteration replays the path from the root.

Python calls :func:`run_chunk` once per chunk of iterations; between chunks it
checks the clock (numba has none in nopython mode), grows the arrays when they
run short, and handles the robust-max extension. The function takes the game's
rule kernels as arguments; each built-in game wraps it in a one-line function
compiled with ``cache=True`` (``RuleKernels.search_chunk``), so that numba's
on-disk cache serves a fresh process. A user's own kernel game works without
such a wrapper, compiled on first use.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.errors import InvalidConfigError
from mctslab.game import CHANCE, TERMINAL, GameInfo, State
from mctslab.mcts import SearchConfig, SearchResult, make_result

__all__ = ["CompiledMCTS", "run_chunk"]

UNPROVEN = 2
NO_CHILD = -1

# run_chunk's return codes.
CHUNK_DONE, STOP_ITERATIONS, STOP_TIME, STOP_NODES, STOP_PROVEN = 0, 1, 2, 3, 4
STOP_AGREEMENT, EXTENDED, NEED_SPACE, NODE_BUDGET, CHANCE_NODE = 5, 6, 7, 8, 9
_STOP_NAMES = {
    STOP_ITERATIONS: "iterations",
    STOP_TIME: "time",
    STOP_NODES: "nodes",
    STOP_PROVEN: "proven",
    STOP_AGREEMENT: "agreement",
}

# cfg_i: integer options; cfg_f: float options.
EXPANSION, SIMULATION, CUTOFF_DEPTH, SOLVER, FINAL, MAX_NODES = 0, 1, 2, 3, 4, 5
C, MIN_UTILITY, SPAN, EXTRA = 0, 1, 2, 3
# ctl: the search's mutable counters, kept across chunks.
ITERATIONS, IS_EXTENDED, NODES, SLOTS, TIME_UP = 0, 1, 2, 3, 4
# ctl_f: mutable float state.
MAX_ITERATIONS = 0

_EXPANSION_CODE = {"one": 0, "all": 1}
_SIMULATION_CODE = {"random": 0, "heavy": 1, "cutoff": 2}
_FINAL_CODE = {"robust": 0, "max": 1, "robust-max": 2}

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def rng_next(rng):  # type: ignore[no-untyped-def]
    """SplitMix64, exactly as :meth:`mctslab.rng.Rng.next_u64` (state in ``rng[0]``)."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * _MUL1
    z = (z ^ (z >> np.uint64(27))) * _MUL2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_randint(rng, n):  # type: ignore[no-untyped-def]
    """As :meth:`mctslab.rng.Rng.randint`: the top 31 bits modulo ``n``."""
    return np.int64((rng_next(rng) >> np.uint64(33)) % np.uint64(n))


@njit(cache=True)
def _wins(rets, player):  # type: ignore[no-untyped-def]
    for i in range(rets.shape[0]):  # noqa: SIM110 (numba: no generators in all())
        if i != player and not rets[player] > rets[i]:
            return False
    return True


@njit(cache=True)
def _mean(value_sum, visits, i):  # type: ignore[no-untyped-def]
    return value_sum[i] / visits[i] if visits[i] else 0.0


@njit(cache=True)
def _better(visits_a, mean_a, visits_b, mean_b, by_visits):  # type: ignore[no-untyped-def]
    """Lexicographic (visits, mean) or (mean, visits) comparison: is a strictly better?"""
    if by_visits:
        return visits_a > visits_b or (visits_a == visits_b and mean_a > mean_b)
    return mean_a > mean_b or (mean_a == mean_b and visits_a > visits_b)


@njit(cache=True)
def _agree(tree):  # type: ignore[no-untyped-def]
    """Robust-max's test at the root: most visits and best mean pick the same child.

    Children come in ascending action order, so a later child must be strictly
    better to win: ties go to the lowest action, as in the reference's ``max``.
    """
    (_, _, _, _, _, _, _, visits, value_sum, slot_start, n_slots, _, child_slot, _) = tree
    robust = -1
    best = -1
    any_visited = False
    s0 = slot_start[0]
    for k in range(n_slots[0]):
        if child_slot[s0 + k] >= 0 and visits[child_slot[s0 + k]] > 0:
            any_visited = True
    for k in range(n_slots[0]):
        ch = child_slot[s0 + k]
        if ch < 0:
            continue
        m = _mean(value_sum, visits, ch)
        if robust < 0 or _better(
            visits[ch], m, visits[robust], _mean(value_sum, visits, robust), True
        ):
            robust = ch
        if any_visited and visits[ch] == 0:
            continue
        if best < 0 or _better(visits[ch], m, visits[best], _mean(value_sum, visits, best), False):
            best = ch
    return robust < 0 or robust == best


@njit(inline="always")  # inlined: a call passing the kernels on would defeat the cache
def _open(legal_fn, returns_fn, tree, node, state, params, solver, ctl, legal, rets):  # type: ignore[no-untyped-def]
    """Record the node's position: player to move, a slot block for its legal actions,
    and for a terminal position its proof. Returns False at a chance node."""
    (
        _,
        _,
        _,
        to_play,
        opened,
        terminal,
        proven,
        _,
        _,
        slot_start,
        n_slots,
        n_untried,
        child_slot,
        untried,
    ) = tree
    p = state[0]
    if p == CHANCE:
        return False
    opened[node] = 1
    to_play[node] = p
    if p == TERMINAL:
        terminal[node] = 1
        if solver:
            returns_fn(state, params, rets)
            proven[node] = 1 if rets[0] > rets[1] else (-1 if rets[0] < rets[1] else 0)
        return True
    n = legal_fn(state, params, legal)
    start = ctl[SLOTS]
    ctl[SLOTS] = start + n
    slot_start[node] = start
    n_slots[node] = n
    n_untried[node] = n
    for k in range(n):
        child_slot[start + k] = NO_CHILD
        untried[start + k] = k
    return True


@njit(cache=True)
def _new_node(tree, parent_node, a, mover, ctl):  # type: ignore[no-untyped-def]
    (
        parent,
        action,
        player,
        to_play,
        opened,
        terminal,
        proven,
        visits,
        value_sum,
        _,
        n_slots,
        n_untried,
        _,
        _,
    ) = tree
    i = ctl[NODES]
    ctl[NODES] = i + 1
    parent[i] = parent_node
    action[i] = a
    player[i] = mover
    to_play[i] = TERMINAL
    opened[i] = 0
    terminal[i] = 0
    proven[i] = UNPROVEN
    visits[i] = 0
    value_sum[i] = 0.0
    n_slots[i] = 0
    n_untried[i] = 0
    return i


@njit(inline="always")
def _heavy_action(
    legal_fn, apply_fn, returns_fn, state, params, rng, a_buf, b_buf, safe, tmp1, tmp2, rets
):  # type: ignore[no-untyped-def]
    """As the reference's heavy playout: win at once, else avoid moves after which the
    opponent wins at once, else any move; random among equals."""
    mover = state[0]
    n = legal_fn(state, params, a_buf)
    for k in range(n):
        tmp1[:] = state
        apply_fn(tmp1, params, a_buf[k])
        if tmp1[0] == TERMINAL:
            returns_fn(tmp1, params, rets)
            if _wins(rets, mover):
                return a_buf[k]
    ns = 0
    for k in range(n):
        tmp1[:] = state
        apply_fn(tmp1, params, a_buf[k])
        other = tmp1[0]
        if other == TERMINAL:
            safe[ns] = a_buf[k]
            ns += 1
            continue
        m = legal_fn(tmp1, params, b_buf)
        loses = False
        for j in range(m):
            tmp2[:] = tmp1
            apply_fn(tmp2, params, b_buf[j])
            if tmp2[0] == TERMINAL:
                returns_fn(tmp2, params, rets)
                if _wins(rets, other):
                    loses = True
                    break
        if not loses:
            safe[ns] = a_buf[k]
            ns += 1
    if ns > 0:
        return safe[rng_randint(rng, ns)]
    return a_buf[rng_randint(rng, n)]


@njit(cache=True)
def _prove(tree, node):  # type: ignore[no-untyped-def]
    """MCTS-Solver's backup at one node, as the reference's ``_prove``."""
    (
        _,
        _,
        _,
        to_play,
        opened,
        terminal,
        proven,
        _,
        _,
        slot_start,
        n_slots,
        n_untried,
        child_slot,
        _,
    ) = tree
    if proven[node] != UNPROVEN or terminal[node] or not opened[node]:
        return False
    p = to_play[node]
    best = -9
    complete = n_untried[node] == 0
    s0 = slot_start[node]
    for k in range(n_slots[node]):
        ch = child_slot[s0 + k]
        if ch < 0:
            continue
        if proven[ch] == UNPROVEN:
            complete = False
            continue
        v = proven[ch] if p == 0 else -proven[ch]
        if v == 1:
            proven[node] = proven[ch]
            return True
        if v > best:
            best = v
    if complete and best != -9:
        proven[node] = best if p == 0 else -best
        return True
    return False


@njit(inline="always")  # inlined into each game's cached wrapper (see the module docstring)
def run_chunk(  # type: ignore[no-untyped-def]
    legal_fn,
    apply_fn,
    returns_fn,
    heuristic_fn,
    tree,
    root_state,
    params,
    cfg_i,
    cfg_f,
    ctl,
    ctl_f,
    rng,
    bufs,
    fbufs,
    path,
    capacity,
    max_chunk,
):
    """Run up to ``max_chunk`` iterations; return why it stopped (a code above).

    ``bufs`` is an int64 matrix of scratch rows: 0 the working state, 1-2
    scratch states, 3-5 legal-action buffers, 6 the safe-move buffer (all as
    long as the longer of state and action count); ``fbufs`` rows 0-1 hold
    rewards and returns. ``capacity`` = (node capacity, slot capacity).
    """
    (
        _parent,
        action,
        player,
        to_play,
        opened,
        terminal,
        proven,
        visits,
        value_sum,
        slot_start,
        n_slots,
        n_untried,
        child_slot,
        untried,
    ) = tree
    expansion = cfg_i[EXPANSION]
    simulation = cfg_i[SIMULATION]
    cutoff_depth = cfg_i[CUTOFF_DEPTH]
    solver = cfg_i[SOLVER] != 0
    final = cfg_i[FINAL]
    max_nodes = cfg_i[MAX_NODES]
    c = cfg_f[C]
    min_u = cfg_f[MIN_UTILITY]
    span = cfg_f[SPAN]
    n_state = root_state.shape[0]
    num_actions = capacity[2]
    state = bufs[0, :n_state]
    tmp1 = bufs[1, :n_state]
    tmp2 = bufs[2, :n_state]
    a_buf = bufs[3]
    b_buf = bufs[4]
    legal = bufs[5]
    safe = bufs[6]
    rewards = fbufs[0]
    rets = fbufs[1]
    num_players = rewards.shape[0]
    if not opened[0]:
        state[:] = root_state
        if not _open(legal_fn, returns_fn, tree, 0, state, params, solver, ctl, legal, rets):
            return CHANCE_NODE
    done = 0
    while True:
        # The budget checks, in the reference's order.
        if solver and proven[0] != UNPROVEN:
            return STOP_PROVEN
        if max_nodes >= 0 and ctl[NODES] >= max_nodes:
            return STOP_NODES
        if ctl[ITERATIONS] >= ctl_f[MAX_ITERATIONS] or ctl[TIME_UP]:
            if final == 2 and not ctl[IS_EXTENDED] and not _agree(tree):
                ctl[IS_EXTENDED] = 1
                ctl_f[MAX_ITERATIONS] *= 1.0 + cfg_f[EXTRA]
                return EXTENDED
            return STOP_TIME if ctl[TIME_UP] else STOP_ITERATIONS
        if ctl[IS_EXTENDED] and _agree(tree):
            return STOP_AGREEMENT
        if done >= max_chunk:
            return CHUNK_DONE
        if ctl[NODES] + num_actions > capacity[0] and max_nodes < 0:
            return NEED_SPACE
        if ctl[SLOTS] + 2 * num_actions > capacity[1]:
            return NEED_SPACE

        # 1. Selection: replay the root state down the path chosen by UCT.
        state[:] = root_state
        node = 0
        depth = 0
        path[0] = 0
        while n_untried[node] == 0 and not terminal[node] and proven[node] == UNPROVEN:
            log_n = math.log(visits[node]) if visits[node] else 0.0
            best = -1
            best_value = -math.inf
            s0 = slot_start[node]
            for k in range(n_slots[node]):
                ch = child_slot[s0 + k]
                if ch < 0 or (solver and proven[ch] != UNPROVEN):
                    continue
                n = visits[ch]
                if n == 0:
                    best = ch
                    break
                value = value_sum[ch] / n + c * math.sqrt(log_n / n)
                if value > best_value:
                    best = ch
                    best_value = value
            node = best
            apply_fn(state, params, action[node])
            depth += 1
            path[depth] = node
            if not opened[node]:
                if not _open(
                    legal_fn, returns_fn, tree, node, state, params, solver, ctl, legal, rets
                ):
                    return CHANCE_NODE
                break

        # 2. Expansion.
        leaf = node
        if n_untried[leaf] > 0 and proven[leaf] == UNPROVEN and (visits[leaf] > 0 or leaf == 0):
            legal_fn(state, params, legal)
            s0 = slot_start[leaf]
            mover = to_play[leaf]
            if expansion == 0:
                if max_nodes >= 0 and ctl[NODES] + 1 > max_nodes:
                    return NODE_BUDGET
                i = rng_randint(rng, n_untried[leaf])
                idx = untried[s0 + i]
                untried[s0 + i] = untried[s0 + n_untried[leaf] - 1]
                n_untried[leaf] -= 1
                first = _new_node(tree, leaf, legal[idx], mover, ctl)
                child_slot[s0 + idx] = first
            else:
                if max_nodes >= 0 and ctl[NODES] + n_untried[leaf] > max_nodes:
                    return NODE_BUDGET
                first = -1
                for k in range(n_slots[leaf]):
                    if child_slot[s0 + k] < 0:
                        ch = _new_node(tree, leaf, legal[k], mover, ctl)
                        child_slot[s0 + k] = ch
                        if first < 0:
                            first = ch
                n_untried[leaf] = 0
            apply_fn(state, params, action[first])
            if not _open(
                legal_fn, returns_fn, tree, first, state, params, solver, ctl, legal, rets
            ):
                return CHANCE_NODE
            depth += 1
            path[depth] = first
            leaf = first

        # 3. Simulation (or the exact rewards of a terminal or proven leaf).
        if terminal[leaf]:
            returns_fn(state, params, rets)
            for p in range(num_players):
                rewards[p] = (rets[p] - min_u) / span
        elif proven[leaf] != UNPROVEN:
            r0 = (proven[leaf] + 1) / 2
            rewards[0] = r0
            rewards[1] = 1.0 - r0
        else:
            plies = 0
            cut = False
            while state[0] != TERMINAL:
                if simulation == 2 and plies >= cutoff_depth:
                    heuristic_fn(state, params, rets)
                    for p in range(num_players):
                        rewards[p] = (rets[p] + 1.0) / 2.0
                    cut = True
                    break
                if state[0] == CHANCE:
                    return CHANCE_NODE
                if simulation == 1:
                    a = _heavy_action(
                        legal_fn,
                        apply_fn,
                        returns_fn,
                        state,
                        params,
                        rng,
                        a_buf,
                        b_buf,
                        safe,
                        tmp1,
                        tmp2,
                        rets,
                    )
                else:
                    n = legal_fn(state, params, a_buf)
                    a = a_buf[rng_randint(rng, n)]
                apply_fn(state, params, a)
                plies += 1
            if not cut:
                returns_fn(state, params, rets)
                for p in range(num_players):
                    rewards[p] = (rets[p] - min_u) / span

        # 4. Backpropagation, with MCTS-Solver's proofs as far as they go.
        proving = solver
        for d in range(depth, -1, -1):
            nd = path[d]
            visits[nd] += 1
            if player[nd] >= 0:
                value_sum[nd] += rewards[player[nd]]
            if proving and d != depth:
                proving = _prove(tree, nd)
        ctl[ITERATIONS] += 1
        done += 1


@njit(cache=True)
def compact(old, root, new):  # type: ignore[no-untyped-def]
    """Copy the subtree under ``root`` into the empty tree ``new`` (root at 0), breadth
    first; returns (nodes, slots) used. Tree reuse keeps only what lies below the move."""
    (
        o_parent,
        o_action,
        o_player,
        o_to_play,
        o_opened,
        o_terminal,
        o_proven,
        o_visits,
        o_value,
        o_start,
        o_nslots,
        o_nuntried,
        o_child,
        o_untried,
    ) = old
    (
        parent,
        action,
        player,
        to_play,
        opened,
        terminal,
        proven,
        visits,
        value_sum,
        slot_start,
        n_slots,
        n_untried,
        child_slot,
        untried,
    ) = new
    queue = np.empty(o_parent.shape[0], dtype=np.int64)  # old ids, in new-id order
    queue[0] = root
    head = 0
    tail = 1
    slots = 0
    while head < tail:
        o = queue[head]
        i = head
        head += 1
        action[i] = o_action[o]
        player[i] = o_player[o] if i > 0 else -1
        to_play[i] = o_to_play[o]
        opened[i] = o_opened[o]
        terminal[i] = o_terminal[o]
        proven[i] = o_proven[o]
        visits[i] = o_visits[o]
        value_sum[i] = o_value[o]
        n_slots[i] = o_nslots[o]
        n_untried[i] = o_nuntried[o]
        slot_start[i] = slots
        if i == 0:
            parent[i] = -1
        for k in range(o_nslots[o]):
            oc = o_child[o_start[o] + k]
            untried[slots + k] = o_untried[o_start[o] + k]
            if oc >= 0:
                queue[tail] = oc
                parent[tail] = i
                child_slot[slots + k] = tail
                tail += 1
            else:
                child_slot[slots + k] = NO_CHILD
        slots += o_nslots[o]
    return tail, slots


_TREE_DTYPES = (
    np.int32,  # parent
    np.int32,  # action
    np.int8,  # player
    np.int8,  # to_play
    np.uint8,  # opened
    np.uint8,  # terminal
    np.int8,  # proven
    np.int32,  # visits (2**31 iterations are far beyond any budget here)
    np.float64,  # value_sum (float64: the reference engine adds in double precision)
    np.int32,  # slot_start
    np.int32,  # n_slots
    np.int32,  # n_untried
)


def _allocate(nodes: int, slots: int) -> tuple[npt.NDArray[Any], ...]:
    arrays = [np.zeros(nodes, dtype=dt) for dt in _TREE_DTYPES]
    arrays.append(np.full(slots, NO_CHILD, dtype=np.int32))  # child_slot
    arrays.append(np.zeros(slots, dtype=np.int32))  # untried
    return tuple(arrays)


def _grow(
    tree: tuple[npt.NDArray[Any], ...], nodes: int, slots: int
) -> tuple[npt.NDArray[Any], ...]:
    new = _allocate(nodes, slots)
    for old, fresh in zip(tree, new, strict=True):
        fresh[: len(old)] = old
    return new


def _same_game(a: Any, b: Any) -> bool:
    """The same rules: the same object, or an equal copy (a state sent to a worker process)."""
    return a is b or (
        type(a) is type(b) and a.info == b.info and np.array_equal(a.params, b.params)
    )


@dataclass
class _RootChild:
    """The compiled tree's root child, as the final-move rules read it."""

    action: int
    visits: int
    value_sum: float
    proven: int | None

    @property
    def mean(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0


class CompiledMCTS:
    """The compiled engine behind the same interface as :class:`mctslab.mcts.MCTS`.

    Works on games with rule kernels (the built-in games, or a user's
    ``KernelGame``); keeps its tree between searches when ``reuse_tree``.
    """

    def __init__(self, config: SearchConfig | None = None) -> None:
        self.config = config or SearchConfig()
        self.rng = np.array([self.config.seed & ((1 << 64) - 1)], dtype=np.uint64)
        self.tree: tuple[npt.NDArray[Any], ...] | None = None
        self.nodes = 0
        self.slots = 0
        self._history: list[int] = []
        self._game: Any = None
        self._compiled: set[Any] = set()

    def reset(self) -> None:
        self.tree = None
        self._history = []

    def _chunk_fn(self, kernels: Any) -> Callable[..., int]:
        wrapper = getattr(kernels, "search_chunk", None)
        if wrapper is not None:
            return wrapper  # type: ignore[no-any-return]

        def generic(*args: Any) -> int:
            return run_chunk(  # type: ignore[no-any-return]
                kernels.legal_actions,
                kernels.apply_action,
                kernels.returns,
                kernels.heuristic,
                *args,
            )

        return generic

    def _reuse(self, state: Any, num_actions: int) -> bool:
        """Re-root the kept tree under the moves played since the last search, if it can."""
        if (
            self.tree is None
            or not self.config.reuse_tree
            or not _same_game(state.game, self._game)
        ):
            return False
        history = state.history()
        n = len(self._history)
        if history[:n] != self._history:
            return False
        tree = self.tree
        child_slot, slot_start, n_slots, action, opened = (
            tree[12],
            tree[9],
            tree[10],
            tree[1],
            tree[4],
        )
        node = 0
        for a in history[n:]:
            nxt = -1
            for k in range(int(n_slots[node])):
                ch = int(child_slot[int(slot_start[node]) + k])
                if ch >= 0 and int(action[ch]) == a:
                    nxt = ch
                    break
            if nxt < 0:
                return False
            node = nxt
        if not opened[node]:
            return False
        if node != 0:
            new = _allocate(len(tree[0]), len(tree[12]))
            self.nodes, self.slots = (int(x) for x in compact(tree, node, new))
            self.tree = new
        self._history = history
        return True

    def search(self, state: State, game_info: GameInfo | None = None) -> SearchResult:
        """Search from ``state`` within the budget; the same result as the reference engine."""
        config = self.config
        if config.workers != 1:
            raise InvalidConfigError("workers > 1: make the searcher with mctslab.make_searcher")
        game: Any = getattr(state, "game", None)
        kernels = getattr(game, "kernels", None)
        if kernels is None or not hasattr(state, "array"):
            raise InvalidConfigError(
                "the compiled engine needs a game with rule kernels (a KernelGame); "
                "use engine='reference' for other games"
            )
        if state.is_terminal():
            raise InvalidConfigError("cannot search a terminal state: the game is over")
        info: GameInfo = game_info or game.info
        if config.solver and (info.num_players != 2 or not info.zero_sum):
            raise InvalidConfigError("solver=True needs a two-player zero-sum game")
        num_actions = info.num_actions
        root_state = state.array.copy()  # type: ignore[attr-defined]
        if not self._reuse(state, num_actions):
            if config.max_nodes is not None:
                cap = config.max_nodes
            else:
                cap = max(1024, min(1 << 16, 4 * (config.iterations or 1 << 14)))
            self.tree = _allocate(cap, cap * num_actions + 2 * num_actions)
            self.nodes, self.slots = 1, 0
            tree = self.tree
            tree[0][0], tree[2][0], tree[6][0], tree[4][0] = -1, -1, UNPROVEN, 0
            self._history = state.history()
            self._game = game
        assert self.tree is not None
        self.tree[2][0] = -1  # the root's statistics belong to nobody
        cfg_i = np.array(
            [
                _EXPANSION_CODE[config.expansion],
                _SIMULATION_CODE[config.simulation],
                config.cutoff_depth,
                int(config.solver),
                _FINAL_CODE[config.final],
                -1 if config.max_nodes is None else config.max_nodes,
            ],
            dtype=np.int64,
        )
        span = info.max_utility - info.min_utility
        cfg_f = np.array([config.c, info.min_utility, span, config.robust_max_extra])
        ctl = np.array([0, 0, self.nodes, self.slots, 0], dtype=np.int64)
        ctl_f = np.array([math.inf if config.iterations is None else float(config.iterations)])
        width = max(len(root_state), num_actions)
        bufs = np.zeros((7, width), dtype=np.int64)
        fbufs = np.zeros((2, info.num_players), dtype=np.float64)
        path = np.zeros(info.max_game_length + 2, dtype=np.int64)
        chunk_fn = self._chunk_fn(kernels)
        params = game.params

        def call(max_chunk: int) -> int:
            assert self.tree is not None
            capacity = np.array(
                [len(self.tree[0]), len(self.tree[12]), num_actions], dtype=np.int64
            )
            return int(
                chunk_fn(
                    self.tree,
                    root_state,
                    params,
                    cfg_i,
                    cfg_f,
                    ctl,
                    ctl_f,
                    self.rng,
                    bufs,
                    fbufs,
                    path,
                    capacity,
                    max_chunk,
                )
            )

        compile_seconds = 0.0
        key = (id(chunk_fn), len(root_state))
        if key not in self._compiled:
            # The first call compiles (or loads from numba's cache); time it apart.
            t0 = time.perf_counter()
            call(0)
            compile_seconds = time.perf_counter() - t0
            self._compiled.add(key)
        start = time.perf_counter()
        deadline = math.inf if config.time is None else start + config.time
        chunk = 1 << 62 if config.time is None else 64
        while True:
            code = call(chunk)
            if code == CHUNK_DONE:
                now = time.perf_counter()
                if now >= deadline:
                    ctl[TIME_UP] = 1
                elif config.time is not None:
                    # Aim for chunks of about a hundredth of the time budget.
                    per = (now - start) / max(1, int(ctl[ITERATIONS]))
                    chunk = max(16, min(1 << 20, int(config.time / 100 / max(per, 1e-9))))
                continue
            if code == EXTENDED:
                if config.time is not None:
                    deadline = start + (deadline - start) * (1.0 + config.robust_max_extra)
                    ctl[TIME_UP] = 0
                continue
            if code == NEED_SPACE:
                assert self.tree is not None
                self.tree = _grow(self.tree, 2 * len(self.tree[0]), 2 * len(self.tree[12]))
                continue
            if code == CHANCE_NODE:
                raise InvalidConfigError("the compiled engine does not take chance nodes")
            if code == NODE_BUDGET:
                if self._root_children() == []:
                    raise InvalidConfigError(
                        f"max_nodes={config.max_nodes} is too small to expand the root"
                    )
                stopped_by = "nodes"
            else:
                stopped_by = _STOP_NAMES[code]
            break
        seconds = time.perf_counter() - start
        self.nodes, self.slots = int(ctl[NODES]), int(ctl[SLOTS])
        tree = self.tree
        to_play = int(tree[3][0])
        root_proven = int(tree[6][0])
        return make_result(
            self._root_children(),
            to_play,
            None if root_proven == UNPROVEN else root_proven,
            config,
            info,
            iterations=int(ctl[ITERATIONS]),
            nodes=self.nodes,
            seconds=seconds,
            stopped_by=stopped_by,
            compile_seconds=compile_seconds,
        )

    def root_children(self) -> list[tuple[int, int, float, int | None]]:
        """(action, visits, value sum, proof for player 0) of each root child."""
        if self.tree is None:
            return []
        return [(c.action, c.visits, c.value_sum, c.proven) for c in self._root_children()]

    def _root_children(self) -> list[_RootChild]:
        assert self.tree is not None
        (
            _,
            action,
            _,
            _,
            _,
            _,
            proven,
            visits,
            value_sum,
            slot_start,
            n_slots,
            _,
            child_slot,
            _,
        ) = self.tree
        out = []
        for k in range(int(n_slots[0])):
            ch = int(child_slot[int(slot_start[0]) + k])
            if ch >= 0:
                p = int(proven[ch])
                out.append(
                    _RootChild(
                        int(action[ch]),
                        int(visits[ch]),
                        float(value_sum[ch]),
                        None if p == UNPROVEN else p,
                    )
                )
        return out
