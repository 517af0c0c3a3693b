"""The single-player searches compiled with numba, over a kernel game's rules: the same
algorithms as :mod:`~mctslab.search.single.nrpa` and :mod:`~mctslab.search.single.nmcs`,
with the same draws from the same SplitMix64 stream, so that both versions return the
same sequence after the same playouts (``tests/search/single/test_single_compiled.py``).

numba has no recursion over function arguments to lean on, and a search must stop for
its clock between two playouts, so each nesting is written as a machine whose levels
are rows of arrays (:class:`NRPAMachine`, :class:`NMCSMachine`): :func:`nrpa_advance`
and :func:`nmcs_advance` run until a number of playouts is done or the run ends, and
the Python driver (:func:`compiled_nrpa`, :func:`compiled_nmcs`) calls them again and
again, checking the clock in between and timing each improvement (by its playout's
place in the chunk: chunks last about 20 ms).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from time import perf_counter
from typing import Any

import numpy as np
from numba import njit

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL
from mctslab.games.kernels import KernelGame, KernelState, rng_next, rng_randint
from mctslab.search.single.nmcs import NMCSConfig
from mctslab.search.single.nrpa import NRPAConfig
from mctslab.search.single.result import (
    BestTracker,
    Budget,
    Improvement,
    OptimizeResult,
    Watch,
    check_single_player,
)

__all__ = [
    "RUN_DONE",
    "best_arrays",
    "compiled_nmcs",
    "compiled_nrpa",
    "drive",
    "kernels_of",
    "knowledge_of",
    "nmcs_advance",
    "nrpa_advance",
    "offer",
    "playout",
    "scratch_rows",
]

INV_2_53 = 1.0 / 9007199254740992.0
# The run's status after an advance.
RUNNING, RUN_DONE = 0, 1
# Improvements kept per chunk (a chunk that finds more keeps its last ones).
MAX_FOUND = 4096


@njit(cache=True)
def _identity_code(state, params, action):  # type: ignore[no-untyped-def]
    return action


@njit(cache=True)
def _no_bias(state, params, action):  # type: ignore[no-untyped-def]
    return 0.0


@njit(cache=True)
def _no_polish(start, params, seq, n):  # type: ignore[no-untyped-def]
    return 0.0  # never called: the polish flag is off whenever this is passed


@njit(inline="always")
def _uniform(rng):  # type: ignore[no-untyped-def]
    """As :meth:`mctslab.core.rng.Rng.random`."""
    return (rng_next(rng) >> np.uint64(11)) * INV_2_53


@njit(inline="always")
def offer(score, seq, n, g_score, g_seq, g_len, found, n_found, played):  # type: ignore[no-untyped-def]
    """A playout ended with ``score`` after ``seq[:n]``: keep it if it is the best so far,
    noting the playout's number (``played``, counted from the chunk's start)."""
    if score > g_score[0]:
        g_score[0] = score
        g_len[0] = n
        g_seq[:n] = seq[:n]
        k = n_found[0] % MAX_FOUND
        found[k, 0] = played
        found[k, 1] = score
        n_found[0] += 1


@njit(inline="always")
def _softmax(w, k):  # type: ignore[no-untyped-def]
    """``w[:k]`` (log-weights) turned into ``exp(w_i - max w)`` in place: their sum."""
    top = -math.inf
    for i in range(k):
        if w[i] > top:
            top = w[i]
    z = 0.0
    for i in range(k):
        w[i] = math.exp(w[i] - top)
        z += w[i]
    return z


@njit(inline="always")
def _softmax_pick(w, k, rng):  # type: ignore[no-untyped-def]
    """An index drawn with probability ``exp(w_i) / sum exp(w_j)`` over ``w[:k]`` (which
    it overwrites), as :func:`~mctslab.search.single.moves.softmax_choice`."""
    z = _softmax(w, k)
    u = _uniform(rng) * z
    acc = 0.0
    for i in range(k):
        acc += w[i]
        if u < acc:
            return i
    return k - 1


@njit(inline="always")
def playout(legal_fn, apply_fn, returns_fn, bias_fn, polish_fn, params, rng, knowledge, rows):  # type: ignore[no-untyped-def]
    """The playout of NMCS and SP-MCTS from ``s`` (played in place), as the reference's
    :func:`~mctslab.search.single.moves.playout`: uniformly random (the ``k``-th legal
    move, ``k = rng_randint(rng, n)``) while ``knowledge[0]``, the bias weight ``beta``,
    is 0, else drawn by ``softmax(beta * bias)``; then, if ``knowledge[1]``, the moves
    polished by ``polish_fn`` from the start (copied to ``s0``). ``rows = (s, s0, buf,
    w, seq, out)``: the position, its copy, legal moves, weights, the moves played and
    the returns. The score; the moves in ``seq``, their number in ``out[1]``."""
    s, s0, buf, w, seq, out = rows
    beta = knowledge[0]
    polishing = knowledge[1] != 0.0
    if polishing:
        s0[:] = s
    n = 0
    while s[0] != TERMINAL:
        k = legal_fn(s, params, buf)
        if beta == 0.0:
            b = buf[rng_randint(rng, k)]
        else:
            for i in range(k):
                w[i] = beta * bias_fn(s, params, buf[i])
            b = buf[_softmax_pick(w, k, rng)]
        apply_fn(s, params, b)
        seq[n] = b
        n += 1
    returns_fn(s, params, out)
    if polishing and n > 0:
        out[0] = polish_fn(s0, params, seq, n)
    out[1] = n
    return out[0]


# NRPA ------------------------------------------------------------------------------------


@njit(inline="always")
def _policy_playout(
    legal_fn, apply_fn, returns_fn, code_fn, bias_fn, polish_fn, root, params, pol, rng, work
):  # type: ignore[no-untyped-def]
    """A playout from ``root`` drawing by ``softmax(pol)`` (as the reference's
    ``policy_playout``, float for float), polished by ``polish_fn`` if asked: the score;
    the moves in ``seq``, their number in ``out[1]``. ``work = (s, legal, w, beta,
    polishing, seq, out)``: a position, legal moves, weights, Generalized NRPA's weight
    of ``bias_fn``'s prior, whether to polish, the moves played and the returns."""
    s, legal, w, beta, polishing, seq, out = work
    s[:] = root
    n = 0
    while s[0] != TERMINAL:
        k = legal_fn(s, params, legal)
        for i in range(k):
            w[i] = pol[code_fn(s, params, legal[i])] + beta * bias_fn(s, params, legal[i])
        a = legal[_softmax_pick(w, k, rng)]
        apply_fn(s, params, a)
        seq[n] = a
        n += 1
    returns_fn(s, params, out)
    if polishing and n > 0:
        out[0] = polish_fn(root, params, seq, n)
    out[1] = n
    return out[0]


