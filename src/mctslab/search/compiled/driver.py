"""The compiled engine's driver: :class:`CompiledMCTS`, the chunks called from Python.

A search (:meth:`CompiledMCTS.search`) checks the game and the config, sets up or re-roots
the tree and the arrays a chunk reads (a :class:`SearchRun`), then calls the chunk loop
(:func:`~mctslab.search.compiled.chunk.run_chunk`, or PUCT's
:func:`~mctslab.search.compiled.puct_chunk.run_puct_chunk`) chunk after chunk, asking its
:class:`~mctslab.search.budget.Budget` between them whether to stop and growing the
arrays when they run short; PUCT's chunks hand their leaves to Python's evaluator and ask
for the root noise. The chunk loop comes bound to the game's kernels: a built-in game's
cached wrapper (:func:`register_cached_chunk`), a user's ``search_chunk``, or bound here.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Generator
from typing import Any, cast

import numpy as np

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import GameInfo, State, has_chance_nodes, same_rules
from mctslab.core.rng import Rng
from mctslab.games.kernels import KernelState
from mctslab.search.budget import SLICE, SLICE_SECONDS, Budget, visit_lead
from mctslab.search.compiled.chunk import run_chunk
from mctslab.search.compiled.options import (
    CHUNK_DONE,
    EVAL_EXTERNAL,
    EVALUATOR_CODES,
    FREE,
    HIGH,
    IS_EXTENDED,
    ITERATIONS,
    NEED_NOISE,
    NEED_SPACE,
    NODE_BUDGET,
    NODES,
    NOISE_DUE,
    NOISY,
    NOT_WIN_LOSS,
    STOP_NAMES,
    Kernels,
    Options,
    make_options,
    option_arrays,
)
from mctslab.search.compiled.puct_chunk import (
    Pending,
    make_pending,
    run_puct_chunk,
    run_puct_round,
)
from mctslab.search.compiled.reader import CompiledReader
from mctslab.search.compiled.selection import RULE_CODES
from mctslab.search.compiled.slices import drive, in_slices
from mctslab.search.compiled.tree import (
    NONE,
    OPENED,
    PRIOR_ROW,
    RAW_ROW,
    ROOT,
    UNPROVEN,
    Tree,
    allocate,
    bytes_per_node,
    compact,
    grow,
    stats_rows,
)
from mctslab.search.config import SearchConfig, check_knowledge, check_puct
from mctslab.search.evaluators import LeafBatch, check_output
from mctslab.search.gumbel import considered_visits
from mctslab.search.result import RootChild, SearchResult, Slices, make_result, rules_agree
from mctslab.search.rules import puct_config
from mctslab.search.solver import NotWinLossDrawError, check_solver, not_win_loss_message

# Rule kernels -> run_chunk (and run_puct_chunk) bound to them in functions numba
# caches on disk.
_CACHED_CHUNKS: dict[Any, Callable[..., int]] = {}
_CACHED_PUCT_CHUNKS: dict[Any, Callable[..., int]] = {}
_CACHED_PUCT_ROUNDS: dict[Any, Callable[..., int]] = {}


def register_cached_chunk(
    kernels: Any,
    chunk: Callable[..., int],
    puct_chunk: Callable[..., int] | None = None,
    puct_round: Callable[..., int] | None = None,
) -> None:
    """Use ``chunk`` (:func:`run_chunk` bound to ``kernels`` in a module-level function
    compiled with ``cache=True``) for games with these kernels, and ``puct_chunk``
    (:func:`run_puct_chunk` bound alike) for their PUCT
    searches: how the built-in games' wrappers in :mod:`mctslab.search.kernel_chunks`
    reach the engine."""
    _CACHED_CHUNKS[kernels] = chunk
    if puct_chunk is not None:
        _CACHED_PUCT_CHUNKS[kernels] = puct_chunk
    if puct_round is not None:
        _CACHED_PUCT_ROUNDS[kernels] = puct_round


def kernel_tuple(kernels: Any) -> Kernels:
    """The game's :class:`~mctslab.games.kernels.RuleKernels` as the :class:`Kernels` the
    PUCT chunks take (``None`` for each optional kernel the game lacks)."""
    return Kernels(
        kernels.legal_actions,
        kernels.apply_action,
        kernels.returns,
        kernels.heuristic,
        getattr(kernels, "observation", None),
        getattr(kernels, "playout", None),
        getattr(kernels, "rollout_actions", None),
        getattr(kernels, "heavy_action", None),
        getattr(kernels, "light_action", None),
        None,  # prior knowledge: UCT's family only
    )


def puct_round_fn(kernels: Any) -> Callable[..., int]:
    """:func:`run_puct_round` bound to the game's kernels (cached wrapper, or bound here)."""
    wrapper = _CACHED_PUCT_ROUNDS.get(kernels)
    if wrapper is not None:
        return wrapper

    def generic(*args: Any) -> int:
        return run_puct_round(kernel_tuple(kernels), *args)  # type: ignore[no-any-return]

    return generic


