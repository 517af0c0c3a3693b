"""The compiled engine bound to each built-in game's rule kernels, cached on disk.

numba caches a module-level function compiled with ``cache=True``, but not one made
by a factory closure nor one taking other functions as arguments: so each built-in
game has here a one-line wrapper of :func:`~mctslab.search.compiled.run_chunk` over
its kernels, which a fresh process loads from numba's cache instead of compiling.
They live in the search layer (the games know nothing of the engines) and are found
by the compiled engine through :func:`~mctslab.search.compiled.register_cached_chunk`
(this module is imported with :mod:`mctslab.search.engine`). A user's kernel game gives its own wrapper as
``RuleKernels.search_chunk`` (``examples/kernel_game.py``), or none: the engine then
binds the kernels itself, compiled on first use in each process. A game with its own
random playout (``RuleKernels.playout``) passes it to ``run_chunk`` after the arguments,
and Go its playout moves, heavy move and light move too (``rollout_actions``,
``heavy_action``, ``light_action``).
"""

from __future__ import annotations

from numba import njit

from mctslab.games import bohnenspiel, connect_four, go, nim, tic_tac_toe
from mctslab.search.compiled import (
    register_cached_chunk,
    run_chunk,
    run_puct_chunk,
    run_puct_round,
)

__all__ = [
    "bohnenspiel_chunk",
    "bohnenspiel_puct_chunk",
    "bohnenspiel_puct_round",
    "connect_four_chunk",
    "connect_four_puct_chunk",
    "connect_four_puct_round",
    "go_chunk",
    "go_puct_chunk",
    "go_puct_round",
    "nim_chunk",
    "nim_puct_chunk",
    "nim_puct_round",
    "tic_tac_toe_chunk",
    "tic_tac_toe_puct_chunk",
    "tic_tac_toe_puct_round",
]


@njit(cache=True, nogil=True)
def tic_tac_toe_chunk(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    return run_chunk(
        tic_tac_toe.legal_actions, tic_tac_toe.apply_action, tic_tac_toe.returns, tic_tac_toe.heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n, tic_tac_toe.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def connect_four_chunk(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    return run_chunk(
        connect_four.legal_actions, connect_four.apply_action, connect_four.returns, connect_four.heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n, connect_four.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def nim_chunk(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    return run_chunk(
        nim.legal_actions, nim.apply_action, nim.returns, nim.heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n, nim.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def bohnenspiel_chunk(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    return run_chunk(
        bohnenspiel.legal_actions, bohnenspiel.apply_action, bohnenspiel.returns, bohnenspiel.heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n, bohnenspiel.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def go_chunk(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    # Go also names its playout moves (no own-eye fills), its heavy and its light move.
    return run_chunk(
        go.legal_actions, go.apply_action, go.returns, go.heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n, go.playout,
        go.rollout_actions, go.heavy_action, go.light_action,
    )  # fmt: skip


# PUCT's chunks (run_puct_chunk), one per game likewise.


@njit(cache=True, nogil=True)
def tic_tac_toe_puct_chunk(  # type: ignore[no-untyped-def]
    tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n
):
    return run_puct_chunk(
        tic_tac_toe.legal_actions, tic_tac_toe.apply_action, tic_tac_toe.returns, tic_tac_toe.heuristic,
        tic_tac_toe.observation, tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs,
        fbufs, pending, cap, n, tic_tac_toe.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def connect_four_puct_chunk(  # type: ignore[no-untyped-def]
    tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n
):
    return run_puct_chunk(
        connect_four.legal_actions, connect_four.apply_action, connect_four.returns, connect_four.heuristic,
        connect_four.observation, tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs,
        fbufs, pending, cap, n, connect_four.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def nim_puct_chunk(  # type: ignore[no-untyped-def]
    tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n
):
    return run_puct_chunk(
        nim.legal_actions, nim.apply_action, nim.returns, nim.heuristic,
        nim.observation, tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs,
        fbufs, pending, cap, n, nim.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def bohnenspiel_puct_chunk(  # type: ignore[no-untyped-def]
    tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n
):
    return run_puct_chunk(
        bohnenspiel.legal_actions, bohnenspiel.apply_action, bohnenspiel.returns, bohnenspiel.heuristic,
        bohnenspiel.observation, tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs,
        fbufs, pending, cap, n, bohnenspiel.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def go_puct_chunk(  # type: ignore[no-untyped-def]
    tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n
):
    return run_puct_chunk(
        go.legal_actions, go.apply_action, go.returns, go.heuristic,
        go.observation, tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs,
        fbufs, pending, cap, n, go.playout, go.rollout_actions, go.heavy_action,
        go.light_action,
    )  # fmt: skip


# Many PUCT searches a round in one call (run_puct_round), one per game likewise.


@njit(cache=True, nogil=True)
def tic_tac_toe_puct_round(  # type: ignore[no-untyped-def]
    trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps, n, codes
):
    return run_puct_round(
        tic_tac_toe.legal_actions, tic_tac_toe.apply_action, tic_tac_toe.returns, tic_tac_toe.heuristic, tic_tac_toe.observation,
        trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps,
        n, codes, tic_tac_toe.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def connect_four_puct_round(  # type: ignore[no-untyped-def]
    trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps, n, codes
):
    return run_puct_round(
        connect_four.legal_actions, connect_four.apply_action, connect_four.returns, connect_four.heuristic, connect_four.observation,
        trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps,
        n, codes, connect_four.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def nim_puct_round(  # type: ignore[no-untyped-def]
    trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps, n, codes
):
    return run_puct_round(
        nim.legal_actions, nim.apply_action, nim.returns, nim.heuristic, nim.observation,
        trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps,
        n, codes, nim.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def bohnenspiel_puct_round(  # type: ignore[no-untyped-def]
    trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps, n, codes
):
    return run_puct_round(
        bohnenspiel.legal_actions, bohnenspiel.apply_action, bohnenspiel.returns, bohnenspiel.heuristic, bohnenspiel.observation,
        trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps,
        n, codes, bohnenspiel.playout,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def go_puct_round(  # type: ignore[no-untyped-def]
    trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps, n, codes
):
    return run_puct_round(
        go.legal_actions, go.apply_action, go.returns, go.heuristic, go.observation,
        trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps,
        n, codes, go.playout, go.rollout_actions, go.heavy_action, go.light_action,
    )  # fmt: skip


for _game, _chunk, _puct, _round in (
    (tic_tac_toe.TicTacToe, tic_tac_toe_chunk, tic_tac_toe_puct_chunk, tic_tac_toe_puct_round),
    (
        connect_four.ConnectFour,
        connect_four_chunk,
        connect_four_puct_chunk,
        connect_four_puct_round,
    ),
    (nim.Nim, nim_chunk, nim_puct_chunk, nim_puct_round),
    (bohnenspiel.Bohnenspiel, bohnenspiel_chunk, bohnenspiel_puct_chunk, bohnenspiel_puct_round),
    (go.Go, go_chunk, go_puct_chunk, go_puct_round),
):
    register_cached_chunk(_game.kernels, _chunk, _puct, _round)
