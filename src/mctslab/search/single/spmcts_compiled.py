"""SP-MCTS compiled with numba (:mod:`mctslab.search.single.spmcts`'s algorithm, the same
trees, draws and sequences): the tree is a struct of arrays, one entry per node, and a
run is a machine (:func:`spmcts_advance`) that the Python driver of
:mod:`~mctslab.search.single.compiled` runs in chunks between two clock checks.

A node's untried moves are not stored: they are its position's legal moves, ascending,
less its children's (the reference keeps that list and removes the ``k``-th drawn, which
is the same move).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL
from mctslab.games.kernels import KernelState, rng_randint
from mctslab.search.single.compiled import (
    RUN_DONE,
    best_arrays,
    drive,
    kernels_of,
    knowledge_of,
    offer,
    playout,
)
from mctslab.search.single.result import (
    Improvement,
    OptimizeResult,
    Watch,
    check_single_player,
)
from mctslab.search.single.spmcts import SPMCTSConfig, sp_score

__all__ = ["compiled_spmcts"]

NONE = -1
# Rows of the run's float array and int array.
LO, HI, BEST = 0, 1, 2
ROOT, HIGH, PREFIX, AT_MOVE, BEST_LEN, DONE = 0, 1, 2, 3, 4, 5

score_of = njit(inline="always")(sp_score)


@njit(inline="always")
def _new_node(tree, ints, a, s, params, legal_fn, buf):  # type: ignore[no-untyped-def]
    first, last, sibling, action, visits, n_untried, terminal, value_sum, squares = tree
    i = ints[HIGH]
    ints[HIGH] = i + 1
    first[i] = NONE
    last[i] = NONE
    sibling[i] = NONE
    action[i] = a
    visits[i] = 0
    value_sum[i] = 0.0
    squares[i] = 0.0
    if s[0] == TERMINAL:
        terminal[i] = 1
        n_untried[i] = 0
    else:
        terminal[i] = 0
        n_untried[i] = legal_fn(s, params, buf)
    return i


@njit(inline="always")
def _link(tree, parent, child):  # type: ignore[no-untyped-def]
    first, last, sibling = tree[0], tree[1], tree[2]
    if last[parent] == NONE:
        first[parent] = child
    else:
        sibling[last[parent]] = child
    last[parent] = child
    tree[5][parent] -= 1


@njit
def spmcts_advance(
    legal_fn, apply_fn, returns_fn, bias_fn, polish_fn, params, m, rng, max_playouts
):  # type: ignore[no-untyped-def]
    """Run the SP-MCTS machine ``m`` for up to ``max_playouts`` playouts: the playouts
    made; ``ints[DONE]`` is ``RUN_DONE`` once the run's walk reached the end."""
    (tree, ints, fl, cfg, knowledge, cur, prefix, best_seq, path, s, s0, buf, w, mark, seq,
     out, g_score, g_seq, g_len, found, n_found) = m  # fmt: skip
    first, _last, sibling, action, visits, n_untried, _terminal, value_sum, squares = tree
    c, d, iterations = cfg[0], cfg[1], int(cfg[2])
    rows = (s, s0, buf, w, seq, out)
    done = 0
    while True:
        if cur[0] == TERMINAL:
            ints[DONE] = RUN_DONE
            return done
        if ints[AT_MOVE] == iterations:
            # Play the first move of the run's best sequence; keep its subtree.
            p = ints[PREFIX]
            a = best_seq[p]
            root = ints[ROOT]
            apply_fn(cur, params, a)
            ch = first[root]
            while ch != NONE and action[ch] != a:
                ch = sibling[ch]
            if ch == NONE:
                ch = _new_node(tree, ints, a, cur, params, legal_fn, buf)
                _link(tree, root, ch)
            ints[ROOT] = ch
            prefix[p] = a
            ints[PREFIX] = p + 1
            ints[AT_MOVE] = 0
            continue
        if done >= max_playouts:
            return done
        # Select.
        node = ints[ROOT]
        s[:] = cur
        depth = 0
        path[0] = node
        if fl[HI] > fl[LO]:
            lo, width = fl[LO], fl[HI] - fl[LO]
        else:
            lo, width = 0.0, 1.0
        while n_untried[node] == 0 and first[node] != NONE:
            log_parent = math.log(visits[node])
            best = NONE
            best_v = -math.inf
            ch = first[node]
            while ch != NONE:
                v = score_of(value_sum[ch], squares[ch], visits[ch], log_parent, lo, width, c, d)
                if v > best_v:
                    best = ch
                    best_v = v
                ch = sibling[ch]
            node = best
            apply_fn(s, params, action[node])
            depth += 1
            path[depth] = node
        # Expand one random untried move: the k-th of legal less the children's.
        if n_untried[node] > 0:
            n = legal_fn(s, params, buf)
            ch = first[node]
            while ch != NONE:
                mark[action[ch]] = 1
                ch = sibling[ch]
            k = 0
            for i in range(n):
                if mark[buf[i]] == 0:
                    buf[k] = buf[i]
                    k += 1
            ch = first[node]
            while ch != NONE:
                mark[action[ch]] = 0
                ch = sibling[ch]
            a = buf[rng_randint(rng, k)]
            apply_fn(s, params, a)
            child = _new_node(tree, ints, a, s, params, legal_fn, buf)
            _link(tree, node, child)
            depth += 1
            path[depth] = child
        # Play out.
        score = playout(
            legal_fn, apply_fn, returns_fn, bias_fn, polish_fn, params, rng, knowledge, rows
        )
        n = int(out[1])
        done += 1
        ints[AT_MOVE] += 1
        if score > g_score[0] or score > fl[BEST]:
            # The whole sequence: the moves played, the tree path, the playout.
            p = ints[PREFIX]
            total = p + depth + n
            tmp = np.empty(total, dtype=np.int64)
            tmp[:p] = prefix[:p]
            for j in range(1, depth + 1):
                tmp[p + j - 1] = action[path[j]]
            tmp[p + depth :] = seq[:n]
            offer(score, tmp, total, g_score, g_seq, g_len, found, n_found, done)
            if score > fl[BEST]:
                fl[BEST] = score
                best_seq[:total] = tmp
                ints[BEST_LEN] = total
        if score < fl[LO]:
            fl[LO] = score
        if score > fl[HI]:
            fl[HI] = score
        sq = score * score
        for j in range(depth + 1):
            nd = path[j]
            visits[nd] += 1
            value_sum[nd] += score
            squares[nd] += sq


