"""An oracle for our PUCT and Gumbel searches: DeepMind's mctx on random game trees.

Read from mctx 0.0.71's source (``mctx/_src/``: policies.py, search.py,
action_selection.py, qtransforms.py, tree.py, seq_halving.py) with jax 0.10.2.
:class:`RandomTree` is a random two-player zero-sum game with a table "network";
:class:`RandomTreeGame` plays it through mctslab's :class:`~mctslab.core.game.State`
protocol; :func:`mctx_muzero` and :func:`mctx_gumbel` search it with mctx (batch 1).

How the tree is given to mctx
=============================

``embedding`` = the node id (int32). ``root_fn``: ``prior_logits = logits[root]``,
``value = value[root]``, ``invalid_actions[a] = 1`` for the root's illegal actions.
``recurrent_fn(params, key, a, node)`` returns the child ``c``'s
``prior_logits[c]``, ``value[c]`` (for the player to move at ``c``) and, on the
edge ``node -a-> c``: ``reward 0, discount -1`` if ``c`` is not terminal (the
players alternate, so the child's value is negated; mctx's README and its
two-player examples use ``discount = -1``); ``reward = return of the player who
moved, value 0, discount 0`` if ``c`` is terminal. mctx has no notion of a
terminal node: a terminal node in its tree is expanded like any other and may be
entered again; below it we give an *absorbing* node (``reward 0, discount 0,
value 0``, zero logits), so a terminal node's ``node_value`` stays ``0`` and
``Q(parent, a) = reward + 0 * 0 = reward`` on every visit: each visit of a
terminal child backs up exactly its reward, as an engine that stops there would.
(mctx spends a tree node on each such visit: the tree holds ``num_simulations + 1``
nodes, one per simulation, so nothing runs out.)

Illegal actions below the root: mctx masks ``invalid_actions`` at the root only
(``muzero_action_selection`` masks with ``root_invalid_actions * (depth == 0)``;
``gumbel_muzero_interior_action_selection`` masks nothing). We give them the logit
``finfo(dtype).min`` (the value mctx's own ``policies._mask_invalid_actions`` uses
at the root), so their prior probability is exactly 0.0; an illegal interior edge
leads to a poison node, and :func:`mctx_search` raises if any simulation expanded
one. It never does, and cannot: PUCT scores an unvisited illegal action ``0 + 0 +
noise < 1e-7`` while every legal action scores at least ``sqrt(N) pb_c P(a) /
(n(a) + 1) >= 1.25 P(a) / sqrt(N)`` (about ``1e-5`` or more for our priors, which
are ``>= e^-4 / 5``, and ``N <= 10**6``); the Gumbel interior rule scores an illegal
action ``0 - 0 = 0`` while the legal scores sum to ``1 / (1 + sum N) > 0``, so one
of them is positive.

Precision: the module turns on ``jax_enable_x64`` (process-wide: nothing else in
mctslab uses jax) and passes float64 tables; mctx then computes in float64
throughout (its tree's ``data_dtype`` is ``root.value.dtype``, logits keep their
dtype, the tie-break noise and Gumbel draws follow the logits' dtype), checked by
:attr:`MctxResult.dtype`. The table's numbers are multiples of 1/64 (exact in
float32 too).

mctx's MuZero (PUCT) search: ``policies.muzero_policy``
=======================================================

Used with ``dirichlet_fraction=0.0``, ``qtransform=partial(qtransform_by_min_max,
min_value, max_value)``, ``temperature=0.0``, ``max_depth=None`` (=
``num_simulations``, never reached).

* Root logits: ``log(max(softmax(logits), tiny))`` (the Dirichlet mix, a no-op at
  fraction 0: ``1 * p + 0 * noise``), then ``_mask_invalid_actions``: minus their
  max, ``finfo.min`` where invalid. The same softmax up to rounding.
* Tree init (``search.instantiate_tree_from_root`` -> ``update_tree_node``): the
  root gets ``node_visits = 1``, ``node_values = raw_values = root value``.
* Each of the ``num_simulations`` simulations (``search.search``): ``simulate``
  descends from the root choosing actions (root rule at depth 0, interior rule
  below) until the chosen action's child is unvisited; ``expand`` calls
  ``recurrent_fn`` on (parent, action), creating node ``sim + 1`` with
  ``node_visits = 1``, ``node_values = raw_values = value`` and storing the edge's
  reward and discount; ``backward`` walks to the root with ``G = node_values[leaf]``
  (the new node's network value) and at each step up: ``G = reward(parent, a) +
  discount(parent, a) * G``; ``V(parent) = (V(parent) * N(parent) + G) /
  (N(parent) + 1)``; ``N(parent) += 1``; ``n(parent, a) += 1``;
  ``children_values[parent, a] = V(child)``.
  Hence for every node ``N(node) = 1 + sum_a n(node, a)`` (the root included: it
  starts with one visit from ``root_fn``) and ``V(node)`` is the plain mean of its
  network value and every ``G`` backed up through it, from the view of the player
  to move at ``node``; ``V(root)`` counts the root's network value as one sample.
* ``Q(node, a) = reward(node, a) + discount(node, a) * V(child)`` (``tree.qvalues``):
  ``-V(child)`` for a non-terminal child, the mover's return for a terminal one.
* ``action_selection.muzero_action_selection`` at ``node``, same rule at the root
  and inside::

      pb_c  = pb_c_init + log((N(node) + pb_c_base + 1) / pb_c_base)
      P     = softmax(children_prior_logits[node])
      U(a)  = sqrt(N(node)) * pb_c * P(a) / (n(a) + 1)
      Qn(a) = (Q(node, a) - min_value) / (max_value - min_value) if n(a) > 0
              else 0   (qtransform_by_min_max: an unvisited child counts as min_value)
      a*    = argmax_a Qn(a) + U(a) + 1e-7 * uniform(key)

  ``N(node)`` is ``1 + sum n``, not ``sum n``: the first simulation from a fresh
  node already picks the largest prior. At the root invalid actions are set to
  ``-inf`` before the argmax (``masked_argmax``); ``jnp.argmax`` takes the lowest
  index among exact ties, but the ``1e-7`` uniform noise (a fresh key per
  simulation and node) breaks exact ties, and may flip near ties, at random: our
  logits are distinct within a node so exact ties are generically impossible.
* Result: ``search_tree.summary().visit_counts`` = ``n(root, .)``. The policy then
  *samples* ``categorical(log(visit_probs) / max(tiny, temperature))``: at
  ``temperature=0`` a most visited action, at random among tied ones. The
  deterministic "most visits, lowest index on ties" is ``argmax(visit_counts)``,
  which :func:`mctx_muzero` returns (``MctxResult.mctx_action`` is mctx's draw).

mctx's Gumbel MuZero search: ``policies.gumbel_muzero_policy``
==============================================================

Defaults: ``qtransform=qtransform_completed_by_mix_value`` (``value_scale=0.1``,
``maxvisit_init=50.0``, ``rescale_values=True``, ``use_mixed_value=True``,
``epsilon=1e-8``), ``max_num_considered_actions=16``, ``gumbel_scale=1.0`` (we use
0.0: no Gumbel noise, the search is then fully deterministic), ``max_depth=None``.
Tree init, expansion, backup, ``N``, ``V`` and ``Q`` as above.

* Root logits: ``_mask_invalid_actions(logits)`` = ``logits - max(logits)``,
  ``finfo.min`` where invalid (no log-softmax here). ``g = gumbel_scale * Gumbel(key)``
  per action (zeros at scale 0).
* Completed Q-values ``sigma(q)`` of a node (``qtransforms.qtransform_completed_by_mix_value``)::

      pi    = max(tiny, softmax(children_prior_logits[node]))
      S     = sum_a n(a)                                  (not N(node) = 1 + S)
      wq    = sum_{n(a)>0} pi(a) Q(a) / sum_{n(a)>0} pi(a)  (0 if S == 0)
      v_mix = (raw_value(node) + S * wq) / (S + 1)          (use_mixed_value;
              else raw_value(node): the node's own network value)
      cq(a) = Q(node, a) if n(a) > 0 else v_mix
      cq    = (cq - min_a cq) / max(max_a cq - min_a cq, 1e-8)   (rescale_values)
      sigma = (maxvisit_init + max_a n(a)) * value_scale * cq

  min and max run over all ``num_actions`` entries, illegal actions included:
  those are unvisited, so they hold ``v_mix``, and ``v_mix`` joins the range even
  when every legal action has been visited (at a node with illegal actions).
* Root rule (``action_selection.gumbel_muzero_root_action_selection``)::

      m     = min(max_num_considered_actions, number of legal root actions)
      table = seq_halving.get_table_of_considered_visits(max_num_considered, num_simulations)
      k     = table[m][sum_a n(root, a)]                (the simulation's index)
      score = max(-1e9, g + (logits - max logits) + sigma(q)) + (0 if n(a) == k else -inf)
      a*    = argmax over legal a (masked_argmax: illegal -> -inf; lowest index on ties)

  ``seq_halving.get_sequence_of_considered_visits(m, n)``: if ``m <= 1``:
  ``0, 1, ..., n-1``; else with ``L = ceil(log2 m)``, ``visits = [0] * m``,
  ``c = m``: repeat until ``n`` entries: ``E = max(1, int(n / (L * c)))`` times
  {append ``visits[:c]``; add 1 to ``visits[:c]``}; ``c = max(2, c // 2)``; truncate
  to ``n``. There is no explicit top-k: the first ``m`` simulations (``k = 0``)
  take the unvisited actions in order of ``g + logits`` (their ``sigma`` is equal:
  all hold ``v_mix``), which is the Gumbel top-m; after that only actions with
  exactly ``k`` visits may be chosen, the best of them by ``g + logits + sigma(q)``,
  so the halving keeps the best ones by the current completed Q.
* Interior rule (``action_selection.gumbel_muzero_interior_action_selection``),
  deterministic, no mask, no noise::

      a* = argmax_a softmax(logits + sigma(q))(a) - n(a) / (1 + sum_b n(b))

  (``logits`` = the node's raw table logits; ``jnp.argmax``: lowest index on ties.)
* Final action: ``k = max_a n(root, a)``; ``argmax`` over legal ``a`` of
  ``max(-1e9, g + logits - max logits + sigma(q)) + (0 if n(a) == k else -inf)``
  with ``sigma`` computed after the last simulation. ``action_weights =
  softmax(masked(logits + sigma(q)))`` (the improved policy, 0 on illegal actions).
"""