@njit(inline="always")
def _adapt(legal_fn, apply_fn, code_fn, bias_fn, root, params, pol, old, seq, n, alpha, work):  # type: ignore[no-untyped-def]
    """Rosin's adaptation of ``pol`` towards ``seq[:n]`` in place (``old``: scratch for the
    policy before, whose probabilities the step uses), as the reference's ``adapt``."""
    s, legal, w, beta = work[0], work[1], work[2], work[3]
    old[:] = pol
    s[:] = root
    for t in range(n):
        k = legal_fn(s, params, legal)
        for i in range(k):
            w[i] = old[code_fn(s, params, legal[i])] + beta * bias_fn(s, params, legal[i])
        z = _softmax(w, k)
        m = seq[t]
        pol[code_fn(s, params, m)] += alpha
        for i in range(k):
            pol[code_fn(s, params, legal[i])] -= alpha * (w[i] / z)
        apply_fn(s, params, m)


@njit
def nrpa_advance(
    legal_fn,
    apply_fn,
    returns_fn,
    code_fn,
    bias_fn,
    polish_fn,
    root,
    params,
    m,
    rng,
    max_playouts,
):  # type: ignore[no-untyped-def]
    """Run the NRPA machine ``m`` (the arrays of :func:`nrpa_machine`, the scratch rows and
    the best so far) for up to ``max_playouts`` playouts: the playouts made. ``ctl[1]``
    is set to ``RUN_DONE`` when the top level's ``N`` iterations are done."""
    (pols, best, best_seq, best_len, it, ctl, meta, fmeta, old, s, _s0, legal, w, seq, out,
     g_score, g_seq, g_len, found, n_found) = m  # fmt: skip
    top_level, iterations = meta[0], meta[1]
    alpha, beta = fmeta[0], fmeta[1]
    work = (s, legal, w, beta, meta[2] != 0, seq, out)
    done = 0
    while done < max_playouts:
        # At level 1: one playout of pols[1] (level 0), its result an iteration of level 1.
        score = _policy_playout(
            legal_fn, apply_fn, returns_fn, code_fn, bias_fn, polish_fn, root, params, pols[1],
            rng, work,
        )  # fmt: skip
        n = int(out[1])
        done += 1
        offer(score, seq, n, g_score, g_seq, g_len, found, n_found, done)
        if score >= best[1]:
            best[1] = score
            best_len[1] = n
            best_seq[1, :n] = seq[:n]
        _adapt(
                legal_fn, apply_fn, code_fn, bias_fn, root, params, pols[1], old, best_seq[1],
                best_len[1], alpha, work,
            )  # fmt: skip  # fmt: skip
        it[1] += 1
        lv = 1
        # Levels whose N iterations are done report to the level above.
        while it[lv] == iterations:
            if lv == top_level:
                ctl[1] = RUN_DONE
                return done
            up = lv + 1
            if best[lv] >= best[up]:
                best[up] = best[lv]
                best_len[up] = best_len[lv]
                best_seq[up, : best_len[lv]] = best_seq[lv, : best_len[lv]]
            _adapt(
                legal_fn, apply_fn, code_fn, bias_fn, root, params, pols[up], old, best_seq[up],
                best_len[up], alpha, work,
            )  # fmt: skip  # fmt: skip
            it[up] += 1
            lv = up
        # Start the levels below afresh, each from a copy of its parent's policy.
        for k in range(lv - 1, 0, -1):
            pols[k, :] = pols[k + 1]
            best[k] = -math.inf
            best_len[k] = 0
            it[k] = 0
    return done


