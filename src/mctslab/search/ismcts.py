"""Searching games with hidden information: determinized UCT (PIMC) and Information Set MCTS.

A player of a card game does not know the state, only its *information set*:
the states it cannot tell apart. Both searches here work on *determinizations*,
full states drawn from that set (``resample_from_infostate``, see
:mod:`mctslab.core.infoset`); they differ in what they build from them.

**PIMC / determinized UCT** (perfect information Monte Carlo; Ginsberg's GIB,
2001; Long et al. 2010, "Understanding the success of perfect information Monte
Carlo sampling in game tree search"): draw ``determinizations`` worlds, search
each as a game of perfect information with the reference UCT engine (the
budget split evenly), add up the root statistics, play the most visited move.
Known flaws: *strategy fusion* (each world's search assumes it will know the
world later) and *non-locality*. ``chance="fixed"`` determinizes the future too
(dice determinization, :mod:`mctslab.core.fixed_chance`): each world also fixes the
outcomes of the chance nodes below the root, so its search is of a deterministic
game; by default (``"sampled"``) each world's UCT samples them as it goes.

**Information Set MCTS** (Cowling, Powley and Whitehouse 2012, "Information set
Monte Carlo tree search", IEEE TCIAIG 4(2)) grows one tree whose nodes are
information sets. Each iteration draws one determinization ``d`` and walks the
tree with it, restricted to the actions legal in ``d``:

1. :func:`select`: while every action legal in ``d`` has an edge, pick by UCB1
   with *availability counts*::

       Q(a) / N(a) + c * sqrt(ln A(a) / N(a))

   where ``A(a)`` counts the visits of the node in which ``a`` was legal (an
   action legal in few worlds is not penalised for the worlds it was absent
   from). Chance nodes of ``d`` are sampled by their probabilities.
2. :func:`expand`: add an edge for one untried legal action of ``d``, at random.
3. :func:`simulate`: random playout of ``d`` to the end.
4. :func:`backpropagate`: each edge on the path adds the reward of the player
   who took it (max^n: any number of players).

Two trees of information sets (``variant``):

- ``"so"`` (single observer, SO-ISMCTS): every node is an information set of
  the *searching* player: the key is its information state (and who is to
  move). Opponents choose in nodes that do not know their own cards.
- ``"mo"`` (multiple observer, MO-ISMCTS): the player to move chooses in a node
  keyed by *its own* information state, so opponents' choices depend on their
  hands as the game lets them. mctslab keys one table by (player, information
  state), which is MO-ISMCTS's one-tree-per-player for games whose actions are
  public (every built-in game); a hidden action would be told apart by the
  observers who see it and merged for the others in Cowling et al.'s version.

**Smooth UCT** (Heinrich and Silver 2015, "Smooth UCT search in computer
poker", IJCAI): ``smooth=True``: at a fully expanded node, choose by UCB with
probability ``eta_k = max(gamma, eta / (1 + d * sqrt(N)))``, otherwise sample
an action from the node's *average strategy* ``N(a) / N``. Plain UCT's visit
counts need not approach a Nash equilibrium in imperfect-information games;
Smooth UCT's average strategy does in poker (empirically, as fictitious play).

The policy a search plays is :meth:`ISMCTSResult.policy` (root visit counts
normalised, the average strategy) or, for moves, the final-move rule.

ISMCTS shares the reference engine's formula
(:func:`~mctslab.search.reference.selection.uct_score` and
:func:`~mctslab.search.reference.selection.exploration`, here over availability counts)
and its reward scale (:func:`~mctslab.search.reference.tree.scaled_rewards`), but not its
phase functions (:mod:`mctslab.search.reference.phases`): those walk a tree of positions, each node
holding its state, its sorted children and their statistics, while an ISMCTS node is an
information set met by many states, found in a table by its key, with one statistic per
edge and the legal actions of the current determinization as its only children; and
its playout is uniform over the legal actions, where the reference engine plays a
game's own light moves (Go's, say), which would change ISMCTS's random draws.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from mctslab.core.errors import InvalidConfigError
from mctslab.core.fixed_chance import ChanceStream, FixedChanceState
from mctslab.core.game import CHANCE, GameInfo, OpponentModel, State, sample_chance_outcome
from mctslab.core.infoset import determinize, information_key
from mctslab.core.options import check_options, option
from mctslab.core.rng import Rng
from mctslab.search.budget import Budget
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS, game_info_of
from mctslab.search.options import check_budget
from mctslab.search.reference.selection import exploration, uct_score
from mctslab.search.reference.tree import scaled_rewards
from mctslab.search.result import ChildStats, SearchResult

__all__ = [
    "ISMCTS",
    "PIMC",
    "ISMCTSConfig",
    "InfoNode",
    "PIMCConfig",
    "backpropagate",
    "expand",
    "iterate",
    "select",
    "self_play",
    "simulate",
    "visit_policy",
]

Variant = Literal["so", "mo"]
FinalRule = Literal["robust", "max", "sample"]
ChanceRule = Literal["sampled", "fixed"]


@dataclass(frozen=True)
class ISMCTSConfig:
    """Every option of an Information Set MCTS search; checked on construction.

    Attributes:
        c: UCB1 exploration constant on rewards in ``[0, 1]`` (Cowling et al. use 0.7).
        variant: ``"so"`` (single observer) or ``"mo"`` (multiple observer).
        smooth: Smooth UCT (Heinrich and Silver 2015) at fully expanded nodes.
        eta, gamma, d: Smooth UCT's schedule ``eta_k = max(gamma, eta / (1 + d sqrt(N)))``,
            the probability of choosing by UCB rather than by the average strategy
            (the schedule's form is Heinrich and Silver's; the defaults 0.9, 0.1 and
            0.002 are mctslab's, chosen on Kuhn poker, where d from 0.001 to 0.01 gave
            the same exploitability within noise).
        final: move played: ``"robust"`` (most visits), ``"max"`` (best mean) or
            ``"sample"`` (drawn from the root's average strategy, as Smooth UCT's
            policy plays).
        iterations: iteration budget (``None``: no limit).
        time: wall-clock budget in seconds (``None``: no limit).
        seed: seed of every random choice (determinizations, expansion, playouts).
    """

    c: float = option(0.7, "UCB1's exploration constant on rewards in [0, 1]", low=0)
    variant: Variant = option("so", "the tree: so (single observer) or mo (multiple observer)")
    smooth: bool = option(False, "Smooth UCT at fully expanded nodes", check=False)
    eta: float = option(0.9, "Smooth UCT's eta: the schedule's start", low=0, high=1)
    gamma: float = option(0.1, "Smooth UCT's gamma: the schedule's floor", low=0, high=1)
    d: float = option(0.002, "Smooth UCT's d: how fast the schedule falls", check=False)
    final: FinalRule = option(
        "robust", "move played: robust (most visits), max (best mean) or sample"
    )
    iterations: int | None = option(
        1000,
        "iteration budget (none: no limit)",
        aliases=("iters", "n", "simulations"),
        check=False,
    )
    time: float | None = option(None, "wall-clock budget in seconds (none: no limit)", check=False)
    seed: int = option(0, "seed of every random choice")

    def __post_init__(self) -> None:
        where = "ismcts config"
        check_options(self, where)  # c, variant, eta, gamma, final, seed, as declared
        if not isinstance(self.d, int | float) or not 0 <= self.d < 1e6:
            raise InvalidConfigError(f"{where}: d must be a number >= 0, got {self.d!r}")
        check_budget(where, self.iterations, self.time)


class InfoNode:
    """A node of the ISMCTS tree: an information set of ``player`` (the player to move).

    Per action (edge): ``visits[a]``, ``value_sum[a]`` (sum of ``player``'s rewards
    in ``[0, 1]``) and ``avail[a]`` (visits of this node in which ``a`` was legal).
    ``total`` counts the node's visits (the sum of its edges' visits).
    """

    __slots__ = ("avail", "player", "total", "value_sum", "visits")

    def __init__(self, player: int) -> None:
        self.player = player
        self.visits: dict[int, int] = {}
        self.value_sum: dict[int, float] = {}
        self.avail: dict[int, int] = {}
        self.total = 0

    def __repr__(self) -> str:
        return f"InfoNode(player={self.player}, N={self.total}, edges={len(self.visits)})"


@dataclass(frozen=True)
class _Step:
    node: InfoNode
    action: int


class _Search:
    """What one search works on: the table of information sets, the root, the generator."""

    def __init__(
        self,
        state: State,
        info: GameInfo,
        config: ISMCTSConfig,
        rng: Rng,
        model: OpponentModel | None,
    ) -> None:
        self.state = state
        self.info = info
        self.config = config
        self.rng = rng
        self.model = model
        self.player = state.current_player()
        self.table: dict[Hashable, InfoNode] = {}
        # A search from the start of the game (a chance node: self-play) has no root node.
        self.root = self.node(state) if self.player >= 0 else InfoNode(CHANCE)

    def key(self, state: State) -> Hashable:
        """The information set of the player to move (SO: as the searcher sees it)."""
        p = state.current_player()
        observer = self.player if self.config.variant == "so" else p
        return (p, information_key(state, observer))

    def node(self, state: State) -> InfoNode:
        key = self.key(state)
        node = self.table.get(key)
        if node is None:
            node = self.table[key] = InfoNode(state.current_player())
        return node


def _ucb_choice(node: InfoNode, legal: list[int], c: float) -> int:
    """UCB1 with availability counts over the legal actions (all have edges); ties: lowest."""
    best, best_value = legal[0], -math.inf
    for a in legal:
        value = uct_score(node.value_sum[a], node.visits[a], exploration(c, node.avail[a]))
        if value > best_value:
            best, best_value = a, value
    return best


def _average_choice(node: InfoNode, legal: list[int], rng: Rng) -> int:
    """An action drawn from the node's average strategy ``N(a) / N`` restricted to ``legal``."""
    total = sum(node.visits[a] for a in legal)
    x = rng.random() * total
    for a in legal:
        x -= node.visits[a]
        if x < 0:
            return a
    return legal[-1]