from __future__ import annotations

import concurrent.futures
import functools
import math
import multiprocessing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.python_state import PythonState

__all__ = [
    "MctxResult",
    "RandomTree",
    "RandomTreeGame",
    "RandomTreeState",
    "mctx_gumbel",
    "mctx_muzero",
    "mctx_search",
]

#: ``logits[node, a]`` of an illegal action in :attr:`RandomTree.prior_logits`.
ILLEGAL_LOGIT = -math.inf


class RandomTree:
    """A random finite two-player zero-sum game tree and a table "network" for it.

    Nodes are numbered in breadth-first order, the root is ``0``; player 0 moves at
    the root and the players alternate. A non-terminal node has between
    ``min_branching`` and ``max_branching`` (default ``num_actions``) legal
    actions, a random subset of ``range(num_actions)``; a node at depth ``depth`` is
    terminal, and a deeper-than-root node is terminal earlier with probability
    ``terminal_prob``. Terminal nodes have a return in ``{-1, 0, +1}`` for player 0.

    Arrays (``N`` nodes, ``A = num_actions``):

    - ``children[N, A]``: the child's id, ``-1`` for an illegal action or a terminal node;
    - ``player[N]``: the player to move (``-1`` at a terminal node); ``depth_of[N]``;
    - ``terminal[N]`` (bool), ``terminal_return[N]``: player 0's return (0 elsewhere);
    - ``prior_logits[N, A]``: the network's logits, distinct multiples of 1/64 in
      ``[-2, 2]`` for the legal actions, ``-inf`` for the illegal ones, 0 on terminal rows;
    - ``value[N]``: the network's value for the player to move, a multiple of 1/64
      in ``[-1, 1]`` (0 on terminal rows).
    """

    def __init__(
        self,
        seed: int,
        num_actions: int = 5,
        depth: int = 4,
        *,
        min_branching: int = 2,
        max_branching: int | None = None,
        terminal_prob: float = 0.2,
    ) -> None:
        max_branching = num_actions if max_branching is None else max_branching
        if not 2 <= min_branching <= max_branching <= num_actions or depth < 1:
            raise ValueError("need 2 <= min_branching <= max_branching <= num_actions, depth >= 1")
        rng = np.random.default_rng(seed)
        self.seed = seed
        self.num_actions = num_actions
        self.depth = depth
        self.max_branching = max_branching
        children: list[list[int]] = []
        player: list[int] = []
        depth_of: list[int] = []
        terminal: list[bool] = []
        ret: list[float] = []
        logits: list[list[float]] = []
        value: list[float] = []

        def new_node(d: int, p: int) -> int:
            is_terminal = d >= depth or (d > 0 and rng.random() < terminal_prob)
            children.append([-1] * num_actions)
            player.append(-1 if is_terminal else p)
            depth_of.append(d)
            terminal.append(is_terminal)
            row = [0.0] * num_actions
            if is_terminal:
                ret.append(float(rng.integers(-1, 2)))
                value.append(0.0)
            else:
                ret.append(0.0)
                value.append(float(rng.integers(-64, 65)) / 64.0)
                row = [ILLEGAL_LOGIT] * num_actions
            logits.append(row)
            return len(children) - 1

        frontier = [new_node(0, 0)]
        while frontier:
            nxt = []
            for node in frontier:
                if terminal[node]:
                    continue
                k = int(rng.integers(min_branching, max_branching + 1))
                legal = sorted(int(a) for a in rng.choice(num_actions, size=k, replace=False))
                values = rng.choice(np.arange(-128, 129), size=k, replace=False) / 64.0
                for a, lg in zip(legal, values, strict=True):
                    logits[node][a] = float(lg)
                    child = new_node(depth_of[node] + 1, 1 - player[node])
                    children[node][a] = child
                    nxt.append(child)
            frontier = nxt

        self.children = np.array(children, dtype=np.int64)
        self.player = np.array(player, dtype=np.int64)
        self.depth_of = np.array(depth_of, dtype=np.int64)
        self.terminal = np.array(terminal, dtype=bool)
        self.terminal_return = np.array(ret, dtype=np.float64)
        self.prior_logits = np.array(logits, dtype=np.float64)
        self.value = np.array(value, dtype=np.float64)

    @property
    def num_nodes(self) -> int:
        return len(self.player)

    def legal_actions(self, node: int) -> list[int]:
        """The legal actions at ``node``, ascending (empty at a terminal node)."""
        return [int(a) for a in np.flatnonzero(self.children[node] >= 0)]

    def returns(self, node: int) -> list[float]:
        """``[r, -r]`` at a terminal node (``r`` player 0's return), zeros elsewhere."""
        r = float(self.terminal_return[node]) if self.terminal[node] else 0.0
        return [r, -r]

    def node_of(self, actions: Sequence[int]) -> int:
        """The node reached by ``actions`` from the root (``ValueError`` if illegal)."""
        node = 0
        for a in actions:
            child = int(self.children[node, a]) if 0 <= a < self.num_actions else -1
            if child < 0:
                raise ValueError(f"action {a} is not legal at node {node}")
            node = child
        return node

    def game(self) -> RandomTreeGame:
        return RandomTreeGame(self)

    def __repr__(self) -> str:
        return (
            f"RandomTree(seed={self.seed}, num_actions={self.num_actions}, "
            f"depth={self.depth}, nodes={self.num_nodes})"
        )