def nrpa_machine(
    level: int,
    iterations: int,
    alpha: float,
    beta: float,
    codes: int,
    length: int,
    polish: bool = False,
) -> tuple[Any, ...]:
    """A fresh NRPA machine (the first nine arrays of :func:`nrpa_advance`) for a run at
    ``level``: uniform policies (all weights 0), no best yet, every level's count at 0."""
    top = max(level, 1)
    return (
        np.zeros((top + 1, codes)),  # pols: a policy per level (pols[0] unused)
        np.full(top + 1, -np.inf),  # best score per level
        np.zeros((top + 1, length + 1), dtype=np.int64),  # best sequence per level
        np.zeros(top + 1, dtype=np.int64),  # its length
        np.zeros(top + 1, dtype=np.int64),  # iterations done per level
        np.zeros(2, dtype=np.int64),  # ctl: [unused, RUN_DONE once the run ended]
        np.array([top, iterations if level > 0 else 1, int(polish)], dtype=np.int64),
        np.array([alpha, beta]),
        np.zeros(codes),  # the policy before an adaptation
    )


# NMCS ------------------------------------------------------------------------------------


@njit
def nmcs_advance(
    legal_fn, apply_fn, returns_fn, bias_fn, polish_fn, root, params, m, rng, max_playouts
):  # type: ignore[no-untyped-def]
    """Run the NMCS machine ``m`` (:func:`nmcs_machine`'s arrays, the scratch rows and the
    best so far) for up to
    ``max_playouts`` playouts; ``RUN_DONE`` when the top level's walk reached the end.

    Level ``lv``'s frame: its position ``S[lv]`` (walked along its best sequence), the
    moves played ``played[lv]`` (= ``best_seq[lv, :played[lv]]``), the legal moves of its
    current step and the one being tried (``legal[lv]``, ``n_legal[lv]``, ``idx[lv]``),
    its best score and sequence. Trying a move at level 1, or a move that ends the game,
    is a playout; at a higher level it opens the frame below. Returns the playouts made;
    ``ctl[1]`` is set to ``RUN_DONE`` when the run ended."""
    (S, played, legal, n_legal, idx, best, best_seq, best_len, ctl, meta, full, knowledge, s,
     s0, buf, w, seq, out, g_score, g_seq, g_len, found, n_found) = m  # fmt: skip
    rows = (s, s0, buf, w, seq, out)
    top_level = meta[0]
    done = 0
    lv = ctl[0]
    while True:
        a = legal[lv, idx[lv]]
        s[:] = S[lv]
        apply_fn(s, params, a)
        if lv == 1 or s[0] == TERMINAL:
            if done >= max_playouts:
                ctl[0] = lv
                return done
            # A playout from the child.
            score = playout(
                legal_fn, apply_fn, returns_fn, bias_fn, polish_fn, params, rng, knowledge, rows
            )
            n = int(out[1])
            done += 1
            if score > g_score[0]:
                # The whole sequence from the search's root: each frame's moves played and
                # the move it is trying, top level first, then the playout's.
                f = 0
                for k in range(top_level, lv - 1, -1):
                    full[f : f + played[k]] = best_seq[k, : played[k]]
                    f += played[k]
                    full[f] = legal[k, idx[k]]
                    f += 1
                full[f : f + n] = seq[:n]
                offer(score, full, f + n, g_score, g_seq, g_len, found, n_found, done)
            report_score = score
            report_n = n  # the reported sequence: a, then seq[:n]
            report_from_seq = True
        else:
            # Open the frame below at the child.
            lv -= 1
            S[lv, :] = s
            played[lv] = 0
            best[lv] = -math.inf
            best_len[lv] = 0
            n_legal[lv] = legal_fn(S[lv], params, legal[lv])
            idx[lv] = 0
            continue
        # Report (report_score, a + sequence) to frame lv; close frames whose walk ended.
        while True:
            if report_score > best[lv]:
                best[lv] = report_score
                p = played[lv]
                best_seq[lv, p] = legal[lv, idx[lv]]
                if report_from_seq:
                    best_seq[lv, p + 1 : p + 1 + report_n] = seq[:report_n]
                else:
                    best_seq[lv, p + 1 : p + 1 + report_n] = best_seq[lv - 1, :report_n]
                best_len[lv] = p + 1 + report_n
            idx[lv] += 1
            if idx[lv] < n_legal[lv]:
                break
            # The step is done: play the best sequence's next move.
            mv = best_seq[lv, played[lv]]
            apply_fn(S[lv], params, mv)
            played[lv] += 1
            if S[lv, 0] != TERMINAL:
                n_legal[lv] = legal_fn(S[lv], params, legal[lv])
                idx[lv] = 0
                break
            # This frame's walk ended: it returns (best, best_seq) to the frame above.
            if lv == top_level:
                ctl[0] = lv
                ctl[1] = RUN_DONE
                return done
            report_score = best[lv]
            report_n = best_len[lv]
            report_from_seq = False
            lv += 1