def select(search: _Search, world: State) -> tuple[list[_Step], InfoNode | None]:
    """Phase 1: walk the tree with determinization ``world`` (changed in place) while every
    action legal in it has an edge; chance is sampled. Returns the path and the node at
    which it stopped with untried actions (``None`` if the world ended first)."""
    config, rng = search.config, search.rng
    path: list[_Step] = []
    while True:
        p = world.current_player()
        if p == CHANCE:
            world.apply_action(sample_chance_outcome(world, rng))
            continue
        if world.is_terminal():
            return path, None
        node = search.node(world)
        legal = world.legal_actions()
        visits, avail = node.visits, node.avail
        untried = False
        for a in legal:
            if a in visits:
                avail[a] += 1
            else:
                untried = True
        if untried:
            return path, node
        if config.smooth:
            n = node.total
            eta = max(config.gamma, config.eta / (1.0 + config.d * math.sqrt(n)))
            if rng.random() < eta:
                action = _ucb_choice(node, legal, config.c)
            else:
                action = _average_choice(node, legal, rng)
        else:
            action = _ucb_choice(node, legal, config.c)
        path.append(_Step(node, action))
        world.apply_action(action)


def expand(search: _Search, node: InfoNode, world: State, path: list[_Step]) -> None:
    """Phase 2: add an edge for one untried action legal in ``world`` (drawn at random)
    and play it."""
    untried = [a for a in world.legal_actions() if a not in node.visits]
    action = untried[search.rng.randint(len(untried))]
    node.visits[action] = 0
    node.value_sum[action] = 0.0
    node.avail[action] = 1
    path.append(_Step(node, action))
    world.apply_action(action)