class RandomTreeGame:
    """A :class:`RandomTree` as an mctslab game (``check_game`` passes)."""

    def __init__(self, tree: RandomTree) -> None:
        self.tree = tree
        self.info = GameInfo(
            name=f"random_tree_{tree.seed}",
            version=1,
            num_players=2,
            num_actions=tree.num_actions,
            max_game_length=tree.depth,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )

    def new_initial_state(self) -> RandomTreeState:
        return RandomTreeState(self)

    def state_from_actions(self, actions: Sequence[int]) -> RandomTreeState:
        state = self.new_initial_state()
        for a in actions:
            state.apply_action(a)
        return state

    def __repr__(self) -> str:
        return f"RandomTreeGame({self.tree!r})"


class RandomTreeState(PythonState[RandomTreeGame]):
    """A node of a :class:`RandomTree`; ``node`` is its id."""

    __slots__ = ("node",)

    def __init__(self, game: RandomTreeGame) -> None:
        super().__init__(game)
        self.node = 0

    def current_player(self) -> int:
        tree = self._game.tree
        return TERMINAL if tree.terminal[self.node] else int(tree.player[self.node])

    def legal_actions(self) -> list[int]:
        return self._game.tree.legal_actions(self.node)

    def _apply_action(self, action: int) -> None:
        tree = self._game.tree
        if not 0 <= action < tree.num_actions or tree.children[self.node, action] < 0:
            raise self.illegal_action(action)
        self.node = int(tree.children[self.node, action])

    def returns(self) -> list[float]:
        return self._game.tree.returns(self.node)

    def is_terminal(self) -> bool:
        return bool(self._game.tree.terminal[self.node])

    def key(self) -> int:
        return self.node

    def __str__(self) -> str:
        tree = self._game.tree
        if tree.terminal[self.node]:
            return f"node {self.node} (terminal, returns {self.returns()})"
        return f"node {self.node} (player {tree.player[self.node]} to move)"


