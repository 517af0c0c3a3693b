"""What travels between Python and the compiled code: options, kernels, scratch, codes.

Compiled code reads a search's options by name from an :class:`Options` (a heterogeneous
``NamedTuple``, which numba passes as a struct), calls the game's rules through a
:class:`Kernels` and works in the rows of a :class:`Scratch`: the phases take these three
instead of a score of positional arguments. The options cross a kernel game's cached
wrapper as two arrays (``cfg_i``, ``cfg_f``: the wrapper's twelve arguments are a contract
with user games, ``docs/games.md``), written by :func:`option_arrays` and read back once a
chunk by :func:`read_options`. ``ctl`` holds the search's counters, kept across chunks,
and a chunk returns one of the codes below: why it stopped.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

# run_chunk's return codes.
CHUNK_DONE, STOP_NODES, STOP_PROVEN, STOP_AGREEMENT = 0, 1, 2, 3
NEED_SPACE, NODE_BUDGET, NOT_WIN_LOSS = 4, 5, 6
# CHUNK_DONE doubles as "go on" for the phases that return a code; the budget checks
# between iterations return GO_ON when none of them stops the chunk.
GO_ON = -1
# run_puct_chunk's return codes beyond run_chunk's.
NEED_EVAL, NEED_NOISE = 7, 8
#: Why a search stopped, by the code of a chunk that stopped it.
STOP_NAMES = {
    STOP_NODES: "nodes",
    STOP_PROVEN: "proven",
    STOP_AGREEMENT: "agreement",
}

#: The integer options, in the order of ``cfg_i``, and the float options, in the order of
#: ``cfg_f``: the arrays that carry an :class:`Options` through a kernel game's cached
#: wrapper (:func:`option_arrays` writes them, :func:`read_options` reads them back).
INT_OPTIONS = (
    "expansion",
    "simulation",
    "cutoff_depth",
    "solver",
    "max_nodes",
    "verdict_every",
    "batch",
    "virtual_loss",
    "evaluator",
    "gumbel",
    "rule",
)
FLOAT_OPTIONS = (
    "c",
    "min_utility",
    "span",
    "verdict_threshold",
    "c_base",
    "fpu",
    "mix",
    "value_scale",
    "maxvisit_init",
    "rave_k",
    "bias_w",
    "know_w",
)
# Their indices in cfg_i and cfg_f (kept by these names: the engine read them so before).
EXPANSION, SIMULATION, CUTOFF_DEPTH, SOLVER, MAX_NODES, VERDICT_EVERY = range(6)
BATCH, VIRTUAL_LOSS, EVALUATOR, GUMBEL, RULE = range(6, 11)
C, MIN_UTILITY, SPAN, VERDICT_THRESHOLD = range(4)
C_BASE, FPU, MIX, VALUE_SCALE, MAXVISIT_INIT, RAVE_K, BIAS_W, KNOW_W = range(4, 12)
CFG_F_SIZE = len(FLOAT_OPTIONS)

# The values of cfg_i's options, named as SearchConfig names them.
EXPANSION_ONE, EXPANSION_ALL = 0, 1
SIMULATION_RANDOM, SIMULATION_HEAVY, SIMULATION_CUTOFF, SIMULATION_VERDICT = 0, 1, 2, 3

EXPANSION_CODE = {"one": EXPANSION_ONE, "all": EXPANSION_ALL}
SIMULATION_CODE = {
    "random": SIMULATION_RANDOM,
    "heavy": SIMULATION_HEAVY,
    "cutoff": SIMULATION_CUTOFF,
    "verdict": SIMULATION_VERDICT,
}

EVAL_EXTERNAL, EVAL_ROLLOUT, EVAL_UNIFORM, EVAL_HEURISTIC = 0, 1, 2, 3
#: The built-in evaluators the compiled code computes itself, by name.
EVALUATOR_CODES = {
    "uniform+rollout": EVAL_ROLLOUT,
    "uniform": EVAL_UNIFORM,
    "heuristic": EVAL_HEURISTIC,
}

# ctl: the search's counters, kept across chunks; IS_EXTENDED is set by the driver
# (robust-max's extension is on: stop the chunk as soon as the two rules agree).
# NODES counts the nodes created; HIGH is the first slot never used and FREE the
# first of the slots freed by relocate (linked by next_sibling), reused first.
ITERATIONS, IS_EXTENDED, NODES, HIGH, FREE = 0, 1, 2, 3, 4
# PUCT's entries after UCT's: leaves waiting for Python's evaluator, noise to draw at the
# root's next choice, noisy root priors in use.
PENDING, NOISE_DUE, NOISY = 5, 6, 7
CTL_SIZE = 8


class Options(NamedTuple):
    """A search's options as compiled code reads them (the :class:`SearchConfig` and
    :class:`PuctConfig` fields they come from, checked and coded by the driver).

    Attributes:
        expansion: ``EXPANSION_ONE`` or ``EXPANSION_ALL`` (RAVE and prior knowledge grow
            all children).
        simulation: ``SIMULATION_RANDOM``, ``_HEAVY``, ``_CUTOFF`` or ``_VERDICT``.
        cutoff_depth: random plies before the heuristic scores a cutoff playout.
        solver: MCTS-Solver on.
        max_nodes: the node budget, -1 for none.
        verdict_every: plies between the heuristic's verdicts.
        batch: PUCT's leaves a batch (0 under UCT).
        virtual_loss: PUCT's virtual loss.
        evaluator: PUCT's evaluator, ``EVAL_EXTERNAL`` or a built-in one's code.
        gumbel: Gumbel search on.
        rule: UCT's family: the selection rule's code, its index in
            :data:`~.selection.COMPILED_RULES` (RAVE's under RAVE, progressive bias or
            prior knowledge).
        c: the exploration constant (UCT's ``c``, or PUCT's).
        min_utility: the game's lowest return.
        span: the game's highest return minus its lowest.
        max_utility: ``min_utility + span``.
        verdict_threshold: the heuristic's value that ends a verdict playout.
        c_base: PUCT's ``c_base`` (``<= 0``: a constant ``c``).
        fpu: PUCT's value of an unvisited child.
        mix: PUCT's weight of a playout beside the evaluator's value.
        value_scale: Gumbel's ``c_scale``.
        maxvisit_init: Gumbel's ``c_visit``.
        rave_k: RAVE's equivalence parameter ``k`` (0: off).
        bias_w: progressive bias's weight ``w`` (0: off).
        know_w: prior knowledge's scale ``S`` (0: off): a new child's virtual visits and
            wins are ``S`` times the game's ``knowledge`` kernel's.
    """

    expansion: int
    simulation: int
    cutoff_depth: int
    solver: bool
    max_nodes: int
    verdict_every: int
    batch: int
    virtual_loss: int
    evaluator: int
    gumbel: bool
    rule: int
    c: float
    min_utility: float
    span: float
    max_utility: float
    verdict_threshold: float
    c_base: float
    fpu: float
    mix: float
    value_scale: float
    maxvisit_init: float
    rave_k: float
    bias_w: float
    know_w: float


def option_arrays(options: Options) -> tuple[Any, Any]:
    """``(cfg_i, cfg_f)``: the options as the int64 and float64 arrays a chunk takes."""
    cfg_i = np.array([int(getattr(options, f)) for f in INT_OPTIONS], dtype=np.int64)
    cfg_f = np.array([float(getattr(options, f)) for f in FLOAT_OPTIONS], dtype=np.float64)
    return cfg_i, cfg_f


@njit(inline="always")
def read_options(cfg_i, cfg_f):  # type: ignore[no-untyped-def]
    """The :class:`Options` that :func:`option_arrays` wrote to ``cfg_i`` and ``cfg_f``."""
    min_u = cfg_f[MIN_UTILITY]
    span = cfg_f[SPAN]
    return Options(
        cfg_i[EXPANSION],
        cfg_i[SIMULATION],
        cfg_i[CUTOFF_DEPTH],
        cfg_i[SOLVER] != 0,
        cfg_i[MAX_NODES],
        cfg_i[VERDICT_EVERY],
        cfg_i[BATCH],
        cfg_i[VIRTUAL_LOSS],
        cfg_i[EVALUATOR],
        cfg_i[GUMBEL] != 0,
        cfg_i[RULE],
        cfg_f[C],
        min_u,
        span,
        min_u + span,
        cfg_f[VERDICT_THRESHOLD],
        cfg_f[C_BASE],
        cfg_f[FPU],
        cfg_f[MIX],
        cfg_f[VALUE_SCALE],
        cfg_f[MAXVISIT_INIT],
        cfg_f[RAVE_K],
        cfg_f[BIAS_W],
        cfg_f[KNOW_W],
    )


class Kernels(NamedTuple):
    """The game's rule kernels, as the phases call them (:mod:`mctslab.games.kernels`):
    ``legal``, ``apply``, ``returns``, ``heuristic``, and the optional ones, ``None`` where
    the game has none (chosen by type when compiling: :mod:`.playouts`): ``observation``,
    ``playout``, ``rollout`` (playout moves), ``heavy`` and ``light`` (a heavy or a random
    playout's move), ``knowledge`` (the prior knowledge of a node's moves)."""

    legal: Any
    apply: Any
    returns: Any
    heuristic: Any
    observation: Any
    playout: Any
    rollout: Any
    heavy: Any
    light: Any
    knowledge: Any


class Scratch(NamedTuple):
    """The working rows of a chunk (views of the driver's ``bufs`` and ``fbufs``; ``W`` =
    the longer of the state and the action count).

    Attributes:
        state: int64 ``[state_size]``, the position, replayed from the root each iteration.
        tmp1: int64 ``[state_size]``, a scratch position (the heavy playout's lookahead).
        tmp2: int64 ``[state_size]``, another.
        a_buf: int64 ``[W]``, a playout's moves.
        b_buf: int64 ``[W]``, the opponent's replies (heavy playout).
        legal: int64 ``[W]``, the legal actions of the node being opened or expanded.
        safe: int64 ``[W]``, the heavy playout's safe moves.
        first: int64 ``[num_actions]`` under RAVE, the player who played each action
            first in the playout (-1: nobody); ``[0]`` otherwise.
        rewards: float64 ``[num_players]``, the iteration's rewards in ``[0, 1]``.
        rets: float64 ``[num_players]``, the game's returns.
        played: float64 ``[num_players]``, a playout's rewards beside PUCT's evaluator.
    """

    state: Any
    tmp1: Any
    tmp2: Any
    a_buf: Any
    b_buf: Any
    legal: Any
    safe: Any
    first: Any
    rewards: Any
    rets: Any
    played: Any


@njit(inline="always")
def make_scratch(bufs, fbufs, n_state, n_first):  # type: ignore[no-untyped-def]
    """The :class:`Scratch` rows of ``bufs`` (int64 ``[8, W]``: the working state, two
    scratch states, three action buffers, the safe moves, RAVE's first movers, of which
    ``n_first`` are used) and ``fbufs`` (float64 ``[3, num_players]``)."""
    return Scratch(
        bufs[0, :n_state], bufs[1, :n_state], bufs[2, :n_state], bufs[3], bufs[4], bufs[5],
        bufs[6], bufs[7, :n_first], fbufs[0], fbufs[1], fbufs[2],
    )  # fmt: skip