def simulate(search: _Search, world: State) -> list[float]:
    """Phase 3: uniformly random playout of ``world`` (chance by its probabilities);
    each player's reward in ``[0, 1]``."""
    rng = search.rng
    while not world.is_terminal():
        if world.current_player() == CHANCE:
            world.apply_action(sample_chance_outcome(world, rng))
        else:
            legal = world.legal_actions()
            world.apply_action(legal[rng.randint(len(legal))])
    return scaled_rewards(world.returns(), search.info)


def backpropagate(path: list[_Step], rewards: list[float]) -> None:
    """Phase 4: every edge on the path counts the visit and adds its mover's reward."""
    for step in path:
        node, a = step.node, step.action
        node.visits[a] += 1
        node.value_sum[a] += rewards[node.player]
        node.total += 1


@dataclass(frozen=True)
class ISMCTSResult(SearchResult):
    """A :class:`~mctslab.search.result.SearchResult` of an ISMCTS search (``nodes`` counts the
    information sets in the tree), with the root's average strategy."""

    def policy(self) -> dict[int, float]:
        """The root's average strategy: visit counts normalised."""
        return visit_policy(self)


def visit_policy(result: SearchResult) -> dict[int, float]:
    """Root visit counts normalised to probabilities (uniform if nothing was visited)."""
    total = sum(ch.visits for ch in result.children)
    if total == 0:
        return {ch.action: 1.0 / len(result.children) for ch in result.children}
    return {ch.action: ch.visits / total for ch in result.children}


