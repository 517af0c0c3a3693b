"""What travels between Python and the compiled code: the options, the counters, the codes.

The driver (:mod:`~mctslab.search.compiled.driver`) writes a search's options to two
arrays, ``cfg_i`` (integer options) and ``cfg_f`` (float options), at the indices named
here; the chunk loops read them back by the same names. ``ctl`` holds the search's
counters, kept across chunks, and a chunk returns one of the codes below: why it stopped.
"""

from __future__ import annotations

# run_chunk's return codes.
CHUNK_DONE, STOP_NODES, STOP_PROVEN, STOP_AGREEMENT = 0, 1, 2, 3
NEED_SPACE, NODE_BUDGET, NOT_WIN_LOSS = 4, 5, 6
# CHUNK_DONE doubles as "go on" for the phases that return a code.
# run_puct_chunk's return codes beyond run_chunk's.
NEED_EVAL, NEED_NOISE = 7, 8
#: Why a search stopped, by the code of a chunk that stopped it.
STOP_NAMES = {
    STOP_NODES: "nodes",
    STOP_PROVEN: "proven",
    STOP_AGREEMENT: "agreement",
}

# cfg_i: integer options; cfg_f: float options (RAVE_K and BIAS_W after PUCT's 4-8).
EXPANSION, SIMULATION, CUTOFF_DEPTH, SOLVER, MAX_NODES, VERDICT_EVERY = 0, 1, 2, 3, 4, 5
C, MIN_UTILITY, SPAN, VERDICT_THRESHOLD, RAVE_K, BIAS_W = 0, 1, 2, 3, 9, 10
CFG_F_SIZE = 11
# cfg_i / cfg_f entries of PUCT after UCT's (EXPANSION .. MAX_NODES; C, MIN_UTILITY, SPAN).
BATCH, VIRTUAL_LOSS, EVALUATOR, GUMBEL = 6, 7, 8, 9
C_BASE, FPU, MIX, VALUE_SCALE, MAXVISIT_INIT = 4, 5, 6, 7, 8

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
