"""``check_game``: the conformance checker every game must pass.

Like ``pgx.api_test`` and ``pyspiel.random_sim_test``: plays seeded random games
and checks at every step what mctslab's engines rely on. Run it on your own game
before you search it::

    from mctslab.core.testing import check_game
    check_game(MyGame(), n_games=100, seed=0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mctslab.core.errors import IllegalActionError, MctslabError
from mctslab.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    State,
    has_chance_nodes,
    sample_chance_outcome,
    state_key,
)
from mctslab.core.rng import Rng

__all__ = ["ConformanceError", "check_game", "random_game"]


class ConformanceError(MctslabError):
    """A game broke a rule of the game API; the message says which and where."""


def _fail(game: Game, state: State, what: str) -> ConformanceError:
    return ConformanceError(f"{game.info.name}: {what} (after actions {state.history()})")


def random_game(game: Game, seed: int) -> State:
    """Play one game with uniformly random moves from ``Rng(seed)`` and return the final state."""
    rng = Rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(_random_action(state, rng))
    return state


def _random_action(state: State, rng: Rng) -> int:
    if state.current_player() == CHANCE:
        return sample_chance_outcome(state, rng)
    return rng.choice(state.legal_actions())


def check_game(game: Game, n_games: int = 100, seed: int = 0) -> int:
    """Play ``n_games`` seeded random games through ``game`` and check the API rules.

    Checked at every state: legal actions exist iff not terminal, are sorted,
    unique and in ``[0, num_actions)``, agree with ``legal_actions_mask()`` and
    come as a fresh list each call;
    ``current_player()`` is a player index, :data:`TERMINAL` or, in a game that
    says ``chance_nodes = True`` and has no rule kernels, :data:`CHANCE`;
    ``action_to_string``/``string_to_action`` round-trip; illegal actions raise
    ``IllegalActionError`` and leave the state unchanged; ``clone()`` and
    ``child()`` are independent of the original; the optional ``heuristic()``
    gives one value per player in ``[-1, 1]``. At the end: ``returns()`` lie in
    ``[min_utility, max_utility]`` and sum to 0 for zero-sum games, the game is
    no longer than ``max_game_length``, replaying ``history()`` reaches an equal
    state, and the same seed plays the same game. A game with rule kernels and its
    own ``playout`` kernel: from every fourth state, the playout reaches the same final
    state, plies, returns and generator state as the generic random loop (the loop
    over its ``light_action`` kernel where it has one, each move checked to be one of
    the playout's moves).

    Returns the number of states checked; raises :class:`ConformanceError`.
    """
    info = game.info
    checked = 0
    for g in range(n_games):
        rng = Rng(seed * 1_000_003 + g)
        state = game.new_initial_state()
        while True:
            _check_state(game, state)
            checked += 1
            if len(state.history()) % 4 == 0:
                _check_playout(game, state, seed * 1_000_003 + g + 7919 * checked)
            if state.is_terminal():
                break
            if len(state.history()) >= info.max_game_length:
                raise _fail(game, state, f"longer than max_game_length={info.max_game_length}")
            state.apply_action(_random_action(state, rng))
        rets = state.returns()
        if len(rets) != info.num_players:
            raise _fail(game, state, f"returns() has {len(rets)} values for {info.num_players}")
        lo, hi = info.min_utility - 1e-9, info.max_utility + 1e-9
        if not all(lo <= r <= hi for r in rets):
            raise _fail(
                game, state, f"returns {rets} outside [{info.min_utility}, {info.max_utility}]"
            )
        if info.zero_sum and not math.isclose(sum(rets), 0.0, abs_tol=1e-9):
            raise _fail(game, state, f"zero-sum game with returns {rets} summing to {sum(rets)}")
        replay = game.new_initial_state()
        for a in state.history():
            replay.apply_action(a)
        if str(replay) != str(state) or state_key(replay) != state_key(state):
            raise _fail(game, state, "replaying history() gives a different state")
        again = random_game(game, seed * 1_000_003 + g) if g < 3 else state
        if again.history() != state.history():
            raise _fail(game, state, "the same seed played a different game")
    return checked


def _check_playout(game: Game, state: State, seed: int) -> None:
    """A game's own ``playout`` kernel makes the generic random loop's draws: the
    ``k``-th legal action (of its ``rollout_actions`` where it has them), ``k =
    randint(n)``, to the end, or, for a game with a ``light_action`` kernel, that
    kernel's move each ply, which must be one of those moves
    (``mctslab.games.kernels``)."""
    kernels: Any = getattr(game, "kernels", None)
    playout = getattr(kernels, "playout", None)
    array = getattr(state, "array", None)
    if playout is None or array is None:
        return
    params: Any = getattr(game, "params", None)
    rng = Rng(seed)
    want = array.copy()
    legal = np.zeros(max(1, game.info.num_actions), dtype=np.int64)
    scratch = np.zeros_like(legal)
    word = np.array([seed & ((1 << 64) - 1)], dtype=np.uint64)
    plies = 0
    # Over the game's rollout moves where it names them (Go: no own-eye fills).
    choices = getattr(kernels, "rollout_actions", None) or kernels.legal_actions
    light = getattr(kernels, "light_action", None)
    while want[0] != TERMINAL:
        n = choices(want, params, legal)
        if light is None:
            action = int(legal[rng.randint(n)])
        else:
            action = int(light(want, params, word, scratch))
            if action not in legal[:n]:
                raise _fail(
                    game,
                    state,
                    f"light_action played {action}, not one of the playout's moves "
                    f"{legal[:n].tolist()} (seed {seed})",
                )
        kernels.apply_action(want, params, action)
        plies += 1
    want_returns = np.zeros(game.info.num_players, dtype=np.float64)
    kernels.returns(want, params, want_returns)
    want_rng = rng.state if light is None else int(word[0])
    got = array.copy()
    word = np.array([seed & ((1 << 64) - 1)], dtype=np.uint64)
    got_returns = np.zeros(game.info.num_players, dtype=np.float64)
    got_plies = int(playout(got, params, word, got_returns))
    rule = (
        "play the k-th legal action, k = randint(n), each ply"
        if light is None
        else "play the light_action kernel's move each ply"
    )
    for what, same in (
        ("plies", got_plies == plies),
        ("final state", np.array_equal(got, want)),
        ("returns", np.array_equal(got_returns, want_returns)),
        ("generator state", int(word[0]) == want_rng),
    ):
        if not same:
            raise _fail(
                game,
                state,
                f"the playout kernel's {what} differs from the generic random loop's "
                f"(seed {seed}): it must {rule}",
            )


def _check_state(game: Game, state: State) -> None:
    info = game.info
    player = state.current_player()
    terminal = state.is_terminal()
    legal = state.legal_actions()
    if terminal != (player == TERMINAL):
        raise _fail(game, state, f"is_terminal()={terminal} but current_player()={player}")
    if not terminal and not (0 <= player < info.num_players or player == CHANCE):
        raise _fail(game, state, f"current_player()={player} is not a player")
    if player == CHANCE and getattr(game, "kernels", None) is not None:
        raise _fail(game, state, "a chance node in rule kernels (kernel games are deterministic)")
    if player == CHANCE and not has_chance_nodes(game):
        # The engines choose by it: the compiled engine has no chance nodes and refuses
        # the games that say they have them; a game that does not say so must not have any.
        raise _fail(game, state, "a chance node in a game without chance_nodes = True")
    if terminal and legal:
        raise _fail(game, state, "a terminal state has legal actions")
    if not terminal and not legal:
        raise _fail(game, state, "a non-terminal state has no legal actions")
    if legal != sorted(set(legal)) or not all(0 <= a < info.num_actions for a in legal):
        raise _fail(game, state, f"legal actions {legal} not sorted, unique and in range")
    probe = state.legal_actions()
    probe.clear()
    if state.legal_actions() != legal:
        raise _fail(game, state, "legal_actions() returns a list the state keeps: return a copy")
    mask = state.legal_actions_mask()
    if len(mask) != info.num_actions or [a for a, m in enumerate(mask) if m] != legal:
        raise _fail(game, state, "legal_actions_mask() disagrees with legal_actions()")
    if player >= 0:
        for a in legal:
            name = state.action_to_string(a)
            if state.string_to_action(name) != a:
                raise _fail(game, state, f"action {a} named {name!r} parses back differently")
    before = (str(state), state.history(), legal)
    illegal = [a for a in (-1, info.num_actions, *range(info.num_actions)) if a not in legal]
    for a in illegal[:3]:
        try:
            state.apply_action(a)
        except IllegalActionError:
            pass
        else:
            raise _fail(game, state, f"illegal action {a} did not raise IllegalActionError")
        if (str(state), state.history(), state.legal_actions()) != before:
            raise _fail(game, state, f"the rejected action {a} changed the state")
    if legal:
        a = legal[-1]
        copy = state.clone()
        copy.apply_action(a)
        if (str(state), state.history(), state.legal_actions()) != before:
            raise _fail(game, state, "clone() is not independent of the original")
        kid = state.child(a)
        if (str(state), state.history(), state.legal_actions()) != before:
            raise _fail(game, state, "child() changed the original state")
        if str(kid) != str(copy) or kid.history() != copy.history():
            raise _fail(game, state, "child(a) differs from clone() + apply_action(a)")
    heuristic = getattr(state, "heuristic", None)
    if heuristic is not None:
        values = list(heuristic())
        if len(values) != info.num_players or not all(-1.0 <= v <= 1.0 for v in values):
            raise _fail(game, state, f"heuristic() gave {values}, want one value in [-1, 1] each")