# -- mctx ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MctxResult:
    """What one mctx search gives (batch 1, as numpy).

    ``action``: the deterministic choice (MuZero: most visits, lowest index on
    ties; Gumbel: mctx's own action, deterministic at ``gumbel_scale=0``);
    ``mctx_action``: the action mctx's policy returned; ``visit_counts[A]`` at the
    root; ``action_weights[A]`` (MuZero: visit probabilities; Gumbel: the improved
    policy); ``root_value``: ``V(root)``; ``qvalues[A]``: ``Q(root, a)`` (garbage
    for unvisited ``a``); ``dtype``: the dtype mctx's tree computed in.
    """

    action: int
    mctx_action: int
    visit_counts: np.ndarray
    action_weights: np.ndarray
    root_value: float
    qvalues: np.ndarray
    dtype: str


_DTYPE = np.float64


def _jax() -> tuple[Any, Any, Any]:
    import jax
    import jax.numpy as jnp
    import mctx

    jax.config.update("jax_enable_x64", True)
    return jax, jnp, mctx


def _capacity(tree: RandomTree) -> int:
    """Table rows: room for the largest tree of these parameters plus two spare rows,
    rounded up to a power of two, so trees of one shape share one compilation."""
    most = sum(tree.max_branching**d for d in range(tree.depth + 1))
    return 1 << (most + 2 - 1).bit_length()


