"""The compiled engine: a whole MCTS iteration in one numba ``nopython`` function.

It makes the same choices as the reference engine (:mod:`mctslab.search.mcts`) from
the same seed, so it builds the same tree: the same four phases, the same
SplitMix64 draws (:mod:`mctslab.core.rng`), the same tie-breaking (lowest action)
and the same floating-point expressions. Only the data structure differs.

The modules, in the order of one iteration (as mctx's ``_src/``):

- :mod:`.tree`: the tree is a struct of preallocated arrays (as mctx's ``Tree``; the
  fields are :data:`~.tree.TREE_FIELDS`, 31 bytes a node): node ``i`` has ``visits[i]`` and
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
  :func:`~.selection.uct_child`, :func:`~.selection.rave_child`,
  :func:`~.selection.puct_child`, :func:`~.selection.gumbel_child`.
- :mod:`.phases`: :func:`~.phases.select`, :func:`~.phases.expand`,
  :func:`~.phases.simulate`, :func:`~.phases.backpropagate`, and their helpers (opening
  a node, MCTS-Solver's proofs, RAVE's AMAF update, progressive bias, prior knowledge).
- :mod:`.playouts`: the game's optional kernels (its own playout, playout moves, heavy
  and light moves, observation) chosen by type when compiling, and the generic heavy
  playout.
- :mod:`.chunk` and :mod:`.puct_chunk`: the loops that call the phases, up to a chunk
  of iterations a call (:func:`run_chunk`; PUCT's :func:`run_puct_chunk` and, for many
  searches at once, :func:`run_puct_round`).
- :mod:`.options`: what Python and the loops exchange: the search's :class:`Options`
  (named fields, read by the loops from the arrays ``cfg_i`` and ``cfg_f`` that cross a
  game's cached wrapper), the game's :class:`Kernels` and the
  :class:`~.options.Scratch` rows, the counters of ``ctl`` and the chunks' return codes.
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

This face holds what a caller of the engine needs: the engine and one search's run, the
tree, the options and kernels that cross into numba, the many-search driver, and the
chunks a kernel game's cached wrapper calls. Everything else (the tree's layout, the
return codes and option codes, the phases and their helpers) is imported from its
module by name, as ``from mctslab.search.compiled.tree import UNPROVEN``.
"""

from mctslab.search.compiled.batch import SearchRounds, search_many
from mctslab.search.compiled.chunk import run_chunk
from mctslab.search.compiled.driver import (
    CompiledMCTS,
    SearchRun,
    check_wrapper,
    register_cached_chunk,
)
from mctslab.search.compiled.options import Kernels, Options
from mctslab.search.compiled.puct_chunk import run_puct_chunk, run_puct_round
from mctslab.search.compiled.tree import Tree

__all__ = [
    "CompiledMCTS",
    "Kernels",
    "Options",
    "SearchRounds",
    "SearchRun",
    "Tree",
    "check_wrapper",
    "register_cached_chunk",
    "run_chunk",
    "run_puct_chunk",
    "run_puct_round",
    "search_many",
]