# Drivers ---------------------------------------------------------------------------------


def nmcs_machine(
    state: KernelState, level: int, beta: float = 0.0, polish: bool = False
) -> tuple[Any, ...]:
    """A fresh NMCS machine (the first twelve arrays of :func:`nmcs_advance`) for a run at
    ``level`` from ``state``: the top frame at the root, its legal moves listed; the
    playouts' knowledge (:func:`playout`)."""
    info = state.game.info
    size = max(info.num_actions, 1)
    length = info.max_game_length + 1
    S = np.zeros((level + 1, state.array.shape[0]), dtype=np.int64)
    S[level] = state.array
    legal = np.zeros((level + 1, size), dtype=np.int64)
    n_legal = np.zeros(level + 1, dtype=np.int64)
    n_legal[level] = len(state.legal_actions())
    legal[level, : n_legal[level]] = state.legal_actions()
    return (
        S,
        np.zeros(level + 1, dtype=np.int64),  # played
        legal,
        n_legal,
        np.zeros(level + 1, dtype=np.int64),  # idx
        np.full(level + 1, -np.inf),  # best
        np.zeros((level + 1, length), dtype=np.int64),  # best_seq
        np.zeros(level + 1, dtype=np.int64),  # best_len
        np.array([level, 0], dtype=np.int64),  # ctl: [level being worked on, RUN_DONE]
        np.array([level], dtype=np.int64),  # meta
        np.zeros(length, dtype=np.int64),  # full: a sequence from the root
        np.array([beta, 1.0 if polish else 0.0]),  # knowledge: the playouts' bias, polish
    )