#: The arguments a game's ``search_chunk`` wrapper passes on to :func:`run_chunk`.
CHUNK_ARGUMENTS = (
    "tree", "root", "params", "ci", "cf", "ctl", "rng", "bufs", "fbufs", "path", "cap", "n"
)  # fmt: skip


def check_wrapper(wrapper: Any) -> None:
    """A ``search_chunk`` wrapper takes :data:`CHUNK_ARGUMENTS` (earlier wrappers also
    passed ``ctl_f``): say so instead of numba's typing error."""
    func = getattr(wrapper, "py_func", wrapper)
    try:
        count = len(inspect.signature(func).parameters)
    except (TypeError, ValueError):  # no signature to read: let the call tell
        return
    if count != len(CHUNK_ARGUMENTS):
        raise InvalidConfigError(
            f"search_chunk takes {count} arguments; it must take {len(CHUNK_ARGUMENTS)} "
            f"({', '.join(CHUNK_ARGUMENTS)}) and pass them to run_chunk after the kernels, "
            "as in examples/kernel_game.py"
        )


class SearchRun:
    """One search's working set from :meth:`CompiledMCTS.begin` to
    :meth:`CompiledMCTS.finish`: the arrays a chunk reads and writes (its
    :class:`~.options.Options` as ``options``, and as the arrays ``cfg_i`` and ``cfg_f``
    that the chunks take), its budget and clock (mutable: tree growth and the
    many-search driver, :class:`~.batch.SearchRounds`, rebind some of them)."""

    def __init__(
        self,
        searcher: CompiledMCTS,
        info: GameInfo,
        kernels: Any,
        root_state: Any,
        params: Any,
        bufs: Any,
        budget: Budget,
        entered: float,
        config: SearchConfig,
    ) -> None:
        self.searcher = searcher
        self.config = config  # this search's (the searcher's own unless one was passed)
        self.info = info
        self.kernels = kernels
        self.root_state = root_state
        self.params = params
        self.bufs = bufs
        self.budget = budget
        self.entered = entered
        self.start = entered
        self.compile_seconds = 0.0
        self.chunk = 64  # under a time budget: iterations between looks at the clock
        self.chunk_fn: Callable[..., int] = run_chunk
        self.options: Any = None
        self.cfg_i: Any = None
        self.cfg_f: Any = None
        self.ctl: Any = None
        self.fbufs: Any = None
        self.path: Any = None
        self.pending: Any = None
        self.root_prior: Any = None
        self.capacity: Any = None
        self.state: Any = None  # the searched position (PUCT's leaf batches name it)

    def max_chunk(self) -> int:
        """Iterations the next chunk may run (the budget's; a slice of a time budget)."""
        left = self.budget.iterations_left(int(self.ctl[ITERATIONS]))
        limit = 1 << 62 if left is None else left
        if self.budget.timed or self.budget.early_stop:
            limit = min(limit, self.chunk)
        self.ctl[IS_EXTENDED] = self.budget.extended
        return limit

    def call(self, max_chunk: int) -> int:
        """One chunk of this search (:func:`run_chunk` or :func:`run_puct_chunk`)."""
        searcher = self.searcher
        tree = searcher.tree
        assert tree is not None
        self.capacity[0] = len(tree.first_child)
        if self.pending is None:
            head: tuple[Any, ...] = (tree,)
            tail: tuple[Any, ...] = (self.path,)
        else:
            head = (tree, searcher.extra, self.root_prior)
            tail = (self.pending,)
        return int(
            self.chunk_fn(
                *head,
                self.root_state,
                self.params,
                self.cfg_i,
                self.cfg_f,
                self.ctl,
                searcher.rng,
                self.bufs,
                self.fbufs,
                *tail,
                self.capacity,
                max_chunk,
            )
        )


