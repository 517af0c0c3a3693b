"""Self-play for training: many games at once, each move a batched compiled PUCT search
whose leaves are evaluated by the network in one call per round for every game
(:func:`~mctslab.search.compiled.search_many`), as AlphaZero's actors batch theirs.

Per game (Silver et al. 2017, 2018):

- every move is a PUCT search of ``simulations`` simulations with Dirichlet noise
  ``Dir(alpha)`` mixed into the root priors with weight ``noise_fraction``; the tree
  under the moves played is kept (tree reuse);
- the move is drawn in proportion to the root's visit counts for the first
  ``temperature_plies`` plies (temperature 1), then the most visited move is played
  (temperature -> 0);
- each position gives a training example: the observation of the player to move, the
  legal moves, the visit distribution ``pi`` (the policy target) and, once the game is
  over, the outcome ``z`` for that player; the value target is ``z``, or with
  ``value_mix = lambda > 0`` the mix ``(1 - lambda) z + lambda q`` with ``q`` the search's
  root value for that player (the mix of outcome and search value that KataGo and the
  "AlphaZero value target" studies found to learn faster than ``z`` alone on small
  budgets: ``z`` is one noisy game's result, ``q`` is biased by the network but not noisy);
- resignation (optional): a player whose root value falls below ``-resign_threshold``
  resigns and loses. A share ``resign_playout`` of games is played to the end anyway:
  there, a player that would have resigned and then did not lose counts as a *false
  resignation*; the share of false resignations among the would-be resignations is
  reported (AlphaGo Zero kept it under 5%).

A game is a pure function of its seed and the network (with one process: the batches
the network sees are the same), so the same seeds give the same games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from mctslab.core.errors import InvalidConfigError
from mctslab.search.compiled import CompiledMCTS, search_many
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig
from mctslab.search.result import SearchResult

__all__ = ["Examples", "SelfPlayOptions", "SelfPlayStats", "play_games"]

Examples = dict[str, npt.NDArray[Any]]


@dataclass(frozen=True)
class SelfPlayOptions:
    """How self-play searches and chooses moves (see the module docstring)."""

    simulations: int = 100
    c: float = 1.25
    noise_alpha: float = 1.0
    noise_fraction: float = 0.25
    temperature_plies: int = 8
    resign_threshold: float | None = None
    resign_playout: float = 0.1
    parallel_games: int = 64
    max_moves: int | None = None
    value_mix: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.value_mix <= 1.0:
            raise InvalidConfigError(f"value mix must be in [0, 1], got {self.value_mix}")
        if self.simulations < 2:
            raise InvalidConfigError(f"simulations must be >= 2, got {self.simulations}")
        if self.parallel_games < 1:
            raise InvalidConfigError(f"parallel games must be >= 1, got {self.parallel_games}")
        if self.temperature_plies < 0:
            raise InvalidConfigError(
                f"temperature plies must be >= 0, got {self.temperature_plies}"
            )
        if self.resign_threshold is not None and not 0 < self.resign_threshold < 1:
            raise InvalidConfigError(
                f"resign threshold must be in (0, 1), got {self.resign_threshold}"
            )
        if not 0 <= self.resign_playout <= 1:
            raise InvalidConfigError(
                f"resign playout share must be in [0, 1], got {self.resign_playout}"
            )

    def search_config(self, seed: int, evaluator: Any) -> SearchConfig:
        """The search of one self-play game."""
        return SearchConfig(
            iterations=self.simulations,
            seed=seed,
            puct=PuctConfig(
                c=self.c,
                evaluator=evaluator,
                noise_alpha=self.noise_alpha,
                noise_fraction=self.noise_fraction,
            ),
        )


@dataclass
class SelfPlayStats:
    """What a batch of self-play games did."""

    games: int = 0
    positions: int = 0
    plies: int = 0
    wins: list[int] = field(default_factory=list)  # per player
    draws: int = 0
    resigned: int = 0
    would_resign: int = 0  # in games played out for the check
    false_resign: int = 0
    evaluations: int = 0
    network_seconds: float = 0.0

    def merge(self, other: SelfPlayStats) -> None:
        self.games += other.games
        self.positions += other.positions
        self.plies += other.plies
        if len(self.wins) < len(other.wins):
            self.wins += [0] * (len(other.wins) - len(self.wins))
        for i, w in enumerate(other.wins):
            self.wins[i] += w
        self.draws += other.draws
        self.resigned += other.resigned
        self.would_resign += other.would_resign
        self.false_resign += other.false_resign
        self.evaluations += other.evaluations
        self.network_seconds += other.network_seconds

    @property
    def false_resign_rate(self) -> float | None:
        """False resignations among the would-be resignations of checked games."""
        return self.false_resign / self.would_resign if self.would_resign else None


class _Game:
    """One game in flight."""

    def __init__(self, game: Any, seed: int, options: SelfPlayOptions, evaluator: Any) -> None:
        self.state = game.new_initial_state()
        self.searcher = CompiledMCTS(options.search_config(seed, evaluator))
        self.rng = np.random.default_rng(seed)
        self.may_resign = (
            options.resign_threshold is not None and self.rng.random() >= options.resign_playout
        )
        self.would_resign: int | None = None  # the first player that would have resigned
        self.resigned: int | None = None
        self.rows: list[tuple[Any, ...]] = []
        self.ply = 0


class _Counting:
    """An evaluator that counts its positions and times its calls."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.evaluations = 0
        self.seconds = 0.0

    def evaluate(self, batch: Any) -> Any:
        import time

        t = time.perf_counter()
        out = self.inner.evaluate(batch)
        self.seconds += time.perf_counter() - t
        self.evaluations += len(batch.to_play)
        return out