@functools.lru_cache(maxsize=64)
def _tables(tree: RandomTree) -> dict[str, np.ndarray]:
    """The padded tables ``recurrent_fn`` reads: rows ``0..N-1`` the nodes,
    ``C-2`` the poison node of an illegal edge, ``C-1`` the absorbing node."""
    n, a_count = tree.num_nodes, tree.num_actions
    cap = _capacity(tree)
    poison, absorb = cap - 2, cap - 1
    child = np.full((cap, a_count), absorb, dtype=np.int32)
    child[poison] = poison
    logits = np.zeros((cap, a_count), dtype=_DTYPE)
    value = np.zeros(cap, dtype=_DTYPE)
    reward = np.zeros((cap, a_count), dtype=_DTYPE)
    discount = np.zeros((cap, a_count), dtype=_DTYPE)
    min_logit = np.finfo(_DTYPE).min
    for node in range(n):
        if tree.terminal[node]:
            continue  # its children: the absorbing node, reward 0, discount 0
        value[node] = tree.value[node]
        mover = int(tree.player[node])
        for a in range(a_count):
            c = int(tree.children[node, a])
            if c < 0:
                child[node, a] = poison
                logits[node, a] = min_logit
                continue
            child[node, a] = c
            logits[node, a] = tree.prior_logits[node, a]
            if tree.terminal[c]:
                r0 = float(tree.terminal_return[c])
                reward[node, a] = r0 if mover == 0 else -r0
                discount[node, a] = 0.0
            else:
                discount[node, a] = -1.0
    root_invalid = (tree.children[0] < 0).astype(_DTYPE)[None, :]
    return {
        "child": child,
        "logits": logits,
        "value": value,
        "reward": reward,
        "discount": discount,
        "root_invalid": root_invalid,
    }