def _tree(capacity: int) -> tuple[Any, ...]:
    ids = [np.full(capacity, NONE, dtype=np.int64) for _ in range(3)]
    return (
        *ids,
        np.zeros(capacity, dtype=np.int64),  # action
        np.zeros(capacity, dtype=np.int64),  # visits
        np.zeros(capacity, dtype=np.int64),  # n_untried
        np.zeros(capacity, dtype=np.int8),  # terminal
        np.zeros(capacity),  # value_sum
        np.zeros(capacity),  # squares
    )


def _grown(tree: tuple[Any, ...], capacity: int) -> tuple[Any, ...]:
    new = _tree(capacity)
    for old, arr in zip(tree, new, strict=True):
        arr[: old.shape[0]] = old
    return new


def compiled_spmcts(
    state: KernelState,
    config: SPMCTSConfig | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    watch: Watch | None = None,
) -> OptimizeResult:
    """:func:`~mctslab.search.single.spmcts.spmcts`, compiled: the same trees and result
    for the same config and playout budget."""
    config = config or SPMCTSConfig()
    info = state.game.info
    check_single_player(state, info.num_players)
    legal_fn, apply_fn, returns_fn, _, params, _ = kernels_of(state)
    bias_fn, polish_fn, beta = knowledge_of(state, config.bias, config.polish)
    if info.num_actions < 1:
        raise InvalidConfigError("sp-mcts: the game has no actions")
    rng = np.array([config.seed & ((1 << 64) - 1)], dtype=np.uint64)
    length = info.max_game_length + 1
    g = best_arrays(info.max_game_length)
    size = max(info.num_actions, 1)
    scratch = (
        np.empty_like(state.array),
        np.empty_like(state.array),
        np.empty(size, dtype=np.int64),
        np.empty(size),
        np.zeros(size, dtype=np.int8),
        np.empty(length, dtype=np.int64),
        np.zeros(2),
    )
    cfg = np.array([config.c, config.d, float(config.iterations)])
    knowledge = np.array([beta, 1.0 if config.polish else 0.0])
    machine: list[Any] = []

    def new_run() -> None:
        tree = _tree(1 << 12)
        ints = np.zeros(6, dtype=np.int64)
        cur = state.array.copy()
        root = _new_node_py(tree, ints, cur, state)
        ints[ROOT] = root
        fl = np.array([math.inf, -math.inf, -math.inf])
        machine[:] = [
            [tree, ints, fl, cfg, knowledge, cur, np.zeros(length, dtype=np.int64),
             np.zeros(length, dtype=np.int64), np.zeros(length + 1, dtype=np.int64)]
        ]  # fmt: skip

    def advance(playouts: int) -> tuple[int, bool]:
        parts = machine[0]
        tree, ints = parts[0], parts[1]
        # Room for the chunk: a node an iteration, one a move played.
        need = int(ints[HIGH]) + 2 * playouts + 2
        if need > tree[0].shape[0]:
            parts[0] = tree = _grown(tree, max(need, 2 * tree[0].shape[0]))
        m = (*parts, *scratch, *g)
        made = spmcts_advance(
            legal_fn, apply_fn, returns_fn, bias_fn, polish_fn, params, m, rng, playouts
        )
        return int(made), bool(ints[DONE] == RUN_DONE)

    return drive(advance, new_run, g, config, config.spec, on_improve, watch)


def _new_node_py(tree: tuple[Any, ...], ints: Any, s: Any, state: KernelState) -> int:
    """The root node, made in Python (its position's legal moves counted)."""
    i = int(ints[HIGH])
    ints[HIGH] = i + 1
    tree[3][i] = NONE
    tree[5][i] = 0 if state.is_terminal() else len(state.legal_actions())
    tree[6][i] = 1 if state.is_terminal() else 0
    return i