def _visit_distribution(result: SearchResult, num_actions: int) -> npt.NDArray[np.float32]:
    visits = np.zeros(num_actions, dtype=np.float64)
    for child in result.children:
        visits[child.action] = child.visits
    total = visits.sum()
    if total > 0:
        visits /= total
    else:
        visits[result.action] = 1.0
    return visits.astype(np.float32)


def _choose(g: _Game, pi: npt.NDArray[np.float32], options: SelfPlayOptions) -> int:
    if g.ply < options.temperature_plies:
        p = pi.astype(np.float64)
        return int(g.rng.choice(len(p), p=p / p.sum()))
    return int(np.argmax(pi))


def play_games(
    net: Any,
    game: Any,
    seeds: list[int],
    options: SelfPlayOptions,
) -> tuple[Examples, SelfPlayStats]:
    """Play one game per seed with ``net`` (an ``nn.Module`` in eval mode) and return the
    examples (``observation``, ``legal_mask``, ``policy``, ``value``, ``player``, ``game``
    index into ``seeds``, ``ply``) in the order the games finished, and the statistics."""
    from mctslab.search.evaluators import make_evaluator

    info = game.info
    if info.num_players != 2 or not info.zero_sum:
        raise InvalidConfigError(
            f"self-play training needs a two-player zero-sum game; {info.name} is not"
        )
    counting = _Counting(make_evaluator(net))
    queue = list(enumerate(seeds))
    queue.reverse()
    active: list[tuple[int, _Game]] = []
    finished: list[tuple[int, _Game]] = []
    stats = SelfPlayStats(wins=[0] * info.num_players)
    max_moves = options.max_moves or info.max_game_length

    def refill() -> None:
        while queue and len(active) < options.parallel_games:
            index, seed = queue.pop()
            active.append((index, _Game(game, seed, options, counting.inner)))

    refill()
    while active:
        results = search_many(
            [g.searcher for _, g in active], [g.state for _, g in active], counting
        )
        still: list[tuple[int, _Game]] = []
        for (index, g), result in zip(active, results, strict=True):
            state = g.state
            p = state.current_player()
            pi = _visit_distribution(result, info.num_actions)
            mask = np.zeros(info.num_actions, dtype=np.bool_)
            mask[state.legal_actions()] = True
            obs = np.asarray(state.observation_tensor(p), dtype=np.float32)
            value = result.value  # on the utility scale, for the player to move
            g.rows.append((obs, mask, pi, p, g.ply, value))
            if options.resign_threshold is not None and value < -options.resign_threshold:
                if g.may_resign:
                    g.resigned = p
                elif g.would_resign is None:
                    g.would_resign = p
            if g.resigned is None:
                state.apply_action(_choose(g, pi, options))
                g.ply += 1
            if g.resigned is not None or state.is_terminal() or g.ply >= max_moves:
                finished.append((index, g))
            else:
                still.append((index, g))
        active[:] = still
        refill()
    examples = _examples(finished, info, stats, options.value_mix)
    stats.evaluations = counting.evaluations
    stats.network_seconds = counting.seconds
    return examples, stats


def _examples(
    finished: list[tuple[int, _Game]], info: Any, stats: SelfPlayStats, mix: float = 0.0
) -> Examples:
    cols: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "pi", "z", "p", "g", "ply")}
    for index, g in finished:
        if g.resigned is not None:
            returns = [1.0] * info.num_players
            returns[g.resigned] = -1.0
            stats.resigned += 1
        elif g.state.is_terminal():
            returns = list(g.state.returns())
        else:  # cut short by max_moves: a draw
            returns = [0.0] * info.num_players
        scale = max(abs(info.min_utility), abs(info.max_utility), 1e-12)
        if g.would_resign is not None:
            stats.would_resign += 1
            if returns[g.would_resign] >= 0:
                stats.false_resign += 1
        best = max(returns)
        if all(math.isclose(r, best) for r in returns):
            stats.draws += 1
        else:
            stats.wins[int(np.argmax(returns))] += 1
        stats.games += 1
        stats.plies += g.ply
        for obs, mask, pi, p, ply, q in g.rows:
            cols["obs"].append(obs)
            cols["mask"].append(mask)
            cols["pi"].append(pi)
            cols["z"].append((1.0 - mix) * returns[p] / scale + mix * q / scale)
            cols["p"].append(p)
            cols["g"].append(index)
            cols["ply"].append(ply)
    stats.positions = len(cols["z"])
    return {
        "observation": np.stack(cols["obs"]).astype(np.float32),
        "legal_mask": np.stack(cols["mask"]),
        "policy": np.stack(cols["pi"]).astype(np.float32),
        "value": np.asarray(cols["z"], dtype=np.float32),
        "player": np.asarray(cols["p"], dtype=np.int8),
        "game": np.asarray(cols["g"], dtype=np.int32),
        "ply": np.asarray(cols["ply"], dtype=np.int16),
    }
