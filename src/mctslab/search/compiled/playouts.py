"""Playouts: the game's optional kernels, and the generic heavy playout.

A kernel game may give its own random playout, playout moves, heavy-playout move, random
move, observation and prior knowledge (``RuleKernels.playout``, ``rollout_actions``,
``heavy_action``, ``light_action``, ``observation``, ``knowledge``). Each ``game_*`` function below has a plain-Python
meaning and a numba overload chosen by the kernel's type when compiling: a game without
the kernel (``None``, or the argument left out) costs nothing, not even a branch.
:func:`heavy_action` is the generic heavy playout's move (Drake and Uurtamo 2007: win at
once, else do not let the opponent win at once).
"""

from __future__ import annotations

from numba import njit, types
from numba.extending import overload

from mctslab.core.game import TERMINAL
from mctslab.games.kernels import rng_randint

# The generator (SplitMix64, as :mod:`mctslab.core.rng`) lives with the kernel contract
# (:mod:`mctslab.games.kernels`): a game's own playout draws from it too.


def game_playout(playout_fn, state, params, rng, rets):  # type: ignore[no-untyped-def]
    """The game's own random playout (see :func:`simulate`); -1 when it has none. This
    is the plain-Python meaning; compiled code gets the overload below."""
    return -1 if playout_fn is None else playout_fn(state, params, rng, rets)


@overload(game_playout)
def _game_playout(playout_fn, state, params, rng, rets):  # type: ignore[no-untyped-def]
    # Chosen by type when compiling: a game without a playout (``None``, or run_chunk's
    # argument left out) costs nothing, not even a branch.
    if isinstance(playout_fn, (types.NoneType, types.Omitted)):
        return lambda playout_fn, state, params, rng, rets: -1
    return lambda playout_fn, state, params, rng, rets: playout_fn(state, params, rng, rets)


def game_rollout(rollout_fn, legal_fn, state, params, out):  # type: ignore[no-untyped-def]
    """The moves a playout chooses among (the game's ``rollout_actions``, else the legal
    actions), written to ``out``; their number. Plain-Python meaning; compiled code gets
    the overload below."""
    fn = legal_fn if rollout_fn is None else rollout_fn
    return fn(state, params, out)


@overload(game_rollout)
def _game_rollout(rollout_fn, legal_fn, state, params, out):  # type: ignore[no-untyped-def]
    if isinstance(rollout_fn, (types.NoneType, types.Omitted)):
        return lambda rollout_fn, legal_fn, state, params, out: legal_fn(state, params, out)
    return lambda rollout_fn, legal_fn, state, params, out: rollout_fn(state, params, out)


def game_light(light_fn, rollout_fn, legal_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    """One random playout move: the game's ``light_action`` where it has one, else the
    ``k``-th of its playout moves (:func:`game_rollout`), ``k = rng_randint(rng, n)``.
    Plain-Python meaning; compiled code gets the overload below."""
    if light_fn is not None:
        return light_fn(state, params, rng, buf)
    return buf[rng_randint(rng, game_rollout(rollout_fn, legal_fn, state, params, buf))]


@overload(game_light)
def _game_light(light_fn, rollout_fn, legal_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    if isinstance(light_fn, (types.NoneType, types.Omitted)):

        def drawn(light_fn, rollout_fn, legal_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
            n = game_rollout(rollout_fn, legal_fn, state, params, buf)
            return buf[rng_randint(rng, n)]

        return drawn
    return lambda light_fn, rollout_fn, legal_fn, state, params, rng, buf: light_fn(
        state, params, rng, buf
    )


def game_heavy(heavy_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    """The game's own heavy-playout move, or -1 for a game without one (the generic
    rule then). Plain-Python meaning; compiled code gets the overload below."""
    return -1 if heavy_fn is None else heavy_fn(state, params, rng, buf)


@overload(game_heavy)
def _game_heavy(heavy_fn, state, params, rng, buf):  # type: ignore[no-untyped-def]
    if isinstance(heavy_fn, (types.NoneType, types.Omitted)):
        return lambda heavy_fn, state, params, rng, buf: -1
    return lambda heavy_fn, state, params, rng, buf: heavy_fn(state, params, rng, buf)


def game_knowledge(knowledge_fn, state, params, visits, wins):  # type: ignore[no-untyped-def]
    """The game's prior knowledge of every move (its ``knowledge`` kernel: virtual visits
    and wins by action, written to ``visits`` and ``wins``); nothing for a game without
    one. Plain-Python meaning; compiled code gets the overload below."""
    if knowledge_fn is not None:
        knowledge_fn(state, params, visits, wins)


@overload(game_knowledge)
def _game_knowledge(knowledge_fn, state, params, visits, wins):  # type: ignore[no-untyped-def]
    if isinstance(knowledge_fn, (types.NoneType, types.Omitted)):
        return lambda knowledge_fn, state, params, visits, wins: None
    return lambda knowledge_fn, state, params, visits, wins: knowledge_fn(
        state, params, visits, wins
    )


@njit(cache=True)
def wins(rets, player):  # type: ignore[no-untyped-def]
    for i in range(rets.shape[0]):  # noqa: SIM110 (numba: no generators in all())
        if i != player and not rets[player] > rets[i]:
            return False
    return True


def game_observation(observation_fn, state, params, player, out):  # type: ignore[no-untyped-def]
    """The game's observation kernel, if it has one (plain-Python meaning; compiled code
    gets the overload below, which costs nothing for a game without one)."""
    if observation_fn is not None:
        observation_fn(state, params, player, out)


@overload(game_observation)
def _game_observation(observation_fn, state, params, player, out):  # type: ignore[no-untyped-def]
    if isinstance(observation_fn, (types.NoneType, types.Omitted)):
        return lambda observation_fn, state, params, player, out: None
    return lambda observation_fn, state, params, player, out: observation_fn(
        state, params, player, out
    )


@njit(inline="always")
def heavy_action(kernels, state, params, rng, scratch):  # type: ignore[no-untyped-def]
    """As the reference's heavy playout: win at once, else avoid moves after which the
    opponent wins at once, else any move; random among equals. Works in ``scratch``'s
    rows (:class:`~.options.Scratch`: ``a_buf``, ``b_buf``, ``safe``, ``tmp1``, ``tmp2``,
    ``rets``)."""
    a_buf, b_buf, safe = scratch.a_buf, scratch.b_buf, scratch.safe
    tmp1, tmp2, rets = scratch.tmp1, scratch.tmp2, scratch.rets
    mover = state[0]
    n = kernels.legal(state, params, a_buf)
    for k in range(n):
        tmp1[:] = state
        kernels.apply(tmp1, params, a_buf[k])
        if tmp1[0] == TERMINAL:
            kernels.returns(tmp1, params, rets)
            if wins(rets, mover):
                return a_buf[k]
    ns = 0
    for k in range(n):
        tmp1[:] = state
        kernels.apply(tmp1, params, a_buf[k])
        other = tmp1[0]
        if other == TERMINAL:
            safe[ns] = a_buf[k]
            ns += 1
            continue
        m = kernels.legal(tmp1, params, b_buf)
        loses = False
        for j in range(m):
            tmp2[:] = tmp1
            kernels.apply(tmp2, params, b_buf[j])
            if tmp2[0] == TERMINAL:
                kernels.returns(tmp2, params, rets)
                if wins(rets, other):
                    loses = True
                    break
        if not loses:
            safe[ns] = a_buf[k]
            ns += 1
    if ns > 0:
        return safe[rng_randint(rng, ns)]
    return a_buf[rng_randint(rng, n)]
