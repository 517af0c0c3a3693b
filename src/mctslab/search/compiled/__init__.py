"""The compiled engine: a whole MCTS iteration in one numba ``nopython`` function.

It makes the same choices as the reference engine (:mod:`mctslab.search.mcts`) from
the same seed, so it builds the same tree: the same four phases, the same
SplitMix64 draws (:mod:`mctslab.core.rng`), the same tie-breaking (lowest action)
and the same floating-point expressions. Only the data structure differs.

The modules, in the order of one iteration (as mctx's ``_src/``):

- :mod:`.tree`: the tree is a struct of preallocated arrays (as mctx's ``Tree``; the
  fields are :data:`TREE_FIELDS`, 31 bytes a node): node ``i`` has ``visits[i]`` and
  ``value_sum[i]`` (the statistics of the player who moved into it, that is its parent's
  ``to_play``), ``action[i]``, ``n_untried[i]`` (legal actions with no child yet),
  ``to_play[i]``, ``proven[i]`` (1/0/-1 for player 0, else ``UNPROVEN``), ``flags[i]``
  (opened, terminal), and its children as a list sorted by action: ``first_child[i]``,
  then ``next_sibling`` of each. Node 0 is the root. When a node becomes fully expanded
  its children move to consecutive slots (:func:`~.tree.relocate`): selection then reads
  neighbours in memory instead of nodes made thousands of iterations apart, and the freed
  slots take the next new nodes. Under RAVE or progressive bias, ``Tree.stats`` adds three
  float64 rows (the all-moves-as-first visits and sum, the bias term: 24 bytes a node),
  and under prior knowledge six (the virtual visits and wins a child starts with).
  Neither boards nor untried lists are stored: each iteration replays the path from the
  root, and expansion recomputes the legal actions there and takes the k-th one without a
  child, as the reference engine pops the k-th of its sorted list.
- :mod:`.selection`: the rules that pick a child, ``(tree, node, choice) -> child``:
  :func:`uct_child`, :func:`rave_child`, :func:`puct_child`, :func:`gumbel_child`.
- :mod:`.phases`: :func:`select`, :func:`expand`, :func:`simulate`,
  :func:`backpropagate`, and their helpers (opening a node, MCTS-Solver's proofs, RAVE's
  AMAF update, progressive bias, prior knowledge).
- :mod:`.playouts`: the game's optional kernels (its own playout, playout moves, heavy
  and light moves, observation) chosen by type when compiling, and the generic heavy
  playout.
- :mod:`.chunk` and :mod:`.puct_chunk`: the loops that call the phases, up to a chunk
  of iterations a call (:func:`run_chunk`; PUCT's :func:`run_puct_chunk` and, for many
  searches at once, :func:`run_puct_round`).
- :mod:`.options`: what Python and the loops exchange: the search's :class:`Options`
  (named fields, read by the loops from the arrays ``cfg_i`` and ``cfg_f`` that cross a
  game's cached wrapper), the game's :class:`Kernels` and the :class:`Scratch` rows, the
  counters of ``ctl`` and the chunks' return codes.
- :mod:`.driver`: :class:`CompiledMCTS`, which calls the chunks from Python, in three
  public steps (``begin``, ``advance``, ``finish``); :mod:`.batch`: :func:`search_many`,
  many PUCT searches stepped together (:class:`SearchRounds`).

Python calls :func:`run_chunk` once per chunk of iterations; between chunks it
asks the search's :class:`~mctslab.search.budget.Budget` whether to stop (the
iteration and time budgets and robust-max's extension, the same object the
reference engine asks between iterations; numba has no clock in nopython mode)
and grows the arrays when they run short. Under robust-max's extension the chunk
itself stops at the first iteration where the two rules agree, as the reference does.
The function takes the game's rule kernels as arguments; each built-in game wraps it
in a one-line function compiled with ``cache=True`` (:mod:`mctslab.search.kernel_chunks`,
``RuleKernels.search_chunk`` for a user's game), so that numba's on-disk cache serves a
fresh process. A user's own kernel game works without such a wrapper, compiled on first
use. A game may also give its own random playout (``RuleKernels.playout``, passed to
:func:`run_chunk` last): the random simulation then calls it instead of the generic
loop; it makes the same draws.

The wrappers and :func:`run_chunk` are compiled with ``nogil=True``: a chunk runs
without Python's GIL, so searches in several threads of one process (root
parallelism's threads, the web lab's concurrent sessions) use every core.
"""

