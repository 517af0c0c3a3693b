"""The compiled engine bound to each built-in kernel game's rules, cached on disk.

numba caches a module-level function compiled with ``cache=True``, but not one taking
other functions as arguments: so each built-in kernel game gets three wrappers of the
engine over its kernels (:func:`~mctslab.search.compiled.chunk.run_chunk` for UCT,
:func:`~mctslab.search.compiled.puct_chunk.run_puct_chunk` and
:func:`~mctslab.search.compiled.puct_chunk.run_puct_round` for PUCT), which a fresh process loads
from numba's cache instead of compiling. They are not written per game: each is made
here from one of the templates below, as a module-level function of this file named for
the game's module (``go_chunk``, ``go_puct_chunk``, ``go_puct_round``: numba's cache
files are this file's, one per name), whose globals are that game's kernels
(:class:`~mctslab.games.kernels.RuleKernels`). The games are the registry's
(``games_with("kernels")``, those of :mod:`mctslab.games`), so a new kernel game needs
nothing here. The wrappers live in the search layer (the games know nothing of the
engines) and are found by the compiled engine through
:func:`~mctslab.search.compiled.driver.register_cached_chunk` (this module is imported with
:mod:`mctslab.search.engine`).

A user's kernel game gives its own wrapper as ``RuleKernels.search_chunk``
(``examples/kernel_game.py``), or none: the engine then binds the kernels itself,
compiled on first use in each process. A game with its own random playout
(``RuleKernels.playout``) passes it to ``run_chunk`` after the arguments, and a game with
playout moves, a heavy move, a light move or prior knowledge (Go) passes those too
(``rollout_actions``, ``heavy_action``, ``light_action``, ``knowledge``; ``None`` for any
it lacks). The PUCT wrappers pass
the kernels to ``run_puct_chunk`` and ``run_puct_round`` as one
:class:`~mctslab.search.compiled.options.Kernels`, made in the wrapper from the module's
kernels (``None`` for those the game lacks).
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable
from typing import Any

from numba import njit

import mctslab.games  # noqa: F401  (registers the built-in games)
from mctslab.core.registry import games_with, make
from mctslab.search.compiled import (
    Kernels,
    register_cached_chunk,
    run_chunk,
    run_puct_chunk,
    run_puct_round,
)

# The kernels the templates read: each wrapper's globals bind ``kernels`` to a module
# that holds one game's kernels (a module, not the functions themselves: numba compiles
# a function read from a module into the caller, and one read as a global by its
# address, which it will not cache). Here only so that the templates read as code.
kernels: Any = None

# Templates: UCT's chunk, PUCT's chunk and PUCT's round, for a game whose only extra
# kernel is its playout, and for one with playout moves, a heavy or a light move (Go).
# Their parameters (12, 14 and 15) are the arrays numba's cache keys the compiled wrapper
# on: UCT's twelve are the contract with a user game's own search_chunk (docs/games.md).


def _chunk(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    return run_chunk(
        kernels.legal_actions, kernels.apply_action, kernels.returns, kernels.heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n, kernels.playout,
    )  # fmt: skip


def _chunk_full(tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n):  # type: ignore[no-untyped-def]
    return run_chunk(
        kernels.legal_actions, kernels.apply_action, kernels.returns, kernels.heuristic,
        tree, root, params, ci, cf, ctl, rng, bufs, fbufs, path, cap, n, kernels.playout,
        kernels.rollout_actions, kernels.heavy_action, kernels.light_action,
        kernels.knowledge,
    )  # fmt: skip


def _puct_chunk(  # type: ignore[no-untyped-def]
    tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n
):
    return run_puct_chunk(
        Kernels(
            kernels.legal_actions, kernels.apply_action, kernels.returns, kernels.heuristic,
            kernels.observation, kernels.playout, None, None, None, None,
        ),
        tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n,
    )  # fmt: skip


def _puct_chunk_full(  # type: ignore[no-untyped-def]
    tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n
):
    return run_puct_chunk(
        Kernels(
            kernels.legal_actions, kernels.apply_action, kernels.returns, kernels.heuristic,
            kernels.observation, kernels.playout, kernels.rollout_actions,
            kernels.heavy_action, kernels.light_action, None,
        ),
        tree, prior, root_prior, root, params, ci, cf, ctl, rng, bufs, fbufs, pending, cap, n,
    )  # fmt: skip


def _puct_round(  # type: ignore[no-untyped-def]
    trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps, n, codes
):
    return run_puct_round(
        Kernels(
            kernels.legal_actions, kernels.apply_action, kernels.returns, kernels.heuristic,
            kernels.observation, kernels.playout, None, None, None, None,
        ),
        trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps,
        n, codes,
    )  # fmt: skip


def _puct_round_full(  # type: ignore[no-untyped-def]
    trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps, n, codes
):
    return run_puct_round(
        Kernels(
            kernels.legal_actions, kernels.apply_action, kernels.returns, kernels.heuristic,
            kernels.observation, kernels.playout, kernels.rollout_actions,
            kernels.heavy_action, kernels.light_action, None,
        ),
        trees, extras, root_priors, roots, params, ci, cf, ctls, rngs, bufs, fbufs, pend, caps,
        n, codes,
    )  # fmt: skip


_KERNEL_NAMES = (
    "legal_actions",
    "apply_action",
    "returns",
    "heuristic",
    "observation",
    "playout",
    "rollout_actions",
    "heavy_action",
    "light_action",
    "knowledge",
)
_EXTRAS = ("rollout_actions", "heavy_action", "light_action", "knowledge")


def _bind(template: Callable[..., int], name: str, module: types.ModuleType) -> Any:
    """``template`` as a function named ``name`` of this module that reads ``module``'s
    kernels, compiled as a hand-written wrapper would be (cached, ``nogil``)."""
    scope: dict[str, Any] = {
        "__builtins__": builtins,
        "__name__": __name__,
        "Kernels": Kernels,
        "run_chunk": run_chunk,
        "run_puct_chunk": run_puct_chunk,
        "run_puct_round": run_puct_round,
        "kernels": module,
    }
    code = template.__code__.replace(co_name=name, co_qualname=name)
    fn = types.FunctionType(code, scope, name)
    fn.__module__ = __name__
    return njit(cache=True, nogil=True)(fn)


def _bind_kernels(prefix: str, rules: Any) -> tuple[Any, Any, Any]:
    """UCT's chunk, PUCT's chunk and PUCT's round bound to the kernels ``rules``
    (:class:`~mctslab.games.kernels.RuleKernels`), named ``PREFIX_chunk``,
    ``PREFIX_puct_chunk`` and ``PREFIX_puct_round``."""
    module = types.ModuleType(f"{__name__}.{prefix}")
    for field in _KERNEL_NAMES:
        setattr(module, field, getattr(rules, field, None))
    full = rules.playout is None or any(getattr(rules, k, None) is not None for k in _EXTRAS)
    templates: tuple[Callable[..., int], ...] = (
        (_chunk_full, _puct_chunk_full, _puct_round_full)
        if full
        else (_chunk, _puct_chunk, _puct_round)
    )
    suffixes = ("chunk", "puct_chunk", "puct_round")
    chunk, puct_chunk, puct_round = (
        _bind(t, f"{prefix}_{s}", module) for t, s in zip(templates, suffixes, strict=True)
    )
    return chunk, puct_chunk, puct_round


def _builtin_kernel_games() -> dict[str, Any]:
    """The built-in games' kernels by the name of their module (``go``), each once
    (Bachet's game is Nim's kernels)."""
    found: dict[str, Any] = {}
    for name in games_with("kernels"):
        game = make(name)
        module = type(game).__module__
        if not module.startswith("mctslab.games."):
            continue  # a user's game: its own search_chunk, or bound on first use
        rules = game.kernels  # type: ignore[attr-defined]
        if all(k is not rules for k in found.values()):
            # The game's module under mctslab.games (go, for mctslab.games.go.game).
            found[module.removeprefix("mctslab.games.").split(".")[0]] = rules
    return found


_names: list[str] = []
for _prefix, _kernels in _builtin_kernel_games().items():
    _wrappers = _bind_kernels(_prefix, _kernels)
    for _fn in _wrappers:
        globals()[_fn.__name__] = _fn
        _names.append(_fn.__name__)
    register_cached_chunk(_kernels, *_wrappers)

#: The wrappers, ``tic_tac_toe_chunk``, ``tic_tac_toe_puct_chunk``, ... (made above).
__all__ = sorted(_names)