def _pick(children: tuple[ChildStats, ...], final: str, rng: Rng) -> ChildStats:
    if final == "max":
        seen = [ch for ch in children if ch.visits] or list(children)
        return max(seen, key=lambda ch: (ch.value, ch.visits, -ch.action))
    if final == "sample":
        total = sum(ch.visits for ch in children)
        x = rng.random() * total
        for ch in children:
            x -= ch.visits
            if x < 0:
                return ch
    return max(children, key=lambda ch: (ch.visits, ch.value, -ch.action))


def _start(state: State, game_info: GameInfo | None) -> GameInfo:
    if state.is_terminal():
        raise InvalidConfigError("cannot search a terminal state: the game is over")
    if state.current_player() == CHANCE:
        raise InvalidConfigError(
            "cannot search a chance node: no player chooses here (sample an outcome)"
        )
    return _info(state, game_info)


def _info(state: State, game_info: GameInfo | None) -> GameInfo:
    return game_info if game_info is not None else game_info_of(state)


def _child_stats(
    actions: list[int], visits: dict[int, int], sums: dict[int, float], info: GameInfo
) -> tuple[ChildStats, ...]:
    span = info.max_utility - info.min_utility
    return tuple(
        ChildStats(
            action=a,
            visits=visits.get(a, 0),
            value=info.min_utility + span * sums[a] / visits[a] if visits.get(a) else 0.0,
            proven=None,
        )
        for a in actions
    )


def iterate(search: _Search, world: State) -> None:
    """One iteration on determinization ``world``: the four phases in order."""
    path, node = select(search, world)
    if node is not None:
        expand(search, node, world, path)
    rewards = simulate(search, world)
    backpropagate(path, rewards)


def self_play(
    state: State, config: ISMCTSConfig, game_info: GameInfo | None = None
) -> dict[Hashable, InfoNode]:
    """MO-ISMCTS in self-play from ``state`` (typically the start of the game, a chance
    node): ``config.iterations`` iterations on one table of every player's information
    sets, as Heinrich and Silver (2015) run Smooth UCT. Returns the table, keyed by
    ``(player, information state)``; each node's visit counts are that player's average
    strategy there (:func:`mctslab.analysis.player_policy.self_play_policy` reads them).

    ``state`` must be a full state that every player may have reached: the start of
    the game, or a public position; its chance nodes are sampled, never resampled.
    """
    if config.variant != "mo":
        raise InvalidConfigError(
            "self-play keys every player's nodes by that player's information: variant='mo'"
        )
    if state.is_terminal():
        raise InvalidConfigError("cannot search a terminal state: the game is over")
    if config.iterations is None:
        raise InvalidConfigError("self-play needs an iteration budget")
    info = _info(state, game_info)
    search = _Search(state, info, config, Rng(config.seed), None)
    for _ in range(config.iterations):
        iterate(search, state.clone())
    return search.table


class ISMCTS:
    """Information Set MCTS (SO or MO, optionally Smooth UCT); a fresh tree per search.

    >>> import mctslab
    >>> game = mctslab.make("kuhn_poker")
    >>> state = game.state_from_actions([0, 2, 1])  # J and K dealt, player 0 bets
    >>> ISMCTS(ISMCTSConfig(iterations=2000, seed=1)).search(state).action  # the king calls
    1
    """

    def __init__(self, config: ISMCTSConfig | None = None, model: OpponentModel | None = None):
        self.config = config or ISMCTSConfig()
        self.model = model
        self.rng = Rng(self.config.seed)
        self.last: _Search | None = None

    def search(self, state: State, game_info: GameInfo | None = None) -> ISMCTSResult:
        """Search from the information set of the player to move in ``state``.

        Only ``state.resample_from_infostate(player, ...)`` is read of ``state``'s
        hidden part: the search sees what the player to move may know.
        """
        info = _start(state, game_info)
        config, rng = self.config, self.rng
        search = _Search(state, info, config, rng, self.model)
        self.last = search
        legal = state.legal_actions()
        budget = Budget(config.iterations, config.time)
        start = time.perf_counter()
        iterations = 0
        while True:
            seconds = time.perf_counter() - start if budget.timed else 0.0
            stop = budget.stop(iterations, seconds, agree=lambda: True)
            if stop is not None:
                stopped_by = stop
                break
            iterate(search, determinize(state, search.player, rng, self.model))
            iterations += 1
        seconds = time.perf_counter() - start
        root = search.root
        children = _child_stats(legal, root.visits, root.value_sum, info)
        total = sum(root.visits.values())
        value_sum = sum(root.value_sum.values())
        span = info.max_utility - info.min_utility
        chosen = _pick(children, config.final, rng)
        return ISMCTSResult(
            action=chosen.action,
            value=info.min_utility + span * value_sum / total if total else 0.0,
            children=children,
            iterations=iterations,
            nodes=len(search.table),
            seconds=seconds,
            sims_per_s=iterations / seconds if seconds > 0 else 0.0,
            proven=None,
            player=search.player,
            final_rule=config.final,
            stopped_by=stopped_by,
        )