def kernels_of(state: KernelState) -> tuple[Any, Any, Any, Any, Any, int]:
    """The kernels the searches call: legal moves, apply, returns, the move code (the
    action itself if the game has none); the game's parameters and its number of codes."""
    game = state.game
    if not isinstance(game, KernelGame):
        raise InvalidConfigError("the compiled searches need a kernel game")
    k = game.kernels
    code = k.move_code if k.move_code is not None else _identity_code
    return k.legal_actions, k.apply_action, k.returns, code, game.params, game.num_move_codes()


def knowledge_of(state: KernelState, beta: float, polish: bool) -> tuple[Any, Any, float]:
    """``(bias_fn, polish_fn, beta)``: the game's ``move_bias`` kernel and ``beta`` if
    ``beta > 0`` and the game has one (else no bias and ``beta = 0``, as the reference
    versions), its ``polish`` kernel if ``polish`` (a game without one is refused)."""
    k = state.game.kernels
    if polish and k.polish is None:
        raise InvalidConfigError(
            f"polish: {state.game.info.name} has no local search (no polish kernel)"
        )
    polish_fn = k.polish if polish else _no_polish
    if k.move_bias is None or not beta:
        return _no_bias, polish_fn, 0.0
    return k.move_bias, polish_fn, float(beta)


def scratch_rows(state: KernelState) -> tuple[Any, ...]:
    """The working rows: a position, a playout's start, legal moves, weights, a playout's
    moves, returns."""
    info = state.game.info
    size = max(info.num_actions, 1)
    return (
        np.empty_like(state.array),
        np.empty_like(state.array),
        np.empty(size, dtype=np.int64),
        np.empty(size),
        np.empty(info.max_game_length + 1, dtype=np.int64),
        np.zeros(max(info.num_players, 2)),
    )