@functools.cache
def _search_fn(policy: str, num_simulations: int, static: tuple[Any, ...]) -> Any:
    """One jitted search per policy and static configuration; the tables, the PUCT
    constants, the value bounds and ``gumbel_scale`` are traced arguments, so trees of
    the same ``num_actions`` and table capacity reuse one compilation."""
    jax, jnp, mctx = _jax()

    def recurrent_fn(params: Any, rng_key: Any, action: Any, embedding: Any) -> Any:
        del rng_key
        child = params["child"][embedding, action]
        out = mctx.RecurrentFnOutput(
            reward=params["reward"][embedding, action],
            discount=params["discount"][embedding, action],
            prior_logits=params["logits"][child],
            value=params["value"][child],
        )
        return out, child

    def run(tables: Any, knobs: Any, rng_key: Any) -> Any:
        root = mctx.RootFnOutput(
            prior_logits=tables["logits"][0][None, :],
            value=tables["value"][0][None],
            embedding=jnp.zeros((1,), dtype=jnp.int32),
        )
        if policy == "muzero":
            qtransform = functools.partial(
                mctx.qtransform_by_min_max,
                min_value=knobs["min_value"],
                max_value=knobs["max_value"],
            )
            out = mctx.muzero_policy(
                tables,
                rng_key,
                root,
                recurrent_fn,
                num_simulations,
                invalid_actions=tables["root_invalid"],
                qtransform=qtransform,
                dirichlet_fraction=0.0,
                pb_c_init=knobs["pb_c_init"],
                pb_c_base=knobs["pb_c_base"],
                temperature=0.0,
            )
        else:
            max_considered, value_scale, maxvisit_init, rescale_values, use_mixed = static
            qtransform = functools.partial(
                mctx.qtransform_completed_by_mix_value,
                value_scale=value_scale,
                maxvisit_init=maxvisit_init,
                rescale_values=rescale_values,
                use_mixed_value=use_mixed,
            )
            out = mctx.gumbel_muzero_policy(
                tables,
                rng_key,
                root,
                recurrent_fn,
                num_simulations,
                invalid_actions=tables["root_invalid"],
                qtransform=qtransform,
                max_num_considered_actions=max_considered,
                gumbel_scale=knobs["gumbel_scale"],
            )
        tree = out.search_tree
        summary = tree.summary()
        return {
            "action": out.action[0],
            "visit_counts": summary.visit_counts[0],
            "action_weights": out.action_weights[0],
            "root_value": summary.value[0],
            "qvalues": summary.qvalues[0],
            "embeddings": tree.embeddings[0],
            "node_values": tree.node_values[0],
        }

    return jax.jit(run)


def mctx_search(tree: RandomTree, policy: str, num_simulations: int, **options: Any) -> MctxResult:
    """:func:`search_here` (same arguments) in a spawned child process that alone imports
    jax: JAX starts threads, and a pytest worker that imported it would later fork
    (root parallelism's and the arena's worker processes) with those threads running,
    which may deadlock. One child serves every call (jax compiles once)."""
    global _POOL
    if _POOL is None:
        _POOL = concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")
        )
    return _POOL.submit(search_here, tree, policy, num_simulations, **options).result()


_POOL: concurrent.futures.ProcessPoolExecutor | None = None


