"""A generation's evaluation: games through the arena, scores and Elo ratings.

Every ``eval_every`` generations (and at the last), the new network plays ``eval_games``
games through the arena (:func:`mctslab.arena.tournament.run_arena`, colours alternated)
against the previous evaluated generation and each fixed baseline, into the run's SQLite
store (``results.sqlite``); the Elo of every generation comes from all of them
(:func:`mctslab.arena.ratings.compute_ratings`, the first baseline at 0). The network's
player is deterministic (no noise, the most visited move), so a game is decided by its
opening and colours: each game gets its own ``eval_openings`` random plies, chosen to
differ from the other games' (:func:`opening_seeds`; the arena's own pairs share an
opening, which here would replay one game with the colours swapped). Where the game has
fewer openings than games (or ``eval_openings`` is 0), a game can repeat an earlier one;
the scores, their 95% Wilson intervals and the Elo ratings count each distinct game once
(:func:`distinct_games`; a score's ``games`` is that number, ``played`` all games).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from mctslab.arena.game_task import Entrant, derive_seed, play_opening
from mctslab.arena.ratings import GameOutcome, compute_ratings, wilson_interval
from mctslab.arena.store import GameRecord, ResultStore
from mctslab.arena.tournament import ArenaConfig, run_arena, schedule
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import Game
from mctslab.players.player import quote_spec_value
from mctslab.train.config import TrainConfig
from mctslab.train.run_directory import checkpoint_path

__all__ = [
    "arena_opening",
    "az_spec",
    "distinct_games",
    "evaluate",
    "evaluate_generation",
    "opening_seeds",
    "ratings",
]

#: ``emit(kind, **payload)``: how the evaluation reports each opponent's score.
Emit = Callable[..., None]


def evaluate_generation(
    out: Path, config: TrainConfig, game: Game, g: int, history: list[dict[str, Any]], emit: Emit
) -> dict[str, Any]:
    """The evaluation fields of generation ``g``'s record: its arena runs and scores
    against the last evaluated generation in ``history`` (the committed records) and the
    baselines, the seconds they took, and the ratings of every player with ``g``'s Elo
    and its interval."""
    t = time.monotonic()
    previous = max([h["generation"] for h in history if h.get("eval_runs")] or [0])
    record = evaluate(out, config, game, g, previous, emit)
    record["eval_seconds"] = time.monotonic() - t
    rated = ratings(out, config, [*history, record])
    record["ratings"] = rated
    mine = rated.get(f"gen-{g:04d}", {})
    record["elo"], record["elo_low"], record["elo_high"] = (
        mine.get("elo"),
        mine.get("low"),
        mine.get("high"),
    )
    return record


def az_spec(out: Path, config: TrainConfig, g: int) -> str:
    """The ``az:`` player of generation ``g``'s network, as the arena starts it."""
    sims = config.eval_simulations or config.simulations
    model = quote_spec_value(str(checkpoint_path(out, g).resolve()))  # a path may hold a comma
    return f"az:model={model},simulations={sims}"


def evaluate(
    out: Path, config: TrainConfig, game: Game, g: int, previous: int, emit: Emit
) -> dict[str, Any]:
    """Generation ``g`` against generation ``previous`` and the baselines: the arena's
    run ids (``eval_runs``) and the score against each opponent (``scores``)."""
    opponents = [(f"gen-{previous:04d}", az_spec(out, config, previous)), *config.baselines]
    runs: list[int] = []
    scores: dict[str, dict[str, Any]] = {}
    # The players search one leaf at a time: a network call of batch 1 gains nothing
    # from more threads, and spinning threads slow everything else on a busy machine.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with ResultStore(out / "results.sqlite") as store:
            for name, spec in opponents:
                run_id, scores[name] = _play_opponent(out, config, game, g, name, spec, store)
                runs.append(run_id)
                emit("eval", generation=g, opponent=name, score=scores[name]["score"])
    finally:
        torch.set_num_threads(threads)
    return {"eval_runs": runs, "scores": scores}