class CompiledMCTS:
    """The compiled engine behind the same interface as :class:`mctslab.search.mcts.MCTS`.

    Works on games with rule kernels (the built-in games, or a user's
    ``KernelGame``); keeps its tree between searches when ``reuse_tree``.

    :meth:`search` runs a whole search; :meth:`search_steps` is the same as a generator
    that hands each batch of leaves to an evaluator in Python. Both are made of three
    steps, which a driver of many searches (:class:`~.batch.SearchRounds`) calls itself:
    :meth:`begin` (a :class:`SearchRun`), :meth:`advance` after each chunk, and
    :meth:`finish` (the :class:`SearchResult`).
    """

    #: What a cap on this engine's tree counts: nodes of a few array slots each.
    node_kind = "compiled"

    def __init__(self, config: SearchConfig | None = None) -> None:
        self.config = config or SearchConfig()
        self.rng = np.array([self.config.seed & ((1 << 64) - 1)], dtype=np.uint64)
        self.tree: Tree | None = None
        # PUCT's prior of each node (empty under UCT, whose nodes have none).
        self.extra = np.zeros((2, 0), dtype=np.float64)
        self._gumbel: dict[int, float] = {}  # this search's root Gumbel noise, by action
        self.evaluator: Any = None  # PUCT's, made on the first search
        self.nodes = 0
        self._slots = (0, NONE)  # ctl's HIGH and FREE after the last search
        self._history: list[int] = []
        self._game: Any = None
        self._compiled: set[Any] = set()

    def reset(self) -> None:
        self.tree = None
        self._history = []

    def release(self) -> None:
        """Forget the tree and its arrays (freed as soon as no view holds them)."""
        self.reset()
        self.extra = np.zeros((2, 0), dtype=np.float64)
        self.nodes = 0

    def tree_reader(self) -> CompiledReader | None:
        """A reader of the kept tree (what the tree view walks); ``None`` without one."""
        if self.tree is None:
            return None
        prior = self.prior if self.config.rule.evaluated else None
        return CompiledReader(self.tree, self._history, prior)

    @staticmethod
    def node_bytes(config: SearchConfig) -> int:
        """The bytes one node of the tree takes under ``config``, exactly: the tree's
        arrays (:func:`~.tree.bytes_per_node`), its statistics' rows
        (:func:`~.tree.stats_rows`) and, under an evaluated rule, the two rows of priors."""
        extra = 2 if config.rule.evaluated else 0
        return bytes_per_node() + 8 * (stats_rows(config.statistics) + extra)

    def tree_size(self) -> tuple[int, int]:
        """``(nodes, root visits)`` of the kept tree; ``(0, 0)`` without one."""
        if self.tree is None:
            return 0, 0
        return self.nodes, int(self.tree.visits[ROOT])

    def principal_variation(self, action: int | None = None, limit: int = 20) -> list[int]:
        """The line the kept tree expects, as :meth:`mctslab.search.mcts.MCTS.principal_variation`
        (``action`` or the most visited root child, then the most visited child, the lowest
        action on a tie, while it has visits; at most ``limit`` moves). The compiled tree's
        children are a list linked by ``first_child`` / ``next_sibling``; the root is node 0."""
        tree = self.tree
        line: list[int] = []
        if tree is None:
            return [action][:limit] if action is not None else []
        first, sibling, actions, visits = (
            tree.first_child,
            tree.next_sibling,
            tree.action,
            tree.visits,
        )
        node = 0
        if action is not None:
            if limit < 1:
                return []
            line.append(action)
            node, child = -1, int(first[0])
            while child >= 0:
                if int(actions[child]) == action:
                    node = child
                    break
                child = int(sibling[child])
        while node >= 0 and len(line) < limit:
            best, most, child = -1, 0, int(first[node])
            while child >= 0:
                v, a = int(visits[child]), int(actions[child])
                if v > most or (v == most and v > 0 and a < int(actions[best])):
                    best, most = child, v
                child = int(sibling[child])
            if best < 0:
                break
            line.append(int(actions[best]))
            node = best
        return line

    def _chunk_fn(self, kernels: Any) -> Callable[..., int]:
        wrapper = getattr(kernels, "search_chunk", None) or _CACHED_CHUNKS.get(kernels)
        if wrapper is not None:
            check_wrapper(wrapper)
            return wrapper  # type: ignore[no-any-return]

        def generic(*args: Any) -> int:
            return run_chunk(  # type: ignore[no-any-return,call-arg]
                kernels.legal_actions,
                kernels.apply_action,
                kernels.returns,
                kernels.heuristic,
                *args,
                getattr(kernels, "playout", None),
                getattr(kernels, "rollout_actions", None),
                getattr(kernels, "heavy_action", None),
                getattr(kernels, "light_action", None),
                getattr(kernels, "knowledge", None),
            )

        return generic

    def _puct_chunk_fn(self, kernels: Any) -> Callable[..., int]:
        """:func:`run_puct_chunk` bound to the game's kernels: the cached wrapper of a
        built-in game, else bound here (compiled on first use in each process)."""
        wrapper = _CACHED_PUCT_CHUNKS.get(kernels)
        if wrapper is not None:
            return wrapper

        def generic(*args: Any) -> int:
            return run_puct_chunk(kernel_tuple(kernels), *args)  # type: ignore[no-any-return]

        return generic

    def _reuse(self, state: Any, num_actions: int, config: SearchConfig) -> bool:
        """Re-root the kept tree under the moves played since the last search, if it can."""
        if self.tree is None or not config.reuse_tree or not same_rules(state.game, self._game):
            return False
        history = state.history()
        n = len(self._history)
        if history[:n] != self._history:
            return False
        tree = self.tree
        node = 0
        for a in history[n:]:
            node = next((ch for ch in self._children(node) if int(tree.action[ch]) == a), NONE)
            if node < 0:
                return False
        if not tree.flags[node] & OPENED:
            return False
        if node != 0:
            new = allocate(len(tree.first_child), tree.stats.shape[0])
            new_extra = np.zeros_like(self.extra)
            self.nodes = int(compact(tree, node, new, self.extra, new_extra))
            self._slots = (self.nodes, NONE)
            self.tree, self.extra = new, new_extra
        self._history = history
        return True

    def search(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
    ) -> SearchResult:
        """Search from ``state`` within the budget (of ``config``, by default the
        searcher's own); the same result as the reference engine."""
        steps = self.search_steps(state, game_info, config=config)
        try:
            request = next(steps)
            while True:  # PUCT with an outside evaluator: answer each batch of leaves
                request = steps.send(self.evaluate(request))
        except StopIteration as stop:
            result: SearchResult = stop.value
            return result

    def evaluate(self, batch: LeafBatch) -> tuple[Any, Any]:
        """This searcher's PUCT evaluator on ``batch``, its output checked and normalised."""
        priors, values = self.evaluator.evaluate(batch)
        return check_output(priors, values, batch.legal_mask)

    def search_steps(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
    ) -> Generator[LeafBatch, tuple[Any, Any], SearchResult]:
        """:meth:`search` as a generator: under PUCT with an evaluator that runs in Python
        it yields each batch of leaves (a :class:`~mctslab.search.evaluators.LeafBatch`)
        and takes back ``(priors, values)`` as :func:`~mctslab.search.evaluators.check_output`
        returns them; it returns the :class:`SearchResult`. Many searches stepped together
        can share one evaluator call (:func:`search_many`)."""
        run = self.begin(state, game_info, config)
        # In one slice, the drive yields leaf batches only.
        steps = cast(Generator[LeafBatch, tuple[Any, Any], SearchResult], drive(self, run, None))
        return (yield from steps)

    def search_slices(
        self,
        state: State,
        game_info: GameInfo | None = None,
        *,
        config: SearchConfig | None = None,
        slice_seconds: float = SLICE_SECONDS,
    ) -> Slices:
        """:meth:`search` in slices of about ``slice_seconds`` of search, a result after
        each (see :class:`mctslab.search.engine.Searcher` and
        :func:`~.slices.in_slices`)."""
        yield from in_slices(self, self.begin(state, game_info, config), slice_seconds)

    def begin(
        self,
        state: State,
        game_info: GameInfo | None = None,
        config: SearchConfig | None = None,
    ) -> SearchRun:
        """Check the search (of ``config``, by default the searcher's own), set up (or
        re-root) the tree and everything a chunk reads."""
        config = config or self.config
        if config.workers != 1:
            raise InvalidConfigError("workers > 1: make the searcher with mctslab.make_searcher")
        game: Any = getattr(state, "game", None)
        kernels = getattr(game, "kernels", None)
        if kernels is None or not hasattr(state, "array"):
            raise InvalidConfigError(
                "the compiled engine needs a game with rule kernels (a KernelGame); "
                "use engine='reference' for other games"
            )
        if has_chance_nodes(game):
            raise InvalidConfigError(
                f"the compiled engine has no chance nodes and {game.info.name} has them "
                "(dice or deals): use engine='reference' (engine='auto' picks it)"
            )
        if state.is_terminal():
            raise InvalidConfigError("cannot search a terminal state: the game is over")
        info: GameInfo = game_info or game.info
        check_solver(config, info)
        if config.knowledge:
            check_knowledge(state, info)
        if config.rule.evaluated:
            check_puct(config, info, state)
            if self.evaluator is None:
                self.evaluator = puct_config(config).make_evaluator()
        num_actions = info.num_actions
        entered = time.perf_counter()  # re-rooting a kept tree is search time too
        root_state = state.array.copy()  # type: ignore[attr-defined]
        if config.rule.root_halving:
            self.reset()  # Sequential Halving plans its budget from an empty root
        if not self._reuse(state, num_actions, config):
            self._new_tree(state, num_actions, config)
        assert self.tree is not None
        ctl = [0, 0, self.nodes, *self._slots]
        width = max(len(root_state), num_actions)
        run = SearchRun(
            searcher=self,
            info=info,
            kernels=kernels,
            root_state=root_state,
            params=game.params,
            bufs=np.zeros((8, width), dtype=np.int64),
            budget=Budget.of(config),
            entered=entered,
            config=config,
        )
        run.state = state
        run.fbufs = np.zeros((3, info.num_players), dtype=np.float64)
        code = EVAL_EXTERNAL
        if not config.rule.evaluated:
            run.chunk_fn = self._chunk_fn(kernels)
            run.path = np.zeros(info.max_game_length + 2, dtype=np.int64)
        else:
            puct = puct_config(config)
            run.chunk_fn = self._puct_chunk_fn(kernels)
            evaluator = self.evaluator
            if getattr(evaluator, "builtin", False):
                code = EVALUATOR_CODES[evaluator.name]
            ctl += [0, int(puct.noise_fraction > 0.0 or puct.gumbel), 0]
            observe = kernels.observation is not None and code == EVAL_EXTERNAL
            obs_size = math.prod(game.observation_shape()) if observe else 1
            run.pending = make_pending(
                puct.batch,
                info.max_game_length + 2,
                len(root_state),
                obs_size,
                num_actions,
                (config.iterations or 2) - 1 if puct.gumbel else 1,
            )
            run.root_prior = np.zeros((2, num_actions), dtype=np.float64)
        run.options = self._options(info, code, config)
        run.cfg_i, run.cfg_f = option_arrays(run.options)
        run.ctl = np.array(ctl, dtype=np.int64)
        run.capacity = np.array([0, num_actions], dtype=np.int64)
        key = (id(run.chunk_fn), len(root_state))
        if key not in self._compiled:
            # The first call compiles (or loads from numba's cache); time it apart.
            t0 = time.perf_counter()
            run.call(0)
            run.compile_seconds = time.perf_counter() - t0
            self._compiled.add(key)
        # The clock started on entry; compiling or loading code is reported apart.
        run.start = entered + run.compile_seconds
        return run

    def _options(self, info: GameInfo, evaluator: int, config: SearchConfig) -> Options:
        """The search's :class:`~.options.Options` (``evaluator``: PUCT's evaluator's code)."""
        entry = config.rule
        # UCT's family by its code; PUCT's family runs in its own chunk, which reads none.
        rule = RULE_CODES[entry.name] if entry.family == "uct" else 0
        return make_options(config, info, evaluator=evaluator, rule=rule)

    def _new_tree(self, state: State, num_actions: int, config: SearchConfig) -> None:
        """An empty tree for a search from ``state``, sized for ``config``'s budget."""
        if config.max_nodes is not None:
            cap = config.max_nodes
        else:
            # expansion="one" makes one node an iteration: room for exactly that;
            # otherwise start small and double when an iteration might not fit.
            one = (
                config.expansion == "one"
                and not (config.rave or config.knowledge)
                and config.time is None
                and not config.rule.evaluated
            )
            cap = (config.iterations or 0) + num_actions + 1 if one else 1 << 16
            if config.rule.evaluated and config.time is None and config.iterations is not None:
                # PUCT adds at most one node's children an iteration: a small search
                # (self-play's hundreds of simulations) allocates a small tree.
                batch = puct_config(config).batch
                cap = min(cap, (config.iterations + batch + 1) * num_actions + 1)
        self.tree = allocate(cap, stats_rows(config.statistics))
        self.extra = np.zeros((2, cap if config.rule.evaluated else 0), dtype=np.float64)
        self.nodes = 1
        self._slots = (1, NONE)
        tree = self.tree
        tree.first_child[ROOT], tree.next_sibling[ROOT] = NONE, NONE
        tree.proven[ROOT], tree.flags[ROOT] = UNPROVEN, 0
        self._history = state.history()
        self._game = state.game  # type: ignore[attr-defined]

    def advance(self, run: SearchRun, code: int) -> str | None:
        """What a chunk's return code means (all but ``NEED_EVAL``): ``None`` to go on
        (the budget not spent, noise drawn, the tree grown), else why the search stopped."""
        config = run.config
        if code == CHUNK_DONE:
            done = int(run.ctl[ITERATIONS])
            seconds = time.perf_counter() - run.start
            stop = run.budget.stop(
                done,
                seconds,
                agree=lambda: rules_agree(self._root_children()),
                lead=lambda: visit_lead([ch.visits for ch in self._root_children()]),
            )
            if stop is None and config.time is not None:
                # Aim for chunks of about a hundredth of the time budget.
                per = seconds / max(1, done)
                run.chunk = max(16, min(1 << 20, int(config.time / 100 / max(per, 1e-9))))
            elif stop is None and config.early_stop and config.iterations is not None:
                run.chunk = max(16, config.iterations // 100)  # early stop looks this often
            return stop
        if code == NEED_NOISE:
            self._root_noise(run.root_prior, run.ctl, run.pending, config)
            return None
        if code == NEED_SPACE:
            assert self.tree is not None
            self.tree = grow(self.tree, 2 * len(self.tree.first_child))
            if config.rule.evaluated:
                grown = np.zeros((2, len(self.tree.first_child)), dtype=np.float64)
                grown[:, : self.extra.shape[1]] = self.extra
                self.extra = grown
            return None
        if code == NOT_WIN_LOSS:
            self.reset()  # the iteration stopped half-way: the tree is not kept
            raise NotWinLossDrawError(not_win_loss_message(run.info, run.fbufs[1].tolist()))
        if code == NODE_BUDGET:
            if self._root_children() == []:
                raise InvalidConfigError(
                    f"max_nodes={config.max_nodes} is too small to expand the root"
                )
            return "nodes"
        return STOP_NAMES[code]

    def finish(self, run: SearchRun, stopped_by: str) -> SearchResult:
        """The search's :class:`SearchResult`; the tree's counters kept for the next one."""
        self.keep_counters(run)
        rng = Rng(int(self.rng[0]))  # PUCT's temperature draws the move from the stream
        result = self._result(run, stopped_by, rng)
        self.rng[0] = rng.state
        return result

    def keep_counters(self, run: SearchRun) -> None:
        """Keep the tree's counters as ``run``'s last chunk left them, for the next search
        (at the end of a search, or when one is abandoned between slices)."""
        self.nodes = int(run.ctl[NODES])
        self._slots = (int(run.ctl[HIGH]), int(run.ctl[FREE]))

    def interim(self, run: SearchRun) -> SearchResult:
        """The result of the tree as it stands, between two chunks of ``run`` (``stopped_by``
        :data:`~mctslab.search.budget.SLICE`; PUCT's temperature draws from a copy of the
        stream, which the final result draws from again)."""
        return self._result(run, SLICE, Rng(int(self.rng[0])))

    def _result(self, run: SearchRun, stopped_by: str, rng: Rng) -> SearchResult:
        seconds = time.perf_counter() - run.start
        tree = self.tree
        assert tree is not None
        to_play = int(tree.to_play[ROOT])
        root_proven = int(tree.proven[ROOT])
        halving = run.config.rule.root_halving  # Gumbel's move and policy: its root noise
        gumbel = (self._gumbel, float(self.extra[RAW_ROW, ROOT])) if halving else None
        return make_result(
            self._root_children(),
            to_play,
            None if root_proven == UNPROVEN else root_proven,
            run.config,
            run.info,
            iterations=int(run.ctl[ITERATIONS]),
            nodes=int(run.ctl[NODES]),
            seconds=seconds,
            stopped_by=stopped_by,
            compile_seconds=run.compile_seconds,
            rng=rng,
            gumbel=gumbel,
        )

    def leaf_batch(self, pending: Pending, k: int, root: State) -> LeafBatch:
        """The ``k`` waiting leaves as a :class:`LeafBatch` (states made only if read; the
        arrays are views of the search's buffers, valid until the search goes on)."""
        game: Any = root.game  # type: ignore[attr-defined]
        history = root.history()
        tree = self.tree
        assert tree is not None

        def states() -> list[State]:
            out: list[State] = []
            for j in range(k):
                moves = [
                    int(tree.action[pending.paths[j, d]]) for d in range(1, pending.depths[j] + 1)
                ]
                out.append(KernelState(game, pending.states[j].copy(), history + moves))
            return out

        observations = None
        if game.kernels.observation is not None:
            shape = game.observation_shape()
            observations = pending.observations[:k].reshape((k, *shape))
        return LeafBatch(
            pending.masks[:k],
            pending.to_play[:k],
            observations=observations,
            make_states=states,
        )

    @property
    def prior(self) -> Any:
        """PUCT's prior of each node (float64, by node id; empty under UCT)."""
        return self.extra[PRIOR_ROW]

    def _root_noise(
        self, root_prior: Any, ctl: Any, pending: Pending, config: SearchConfig
    ) -> None:
        """AlphaZero's root noise, or Gumbel search's, as the reference's ``_root_noise``:
        drawn from the engine's generator where the reference draws it (the first choice
        at the expanded root of a search), written to ``root_prior`` by action (Gumbel:
        its noise and Sequential Halving's schedule)."""
        puct = puct_config(config)
        assert self.tree is not None
        children = self._children(ROOT)
        rng = Rng(int(self.rng[0]))
        actions = [int(self.tree.action[ch]) for ch in children]
        if puct.gumbel:
            scale = puct.gumbel_scale
            self._gumbel = {a: scale * rng.gumbel() if scale else 0.0 for a in actions}
            for a, g in self._gumbel.items():
                root_prior[RAW_ROW, a] = g
            iterations = config.iterations or 1
            plan = considered_visits(min(puct.considered, len(children)), iterations - 1)
            pending.halving[: len(plan)] = plan
        else:
            eta = rng.dirichlet(puct.noise_alpha, len(children))
            f = puct.noise_fraction
            for ch, a, e in zip(children, actions, eta, strict=True):
                root_prior[PRIOR_ROW, a] = (1.0 - f) * float(self.prior[ch]) + f * e
            ctl[NOISY] = 1
        self.rng[0] = rng.state
        ctl[NOISE_DUE] = 0

    def root_children(self) -> list[tuple[int, int, float, int | None]]:
        """(action, visits, value sum, proof for player 0) of each root child."""
        if self.tree is None:
            return []
        return [(c.action, c.visits, c.value_sum, c.proven) for c in self._root_children()]

    def _children(self, node: int) -> list[int]:
        """The ids of ``node``'s children, by ascending action."""
        assert self.tree is not None
        first_child, next_sibling = self.tree.first_child, self.tree.next_sibling
        out, ch = [], int(first_child[node])
        while ch >= 0:
            out.append(ch)
            ch = int(next_sibling[ch])
        return out

    def _root_children(self) -> list[RootChild]:
        assert self.tree is not None
        tree = self.tree
        action, visits, value_sum, proven = tree.action, tree.visits, tree.value_sum, tree.proven
        priors = self.prior if self.extra.shape[1] else None
        out = []
        for ch in self._children(0):
            p = int(proven[ch])
            out.append(
                RootChild(
                    int(action[ch]),
                    int(visits[ch]),
                    float(value_sum[ch]),
                    None if p == UNPROVEN else p,
                    None if priors is None else float(priors[ch]),
                )
            )
        return out