from mctslab.games.kernels import rng_next, rng_randint
from mctslab.search.compiled.batch import (
    SearchRounds,
    rounds_apply,
    search_many,
    search_rounds,
    search_stepped,
)
from mctslab.search.compiled.chunk import (
    chunk_stop,
    iterate,
    run_chunk,
    uct_chunk,
)
from mctslab.search.compiled.driver import (
    CHUNK_ARGUMENTS,
    CompiledMCTS,
    SearchRun,
    check_wrapper,
    kernel_tuple,
    puct_round_fn,
    register_cached_chunk,
)
from mctslab.search.compiled.options import (
    CFG_F_SIZE,
    CHUNK_DONE,
    CTL_SIZE,
    EVAL_EXTERNAL,
    EVAL_HEURISTIC,
    EVAL_ROLLOUT,
    EVAL_UNIFORM,
    EVALUATOR_CODES,
    EXPANSION_ALL,
    EXPANSION_CODE,
    EXPANSION_ONE,
    FLOAT_OPTIONS,
    FREE,
    GO_ON,
    HIGH,
    INT_OPTIONS,
    IS_EXTENDED,
    ITERATIONS,
    NEED_EVAL,
    NEED_NOISE,
    NEED_SPACE,
    NODE_BUDGET,
    NODES,
    NOISE_DUE,
    NOISY,
    NOT_WIN_LOSS,
    PENDING,
    SIMULATION_CODE,
    SIMULATION_CUTOFF,
    SIMULATION_HEAVY,
    SIMULATION_RANDOM,
    SIMULATION_VERDICT,
    STOP_AGREEMENT,
    STOP_NAMES,
    STOP_NODES,
    STOP_PROVEN,
    Kernels,
    Options,
    Scratch,
    make_scratch,
    option_arrays,
    read_options,
)
from mctslab.search.compiled.phases import (
    backpropagate,
    expand,
    expand_with_priors,
    leaf_rewards,
    open_node,
    prove,
    select,
    set_bias,
    should_expand,
    simulate,
    update_amaf,
    value_rewards,
)
from mctslab.search.compiled.playouts import (
    game_heavy,
    game_light,
    game_observation,
    game_playout,
    game_rollout,
    heavy_action,
    wins,
)
from mctslab.search.compiled.puct_chunk import (
    Pending,
    Priors,
    collect_leaves,
    finish_batch,
    hand_over,
    make_pending,
    puct_chunk,
    run_puct_chunk,
    run_puct_round,
)
from mctslab.search.compiled.selection import (
    INV,
    INV_SQRT,
    SQRT_LOG,
    TINY,
    agree,
    better,
    gumbel_child,
    mean,
    puct_child,
    rave_child,
    uct_child,
)
from mctslab.search.compiled.tree import (
    AMAF_SUM,
    AMAF_VISITS,
    BIAS,
    KNOW_VISITS,
    KNOW_WINS,
    NONE,
    OPENED,
    PRIOR_ROW,
    RAW_ROW,
    ROOT,
    SQUARES,
    STATS_ROWS,
    TERMINAL_FLAG,
    TREE_FIELDS,
    UNPROVEN,
    Tree,
    allocate,
    borrow,
    borrow_tree,
    bytes_per_node,
    compact,
    copy_node,
    grow,
    link,
    new_node,
    relocate,
    stats_rows,
)

# Private names of compiled.py that tests read, kept importable from here.
_INV, _INV_SQRT, _SQRT_LOG = INV, INV_SQRT, SQRT_LOG
_rounds_apply = rounds_apply

#: Every name the engine's modules share with the rest of mctslab (the first eight were
#: compiled.py's ``__all__``: CompiledMCTS, Tree, register_cached_chunk, rng_next,
#: rng_randint, run_chunk, run_puct_chunk, search_many).
__all__ = [
    "AMAF_SUM",
    "AMAF_VISITS",
    "BIAS",
    "CFG_F_SIZE",
    "CHUNK_ARGUMENTS",
    "CHUNK_DONE",
    "CTL_SIZE",
    "EVALUATOR_CODES",
    "EVAL_EXTERNAL",
    "EVAL_HEURISTIC",
    "EVAL_ROLLOUT",
    "EVAL_UNIFORM",
    "EXPANSION_ALL",
    "EXPANSION_CODE",
    "EXPANSION_ONE",
    "FLOAT_OPTIONS",
    "FREE",
    "GO_ON",
    "HIGH",
    "INT_OPTIONS",
    "INV",
    "INV_SQRT",
    "IS_EXTENDED",
    "ITERATIONS",
    "KNOW_VISITS",
    "KNOW_WINS",
    "NEED_EVAL",
    "NEED_NOISE",
    "NEED_SPACE",
    "NODES",
    "NODE_BUDGET",
    "NOISE_DUE",
    "NOISY",
    "NONE",
    "NOT_WIN_LOSS",
    "OPENED",
    "PENDING",
    "PRIOR_ROW",
    "RAW_ROW",
    "ROOT",
    "SIMULATION_CODE",
    "SIMULATION_CUTOFF",
    "SIMULATION_HEAVY",
    "SIMULATION_RANDOM",
    "SIMULATION_VERDICT",
    "SQRT_LOG",
    "SQUARES",
    "STATS_ROWS",
    "STOP_AGREEMENT",
    "STOP_NAMES",
    "STOP_NODES",
    "STOP_PROVEN",
    "TERMINAL_FLAG",
    "TINY",
    "TREE_FIELDS",
    "UNPROVEN",
    "CompiledMCTS",
    "Kernels",
    "Options",
    "Pending",
    "Priors",
    "Scratch",
    "SearchRounds",
    "SearchRun",
    "Tree",
    "agree",
    "allocate",
    "backpropagate",
    "better",
    "borrow",
    "borrow_tree",
    "bytes_per_node",
    "check_wrapper",
    "chunk_stop",
    "collect_leaves",
    "compact",
    "copy_node",
    "expand",
    "expand_with_priors",
    "finish_batch",
    "game_heavy",
    "game_light",
    "game_observation",
    "game_playout",
    "game_rollout",
    "grow",
    "gumbel_child",
    "hand_over",
    "heavy_action",
    "iterate",
    "kernel_tuple",
    "leaf_rewards",
    "link",
    "make_pending",
    "make_scratch",
    "mean",
    "new_node",
    "open_node",
    "option_arrays",
    "prove",
    "puct_child",
    "puct_chunk",
    "puct_round_fn",
    "rave_child",
    "read_options",
    "register_cached_chunk",
    "relocate",
    "rng_next",
    "rng_randint",
    "rounds_apply",
    "run_chunk",
    "run_puct_chunk",
    "run_puct_round",
    "search_many",
    "search_rounds",
    "search_stepped",
    "select",
    "set_bias",
    "should_expand",
    "simulate",
    "stats_rows",
    "uct_child",
    "uct_chunk",
    "update_amaf",
    "value_rewards",
    "wins",
]