@dataclass(frozen=True)
class PIMCConfig:
    """Determinized UCT: ``determinizations`` worlds, each searched with ``iterations /
    determinizations`` UCT iterations (at least one), root statistics summed.

    ``time`` (seconds) replaces the iteration budget when given: each world gets an
    equal share of it. ``c`` is UCT's constant on rewards in ``[0, 1]``; ``seed``
    seeds the worlds and the searches.

    ``chance``: what a world fixes of the chance nodes below the root (dice, later
    deals). ``"sampled"`` (the default): nothing, each world's UCT keeps them as chance
    nodes and samples their outcomes as it goes. ``"fixed"``: dice determinization, the
    world also draws a stream of numbers that decides every chance node below the root
    (:class:`~mctslab.core.fixed_chance.FixedChanceState`), and UCT searches that
    deterministic game: a search that knows how the dice will fall.
    """

    determinizations: int = option(10, "worlds drawn and searched", low=1, high=100_000)
    c: float = option(0.7, "UCT's exploration constant on rewards in [0, 1]", low=0)
    iterations: int | None = option(
        1000,
        "iteration budget, shared by the worlds (none: no limit)",
        aliases=("iters", "n", "simulations"),
        check=False,
    )
    time: float | None = option(None, "wall-clock budget in seconds (none: no limit)", check=False)
    seed: int = option(0, "seed of the worlds and the searches")
    chance: ChanceRule = option(
        "sampled", "what a world fixes of the chance nodes below the root: sampled or fixed"
    )

    def __post_init__(self) -> None:
        where = "pimc config"
        check_options(self, where)  # determinizations, c, seed, chance, as declared
        check_budget(where, self.iterations, self.time)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class PIMC:
    """Perfect information Monte Carlo: UCT on determinizations, root statistics summed."""

    def __init__(self, config: PIMCConfig | None = None, model: OpponentModel | None = None):
        self.config = config or PIMCConfig()
        self.model = model
        self.rng = Rng(self.config.seed)

    def search(self, state: State, game_info: GameInfo | None = None) -> SearchResult:
        """Search ``determinizations`` worlds drawn for the player to move (with
        ``chance="fixed"``, each with its own stream of chance outcomes)."""
        info = _start(state, game_info)
        config, rng = self.config, self.rng
        player = state.current_player()
        legal = state.legal_actions()
        n = config.determinizations
        share = None if config.iterations is None else max(1, config.iterations // n)
        seconds_each = None if config.time is None else config.time / n
        visits: dict[int, int] = {}
        sums: dict[int, float] = {}
        span = info.max_utility - info.min_utility
        start = time.perf_counter()
        iterations = nodes = 0
        for _ in range(n):
            world: State = determinize(state, player, rng, self.model)
            if config.chance == "fixed":
                world = FixedChanceState(world, ChanceStream(rng.next_u64() >> 1))
            sub = SearchConfig(
                c=config.c,
                iterations=share,
                time=seconds_each,
                seed=rng.next_u64() >> 1,
                reuse_tree=False,
            )
            result = MCTS(sub).search(world, info)
            iterations += result.iterations
            nodes += result.nodes
            for ch in result.children:
                visits[ch.action] = visits.get(ch.action, 0) + ch.visits
                mean = (ch.value - info.min_utility) / span
                sums[ch.action] = sums.get(ch.action, 0.0) + mean * ch.visits
        seconds = time.perf_counter() - start
        children = _child_stats(legal, visits, sums, info)
        chosen = _pick(children, "robust", rng)
        total = sum(visits.values())
        return SearchResult(
            action=chosen.action,
            value=info.min_utility + span * sum(sums.values()) / total if total else 0.0,
            children=children,
            iterations=iterations,
            nodes=nodes,
            seconds=seconds,
            sims_per_s=iterations / seconds if seconds > 0 else 0.0,
            proven=None,
            player=player,
            final_rule="robust",
            stopped_by="time" if config.time is not None else "iterations",
        )