def _play_opponent(
    out: Path,
    config: TrainConfig,
    game: Game,
    g: int,
    name: str,
    spec: str,
    store: ResultStore,
) -> tuple[int, dict[str, Any]]:
    """One opponent's games, each with its own opening: the arena run's id and ``g``'s
    score over the distinct games."""
    me = f"gen-{g:04d}"
    arena = ArenaConfig(
        game=config.game,
        players=(Entrant(me, az_spec(out, config, g)), Entrant(name, spec)),
        games=config.eval_games,
        game_params=config.game_params,
        seed=derive_seed(config.seed, "eval", g, name),
        openings=config.eval_openings,
    )
    tasks = schedule(arena)
    seeds = opening_seeds(game, config.eval_openings, len(tasks), arena.seed)
    tasks = [replace(t, opening_seed=s) for t, s in zip(tasks, seeds, strict=True)]
    result = run_arena(arena, store, kind="train-eval", tasks=tasks)
    points = [r.score_of(me) for r in distinct_games(result.records)]
    return result.run_id, _score([p for p in points if p is not None], len(result.records))


def ratings(out: Path, config: TrainConfig, history: list[dict[str, Any]]) -> dict[str, Any]:
    """The Elo of every player of the evaluation games that ``history`` names (the first
    baseline, else generation 0, at 0); empty when there are none or they rate nothing."""
    runs = [r for rec in history for r in rec.get("eval_runs", [])]
    if not runs:
        return {}
    with ResultStore(out / "results.sqlite") as store:
        outcomes = [
            GameOutcome(r.seats[0], r.seats[1], r.score)
            for run_id in runs
            for r in distinct_games(store.games([run_id]))
            if r.score is not None
        ]
    anchor = config.baselines[0][0] if config.baselines else "gen-0000"
    try:
        rated = compute_ratings(outcomes, anchor=anchor)
    except InvalidConfigError:
        return {}
    return {
        p.name: {"elo": p.elo, "low": p.low, "high": p.high, "unbounded": p.unbounded}
        for p in rated.players
    }


def opening_seeds(game: Game, plies: int, count: int, seed: int, tries: int = 100) -> list[int]:
    """The opening seeds of ``count`` evaluation games, one per game, chosen so that
    their openings of ``plies`` random plies differ pairwise where the game has that many
    (each game tries up to ``tries`` seeds). The evaluated players are deterministic: two
    games with the same opening and colours would be one game played twice."""
    seeds: list[int] = []
    seen: set[tuple[int, ...]] = set()
    for i in range(count):
        chosen = derive_seed(seed, "opening", i)
        if plies > 0:
            for t in range(tries):
                candidate = derive_seed(seed, "opening", i, t) if t else chosen
                opening = arena_opening(game, plies, candidate)
                if opening not in seen:
                    chosen = candidate
                    seen.add(opening)
                    break
        seeds.append(chosen)
    return seeds


def arena_opening(game: Game, plies: int, seed: int) -> tuple[int, ...]:
    """The opening the arena plays for ``plies`` and ``opening_seed=seed``
    (:func:`mctslab.arena.game_task.play_opening` on a new game)."""
    return tuple(play_opening(game.new_initial_state(), plies, seed))


def distinct_games(records: Iterable[GameRecord]) -> list[GameRecord]:
    """``records`` without the games whose moves repeat an earlier one's: what the
    intervals count. Between deterministic players a game that the openings could not
    tell apart (a game with fewer openings than games, or no opening plies) is one game
    played again, not new evidence."""
    seen: set[tuple[int, ...]] = set()
    kept = []
    for r in sorted(records, key=lambda r: r.slot):
        if r.moves not in seen:
            seen.add(r.moves)
            kept.append(r)
    return kept


def _score(points: list[float], played: int) -> dict[str, Any]:
    """The score over the distinct games (``games``, of ``played``) with its 95% Wilson
    interval."""
    n = len(points)
    total = float(sum(points))
    score, low, high = wilson_interval(total, n) if n else (math.nan, math.nan, math.nan)
    return {"games": n, "played": played, "score": score, "low": low, "high": high}