def search_here(
    tree: RandomTree,
    policy: str,
    num_simulations: int,
    *,
    pb_c_init: float = 1.25,
    pb_c_base: float = 19652.0,
    min_value: float = -1.0,
    max_value: float = 1.0,
    max_num_considered_actions: int = 16,
    gumbel_scale: float = 0.0,
    value_scale: float = 0.1,
    maxvisit_init: float = 50.0,
    rescale_values: bool = True,
    use_mixed_value: bool = True,
    rng_seed: int = 0,
) -> MctxResult:
    """Search ``tree`` from its root with mctx's ``policy`` (``"muzero"`` or ``"gumbel"``).

    Raises ``AssertionError`` if a simulation took an illegal action below the root
    (never seen; see the module's docstring) or mctx did not compute in float64.
    """
    jax, jnp, _ = _jax()
    if policy not in ("muzero", "gumbel"):
        raise ValueError(f"policy must be 'muzero' or 'gumbel', got {policy!r}")
    if policy == "muzero":
        static: tuple[Any, ...] = ()
        knobs = {
            "pb_c_init": pb_c_init,
            "pb_c_base": pb_c_base,
            "min_value": min_value,
            "max_value": max_value,
        }
    else:
        static = (
            int(max_num_considered_actions),
            float(value_scale),
            float(maxvisit_init),
            bool(rescale_values),
            bool(use_mixed_value),
        )
        knobs = {"gumbel_scale": gumbel_scale}
    knobs = {k: jnp.asarray(v, dtype=_DTYPE) for k, v in knobs.items()}
    tables = _tables(tree)
    fn = _search_fn(policy, int(num_simulations), static)
    out = jax.device_get(fn(tables, knobs, jax.random.PRNGKey(rng_seed)))
    poison = tables["child"].shape[0] - 2
    if np.any(out["embeddings"] == poison):
        raise AssertionError(f"mctx took an illegal action below the root of {tree!r}")
    dtype = str(out["node_values"].dtype)
    if dtype != "float64":
        raise AssertionError(f"mctx computed in {dtype}, not float64")
    visits = np.asarray(out["visit_counts"]).round().astype(np.int64)
    mctx_action = int(out["action"])
    action = int(np.argmax(visits)) if policy == "muzero" else mctx_action
    return MctxResult(
        action=action,
        mctx_action=mctx_action,
        visit_counts=visits,
        action_weights=np.asarray(out["action_weights"]),
        root_value=float(out["root_value"]),
        qvalues=np.asarray(out["qvalues"]),
        dtype=dtype,
    )


def mctx_muzero(
    tree: RandomTree,
    num_simulations: int,
    pb_c_init: float = 1.25,
    pb_c_base: float = 19652.0,
    min_value: float = -1.0,
    max_value: float = 1.0,
    *,
    rng_seed: int = 0,
) -> tuple[int, np.ndarray]:
    """``mctx.muzero_policy`` on ``tree``: ``(most visited root action, lowest index on
    ties; root visit counts[num_actions])``. ``rng_seed`` only feeds mctx's 1e-7
    tie-break noise (and its final draw, which is not returned)."""
    r = mctx_search(
        tree,
        "muzero",
        num_simulations,
        pb_c_init=pb_c_init,
        pb_c_base=pb_c_base,
        min_value=min_value,
        max_value=max_value,
        rng_seed=rng_seed,
    )
    return r.action, r.visit_counts


def mctx_gumbel(
    tree: RandomTree,
    num_simulations: int,
    max_num_considered_actions: int = 16,
    gumbel_scale: float = 0.0,
    *,
    value_scale: float = 0.1,
    maxvisit_init: float = 50.0,
    rescale_values: bool = True,
    use_mixed_value: bool = True,
    rng_seed: int = 0,
) -> tuple[int, np.ndarray, np.ndarray]:
    """``mctx.gumbel_muzero_policy`` on ``tree`` (qtransform
    ``qtransform_completed_by_mix_value`` with the given options, mctx's defaults):
    ``(action, root visit counts[num_actions], action_weights[num_actions])``."""
    r = mctx_search(
        tree,
        "gumbel",
        num_simulations,
        max_num_considered_actions=max_num_considered_actions,
        gumbel_scale=gumbel_scale,
        value_scale=value_scale,
        maxvisit_init=maxvisit_init,
        rescale_values=rescale_values,
        use_mixed_value=use_mixed_value,
        rng_seed=rng_seed,
    )
    return r.action, r.visit_counts, r.action_weights