def best_arrays(length: int) -> tuple[Any, ...]:
    """The best so far (score, sequence, length) and the chunk's improvements."""
    return (
        np.full(1, -np.inf),
        np.zeros(length + 1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros((MAX_FOUND, 2)),
        np.zeros(1, dtype=np.int64),
    )


def drive(
    advance: Callable[[int], tuple[int, bool]],
    new_run: Callable[[], None],
    g: tuple[Any, ...],
    config: Any,
    spec: str,
    on_improve: Callable[[Improvement], None] | None,
    watch: Watch | None = None,
) -> OptimizeResult:
    """Call ``advance(playouts) -> (made, run ended)`` in chunks of about 20 ms until the
    budget is spent or the runs are done (a finished run is followed by a new one while
    budget is left, as in the reference versions); time each improvement by its place
    in its chunk. The first call, with no playout to make, compiles the code (or loads
    it from numba's cache) before the clock starts: ``compile_seconds``. A ``watch`` is
    told the best sequence at the end of each chunk that improved it."""
    g_score, g_seq, g_len, found, n_found = g
    warm = perf_counter()
    new_run()
    advance(0)
    compile_seconds = perf_counter() - warm
    budget = Budget.of(config, watch)
    most_runs = _most_runs(config.runs, config.time, config.playouts)
    tracker = BestTracker(budget, on_improve)
    runs, chunk, total = 0, 16, 0
    new_run()
    while True:
        if budget.playouts is not None:
            chunk = max(1, min(chunk, budget.playouts - total))
        t0 = budget.elapsed()
        n_found[0] = 0
        made, ended = advance(chunk)
        t1 = budget.elapsed()
        count = int(n_found[0])
        for k in range(max(0, count - MAX_FOUND), count):
            p, score = int(found[k % MAX_FOUND, 0]), float(found[k % MAX_FOUND, 1])
            when = t0 + (t1 - t0) * p / max(made, 1)
            tracker.improvements.append(Improvement(when, total + p, score))
            if on_improve is not None:
                on_improve(tracker.improvements[-1])
        if count and watch is not None:
            watch.publish(float(g_score[0]), g_seq[: int(g_len[0])].tolist())
        total += made
        tracker.playouts = total
        if ended:
            runs += 1
            if most_runs is not None and runs >= most_runs:
                break
            if budget.spent(total, float(g_score[0])):
                break
            new_run()
        elif budget.spent(total, float(g_score[0])):
            runs += 1  # the run the budget stopped
            break
        chunk = int(min(max(1, made / max(t1 - t0, 1e-6) * 0.02), 1 << 20))
    tracker.score = float(g_score[0])
    tracker.sequence = tuple(int(a) for a in g_seq[: int(g_len[0])])
    return replace(tracker.result(runs, spec), compile_seconds=compile_seconds)


def _most_runs(runs: int | None, time_: float | None, playouts: int | None) -> int | None:
    return runs or (1 if time_ is None and playouts is None else None)


def compiled_nrpa(
    state: KernelState,
    config: NRPAConfig | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    watch: Watch | None = None,
) -> OptimizeResult:
    """:func:`~mctslab.search.single.nrpa.nrpa`, compiled: the same result for the same
    config and playout budget (the same draws, policies and sequence)."""
    config = config or NRPAConfig()
    info = state.game.info
    check_single_player(state, info.num_players)
    legal_fn, apply_fn, returns_fn, code_fn, params, codes = kernels_of(state)
    bias_fn, polish_fn, beta = knowledge_of(state, config.bias, config.polish)
    rng = np.array([config.seed & ((1 << 64) - 1)], dtype=np.uint64)
    root = state.array.copy()
    g = best_arrays(info.max_game_length)
    scratch = scratch_rows(state)
    machine: list[tuple[Any, ...]] = []

    def new_run() -> None:
        base = nrpa_machine(
            config.level, config.iterations, config.alpha, beta, codes,
            info.max_game_length, config.polish,
        )  # fmt: skip
        machine[:] = [base + scratch + g]

    def advance(playouts: int) -> tuple[int, bool]:
        m = machine[0]
        made = nrpa_advance(
            legal_fn, apply_fn, returns_fn, code_fn, bias_fn, polish_fn, root, params, m, rng,
            playouts,
        )  # fmt: skip
        return int(made), bool(m[5][1] == RUN_DONE)

    return drive(advance, new_run, g, config, config.spec, on_improve, watch)


def compiled_nmcs(
    state: KernelState,
    config: NMCSConfig | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    watch: Watch | None = None,
) -> OptimizeResult:
    """:func:`~mctslab.search.single.nmcs.nmcs`, compiled (levels 1 to 4): the same result
    for the same config and playout budget."""
    config = config or NMCSConfig()
    info = state.game.info
    check_single_player(state, info.num_players)
    if config.level < 1:
        raise InvalidConfigError("compiled nmcs: level must be 1 to 4 (level 0 is one playout)")
    legal_fn, apply_fn, returns_fn, _, params, _ = kernels_of(state)
    bias_fn, polish_fn, beta = knowledge_of(state, config.bias, config.polish)
    rng = np.array([config.seed & ((1 << 64) - 1)], dtype=np.uint64)
    root = state.array.copy()
    g = best_arrays(info.max_game_length)
    scratch = scratch_rows(state)
    machine: list[tuple[Any, ...]] = []

    def new_run() -> None:
        base = nmcs_machine(state, config.level, beta, config.polish)
        machine[:] = [base + scratch + g]

    def advance(playouts: int) -> tuple[int, bool]:
        m = machine[0]
        made = nmcs_advance(
            legal_fn, apply_fn, returns_fn, bias_fn, polish_fn, root, params, m, rng, playouts
        )
        return int(made), bool(m[8][1] == RUN_DONE)

    return drive(advance, new_run, g, config, config.spec, on_improve, watch)
