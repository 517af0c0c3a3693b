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

import typing
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from mctslab.core.game import GameInfo
from mctslab.core.options import options_of
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig
from mctslab.search.rules import puct_config

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


def _codes(name: str) -> dict[str, int]:
    """A word option's codes as compiled code reads them: each word's index among the
    choices :class:`SearchConfig` declares (:func:`mctslab.core.options.options_of`)."""
    return {word: code for code, word in enumerate(options_of(SearchConfig)[name].choices)}


EXPANSION_CODE = _codes("expansion")
SIMULATION_CODE = _codes("simulation")
# The values of cfg_i's options, named as SearchConfig names them.
EXPANSION_ONE, EXPANSION_ALL = EXPANSION_CODE["one"], EXPANSION_CODE["all"]
SIMULATION_RANDOM, SIMULATION_HEAVY = SIMULATION_CODE["random"], SIMULATION_CODE["heavy"]
SIMULATION_CUTOFF, SIMULATION_VERDICT = SIMULATION_CODE["cutoff"], SIMULATION_CODE["verdict"]

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


#: The integer options (the ``int`` and ``bool`` fields of :class:`Options`), in the order of
#: ``cfg_i``, and the float options, in the order of ``cfg_f``: the arrays that carry an
#: :class:`Options` through a kernel game's cached wrapper (:func:`option_arrays` writes them,
#: :func:`read_options` reads them back). Both follow the fields: a new option is one field.
_KINDS = {name: kind.__name__ for name, kind in typing.get_type_hints(Options).items()}
INT_OPTIONS = tuple(name for name, kind in _KINDS.items() if kind in ("int", "bool"))
FLOAT_OPTIONS = tuple(name for name, kind in _KINDS.items() if kind == "float")
CFG_F_SIZE = len(FLOAT_OPTIONS)


def option_arrays(options: Options) -> tuple[Any, Any]:
    """``(cfg_i, cfg_f)``: the options as the int64 and float64 arrays a chunk takes."""
    cfg_i = np.array([int(getattr(options, f)) for f in INT_OPTIONS], dtype=np.int64)
    cfg_f = np.array([float(getattr(options, f)) for f in FLOAT_OPTIONS], dtype=np.float64)
    return cfg_i, cfg_f


def _reader() -> Any:
    """:func:`read_options`, written from the layout: ``Options(cfg_i[0], ..., cfg_f[0],
    ...)`` in field order (a ``bool`` field read as ``!= 0``), compiled inline into the
    chunks (as :mod:`.chunk` writes its rule dispatch from the rules' registry)."""
    parts = []
    for name, kind in _KINDS.items():
        if kind == "float":
            parts.append(f"cfg_f[{FLOAT_OPTIONS.index(name)}]")
        else:
            test = " != 0" if kind == "bool" else ""
            parts.append(f"cfg_i[{INT_OPTIONS.index(name)}]{test}")
    source = f"def read_options(cfg_i, cfg_f):\n    return Options({', '.join(parts)})\n"
    scope: dict[str, Any] = {"Options": Options}
    exec(compile(source, f"<{__name__}.read_options>", "exec"), scope)
    reader = scope["read_options"]
    reader.__doc__ = "The :class:`Options` that :func:`option_arrays` wrote to the two arrays."
    return njit(inline="always")(reader)


read_options = _reader()


def make_options(config: SearchConfig, info: GameInfo, *, evaluator: int, rule: int) -> Options:
    """A search's :class:`Options`: each field named as a :class:`SearchConfig` option (or,
    under PUCT, a :class:`PuctConfig` one) takes that option's value, coded (a word: its
    index among the declared choices; ``None``: -1; a PUCT option without PUCT: 0); the
    rest are the game's utility range, the evaluator's and the rule's codes, and the
    weights of RAVE, progressive bias and knowledge."""
    search, puct_options = options_of(SearchConfig), options_of(PuctConfig)
    evaluated = config.rule.evaluated  # PUCT's family: the PuctConfig's options are read
    span = info.max_utility - info.min_utility
    values: dict[str, Any] = {
        "evaluator": evaluator,
        "rule": rule,
        "min_utility": info.min_utility,
        "span": span,
        "max_utility": info.min_utility + span,
        "rave_k": float(config.rave),
        "bias_w": float(config.progressive_bias),
        "know_w": float(config.knowledge),
    }
    for name, kind in _KINDS.items():
        if name in values:
            continue
        if name in search:
            values[name] = _coded(search[name].choices, getattr(config, name))
        elif name in puct_options:
            values[name] = _coded((), getattr(config.puct, name)) if evaluated else _ZERO[kind]
    if evaluated:
        values["c"] = puct_config(config).c
    return Options(**values)


_ZERO: dict[str, Any] = {"int": 0, "bool": False, "float": 0.0}


def _coded(choices: tuple[str, ...], value: Any) -> Any:
    """An option's value as compiled code reads it: a word's index, ``None`` as -1."""
    if value is None:
        return -1
    return choices.index(value) if choices else value


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
