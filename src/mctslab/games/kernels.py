"""The rule-kernel contract and the typed wrapper around it.

A built-in game's rules are five numba-compilable functions over two flat
``int64`` arrays, ``state`` and ``params`` (pgx's split of pure rules from the
public wrapper, ``pgx/_src/games/<game>.py``):

==========================================  ====================================================
``init(params) -> state``                   a new initial state
``legal_actions(state, params, out) -> n``  writes the legal actions, ascending, to ``out[:n]``
``apply_action(state, params, action)``     plays a legal action in place
``returns(state, params, out)``             writes one float per player to ``out``
``heuristic(state, params, out)``           a value estimate per player in ``[-1, 1]``
==========================================  ====================================================

and, optionally, a sixth for speed and a seventh for learned evaluators:

==========================================  ====================================================
``playout(state, params, rng, out) -> n``   a uniformly random playout to the end, in place:
                                            returns the plies played, writes the returns to ``out``
``observation(state, params, player, out)`` writes what ``player`` observes as ``float32`` values
                                            to the flat array ``out`` (every entry, zeros too)
==========================================  ====================================================

Layout rule shared by every kernel game: ``state[0]`` holds the current player
(``>= 0``) or :data:`~mctslab.core.game.TERMINAL`, so ``current_player()`` and
``is_terminal()`` are array reads. Kernel games are deterministic: the compiled
engine has no chance nodes, so ``state[0]`` is never :data:`~mctslab.core.game.CHANCE`
(``check_game`` checks it); a game with dice or deals is a plain Python game
that says ``chance_nodes = True``, searched by the reference engine. ``apply_action``
never checks legality: :class:`KernelState` does, and engines only play legal
actions. Kernels are module-level functions compiled with ``cache=True`` so
that the on-disk cache serves a fresh process.

The ``observation`` kernel is the input of a neural evaluator: the compiled engine
may call it inside numba for a batch of leaves, so it allocates nothing and writes
all ``prod(shape)`` entries of ``out`` (a 1-D view of the batch's row), the shape
being :meth:`KernelGame.observation_shape`, computed from ``params``. It must
accept any ``player`` of the game, terminal states included. Where OpenSpiel has
the game, its shape and layout are OpenSpiel's ``observation_tensor``.

A game's own ``playout`` must make exactly the random choices of the generic
loop (:func:`generic_playout`): at each ply, with ``n`` legal moves, it plays the
``k``-th legal move in ascending order, ``k = rng_randint(rng, n)`` (``rng`` is
the engine's one-word SplitMix64 state, :func:`rng_randint`), and it leaves the
same final state and ``rng``; so both engines stay node-identical while the game
plays its playouts its own way (bitboards, no action buffer, no call a ply).
``check_game`` compares it with the generic loop from random positions and seeds.

Three more optional kernels shape the playouts themselves (``RuleKernels`` fields):
a game may name the moves a random playout chooses among, ``rollout_actions(state,
params, out) -> n`` (Go's leave out filling one's own one-point eye, without which
random Go games do not end sensibly); draw one of them its own way, ``light_action(
state, params, rng, buf) -> action`` (uniformly among ``rollout_actions``, with draws
of its own: Go's by rejection among the empty points, not the ``k``-th of a list); and
play its own heavy playout move, ``heavy_action(state, params, rng, buf) -> action``
(Go's: escape atari, capture, MoGo's 3x3 patterns). Both engines call the same kernels
(the reference engine through :meth:`KernelState.playout_actions`,
:meth:`KernelState.light_action` and :meth:`KernelState.heavy_action`, with its
generator's state), so they stay node-identical; with ``rollout_actions`` the generic
loop and ``playout`` draw among those moves instead of the legal ones, and with
``light_action`` a random playout's move is that kernel's (``playout`` then makes its
draws: the loop ``apply(light_action(...))`` to the end).

Each game module holds its kernels and a :class:`KernelGame` subclass that adds
what is presentation, not rules: action names and the board drawing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
import numpy.typing as npt
from numba import njit

from mctslab.core.errors import IllegalActionError, InvalidConfigError, illegal_action_message
from mctslab.core.game import TERMINAL, GameInfo, State
from mctslab.core.rng import Rng
from mctslab.core.text import ascii_int

__all__ = [
    "KernelGame",
    "KernelState",
    "RuleKernels",
    "generic_playout",
    "rng_next",
    "rng_randint",
    "winner_returns",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Float32Array = npt.NDArray[np.float32]
UIntArray = npt.NDArray[np.uint64]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MUL1 = np.uint64(0xBF58476D1CE4E5B9)
MUL2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def rng_next(rng):  # type: ignore[no-untyped-def]
    """SplitMix64, exactly as :meth:`mctslab.core.rng.Rng.next_u64` (state in ``rng[0]``)."""
    rng[0] += GOLDEN
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * MUL1
    z = (z ^ (z >> np.uint64(27))) * MUL2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_randint(rng, n):  # type: ignore[no-untyped-def]
    """As :meth:`mctslab.core.rng.Rng.randint`: the top 31 bits modulo ``n``."""
    return np.int64((rng_next(rng) >> np.uint64(33)) % np.uint64(n))


@njit(inline="always")
def draw_top31(seed):  # type: ignore[no-untyped-def]
    """One SplitMix64 draw on a generator state held in a local word, for playout
    kernels: ``(the new state, the draw's top 31 bits)``, the number ``rng_randint``
    takes modulo ``n``. With ``seed = rng[0]`` before and ``rng[0] = seed`` after, the
    same draws as :func:`rng_randint`."""
    seed += GOLDEN
    z = seed
    z = (z ^ (z >> np.uint64(30))) * MUL1
    z = (z ^ (z >> np.uint64(27))) * MUL2
    return seed, (z ^ (z >> np.uint64(31))) >> np.uint64(33)


@njit(inline="always")
def generic_playout(legal_fn, apply_fn, returns_fn, state, params, rng, legal, out):  # type: ignore[no-untyped-def]
    """The random playout every game's ``playout`` kernel must match draw for draw:
    the ``k``-th legal action, ``k = rng_randint(rng, n)``, until the end; returns
    the plies played and writes the returns to ``out`` (``legal``: a scratch buffer).
    For a game with ``rollout_actions``, pass that kernel as ``legal_fn``."""
    plies = 0
    while state[0] != TERMINAL:
        n = legal_fn(state, params, legal)
        apply_fn(state, params, legal[rng_randint(rng, n)])
        plies += 1
    returns_fn(state, params, out)
    return plies


@njit(cache=True)
def winner_returns(s, params, out):  # type: ignore[no-untyped-def]
    """``returns`` of a two-player game whose state keeps the winner in ``s[1]``
    (-1 while undecided or drawn): +1 to the winner, -1 to the other, 0 each on a draw."""
    out[0] = 0.0
    out[1] = 0.0
    if s[1] >= 0:
        out[s[1]] = 1.0
        out[1 - s[1]] = -1.0


@dataclass(frozen=True)
class RuleKernels:
    """The five compiled rule functions of a game (see the module docstring)."""

    init: Callable[[IntArray], IntArray]
    legal_actions: Callable[[IntArray, IntArray, IntArray], int]
    apply_action: Callable[[IntArray, IntArray, int], None]
    returns: Callable[[IntArray, IntArray, FloatArray], None]
    heuristic: Callable[[IntArray, IntArray, FloatArray], None]
    #: The compiled engine's ``run_chunk`` bound to these kernels by a module-level
    #: function compiled with ``cache=True`` (optional: without it the engine binds
    #: them itself, compiled on first use in each process).
    search_chunk: Callable[..., int] | None = None
    #: The game's own random playout, ``playout(state, params, rng, out) -> plies``
    #: (optional: the engine's generic loop makes the same draws, see the module
    #: docstring). A ``search_chunk`` wrapper passes it to ``run_chunk`` last.
    playout: Callable[[IntArray, IntArray, UIntArray, FloatArray], int] | None = None
    #: What a player observes, ``observation(state, params, player, out)``: ``float32``
    #: values written to the flat ``out`` of :meth:`KernelGame.observation_shape`'s size
    #: (optional: for neural evaluators; see the module docstring).
    observation: Callable[[IntArray, IntArray, int, Float32Array], None] | None = None
    #: The moves a random playout chooses among, ``rollout_actions(state, params, out)
    #: -> n``, ascending (optional: default the legal actions). Go's leave out the moves
    #: that fill the mover's own one-point eyes. Every playout of both engines (the
    #: ``"random"``, ``"cutoff"`` and ``"verdict"`` simulations) draws from them, and a
    #: game's ``playout`` then makes the generic loop's draws over them.
    rollout_actions: Callable[[IntArray, IntArray, IntArray], int] | None = None
    #: One move of the game's own heavy playout, ``heavy_action(state, params, rng, buf)
    #: -> action`` (optional: the ``"heavy"`` simulation otherwise plays the generic rule,
    #: win at once or avoid losing at once). Draws from the engine's generator ``rng``;
    #: ``buf`` is a scratch buffer of ``num_actions`` entries.
    heavy_action: Callable[[IntArray, IntArray, UIntArray, IntArray], int] | None = None
    #: One move of the game's random (light) playout, ``light_action(state, params, rng,
    #: buf) -> action``: uniformly random among ``rollout_actions`` (else the legal
    #: actions), drawn its own way from the engine's generator ``rng`` (optional: else the
    #: ``k``-th move, ``k = rng_randint(rng, n)``). Every random playout move of both
    #: engines is then this kernel's, and the game's ``playout`` makes its draws.
    light_action: Callable[[IntArray, IntArray, UIntArray, IntArray], int] | None = None
    #: The game's prior knowledge of every move, ``knowledge(state, params, visits, wins)``
    #: (optional): for each action ``a`` (``num_actions`` entries of two ``int64``
    #: arrays), the virtual visits and wins, for the player to move, that a new child
    #: for ``a`` starts with under the ``knowledge`` option of the search (Gelly and
    #: Silver 2007; Go's: :mod:`mctslab.games.go.priors`). Read for legal actions only;
    #: ``0 <= wins <= visits``. Both engines call it when a node's children are made.
    knowledge: Callable[[IntArray, IntArray, IntArray, IntArray], None] | None = None
    #: A single-player game's code of a move in its context, ``move_code(state, params,
    #: action) -> code`` in ``[0, KernelGame.num_move_codes())``: what Nested Rollout
    #: Policy Adaptation (Rosin 2011) learns a weight for (optional: the action itself).
    #: The travelling salesman's is ``(current city, next city)``, so that the policy
    #: learns edges, not "city k next" wherever it comes.
    move_code: Callable[[IntArray, IntArray, int], int] | None = None
    #: A single-player game's prior knowledge of a move, ``move_bias(state, params, action)
    #: -> float`` (optional): Generalized NRPA (Cazenave 2020) draws a move with
    #: probability proportional to ``exp(w(code) + beta * bias)``. The travelling
    #: salesman's is minus the edge's length in units of a good tour's mean edge.
    move_bias: Callable[[IntArray, IntArray, int], float] | None = None
    #: A single-player game's local search over a finished sequence, ``polish(start,
    #: params, seq, n) -> score`` (optional): ``seq[:n]``, moves legal from position
    #: ``start`` that end the game, is reordered in place into another such sequence at
    #: least as good, and its score (what ``returns`` would write) is returned. It draws
    #: nothing. The single-player searches' ``polish`` option calls it on every playout;
    #: the travelling salesman's is 2-opt and Or-opt over the rest of the tour.
    polish: Callable[[IntArray, IntArray, IntArray, int], float] | None = None


class KernelGame:
    """A game whose rules are :class:`RuleKernels`; subclasses add names and drawings."""

    kernels: RuleKernels

    def __init__(self, info: GameInfo, params: IntArray) -> None:
        self._info = info
        self.params = params
        # Scratch buffers for legal_actions, one per thread (searches of one game may run
        # in several threads at once: root parallelism's, the web lab's sessions).
        self._local = threading.local()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_local"]  # buffers are per thread: not pickled (root-parallel processes)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    def _scratch(self) -> IntArray:
        """This thread's buffer for ``legal_actions``."""
        buf: IntArray | None = getattr(self._local, "buf", None)
        if buf is None:
            buf = self._local.buf = np.zeros(max(1, self._info.num_actions), dtype=np.int64)
        return buf

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> KernelState:
        return KernelState(self, self.kernels.init(self.params), [])

    def state_from_actions(self, actions: Sequence[int]) -> KernelState:
        """The state reached by playing ``actions`` (each checked) from the start."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(int(action))
        return state

    def __repr__(self) -> str:
        return f"<game {self._info.name}>"

    def observation_shape(self) -> tuple[int, ...]:
        """The shape of :meth:`KernelState.observation_tensor` for this game's parameters
        (a game with an ``observation`` kernel overrides it)."""
        raise InvalidConfigError(f"{self._info.name}: the game has no observation tensor")

    def num_move_codes(self) -> int:
        """How many move codes the ``move_code`` kernel writes (default: the actions)."""
        return self._info.num_actions

    # Presentation, overridden by each game.
    def action_name(self, state: KernelState, action: int) -> str:
        return str(action)

    def parse_action(self, state: KernelState, text: str) -> int | None:
        """The action named ``text``, or ``None``; default: the decimal action id."""
        return ascii_int(text.strip(), signed=True)

    def render(self, state: KernelState) -> str:
        return " ".join(str(int(v)) for v in state.array)

    def order_actions(self, actions: list[int]) -> list[int]:
        """Legal actions, likeliest best first (a hint for alpha-beta); default: as given."""
        return actions


class KernelState:
    """A :class:`~mctslab.core.game.State` over a game's rule kernels."""

    __slots__ = ("_game", "_history", "_legal", "array")

    def __init__(self, game: KernelGame, array: IntArray, history: list[int]) -> None:
        self._game = game
        self.array = array
        self._history = history
        self._legal: list[int] | None = None

    @property
    def game(self) -> KernelGame:
        return self._game

    def current_player(self) -> int:
        return int(self.array[0])

    def is_terminal(self) -> bool:
        return int(self.array[0]) == TERMINAL

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            g = self._game
            buf = g._scratch()
            n = g.kernels.legal_actions(self.array, g.params, buf)
            self._legal = buf[:n].tolist()
        return list(self._legal)

    def playout_actions(self) -> list[int]:
        """The moves a random playout chooses among here: the game's ``rollout_actions``
        kernel's, else the legal actions (the engines' playouts draw from these)."""
        rollout = self._game.kernels.rollout_actions
        if rollout is None:
            return self.legal_actions()
        buf = self._game._scratch()
        n = rollout(self.array, self._game.params, buf)
        return buf[:n].tolist()  # type: ignore[no-any-return]

    def light_action(self, rng: Rng) -> int | None:
        """The game's own random-playout move here (its ``light_action`` kernel, drawing
        from ``rng``, whose state advances as the compiled engine's word does), or
        ``None`` for a game without one (a playout then draws among
        :meth:`playout_actions`)."""
        return self._draw(self._game.kernels.light_action, rng)

    def heavy_action(self, rng: Rng) -> int | None:
        """The game's own heavy-playout move here (its ``heavy_action`` kernel, drawing
        from ``rng``, whose state advances as the compiled engine's word does), or
        ``None`` for a game without one."""
        return self._draw(self._game.kernels.heavy_action, rng)

    def knowledge(self) -> tuple[IntArray, IntArray] | None:
        """The game's prior knowledge of every action here, ``(visits, wins)`` arrays of
        ``num_actions`` entries (its ``knowledge`` kernel's), or ``None`` for a game
        without one."""
        kernel = self._game.kernels.knowledge
        if kernel is None:
            return None
        n = max(1, self._game.info.num_actions)
        visits = np.zeros(n, dtype=np.int64)
        wins = np.zeros(n, dtype=np.int64)
        kernel(self.array, self._game.params, visits, wins)
        return visits, wins

    def _draw(self, kernel: Callable[..., int] | None, rng: Rng) -> int | None:
        """``kernel(state, params, word, scratch)``'s move, ``word`` holding ``rng``'s
        state before and after (as the compiled engine's); ``None`` without a kernel."""
        if kernel is None:
            return None
        word = np.array([rng.state], dtype=np.uint64)
        action = int(kernel(self.array, self._game.params, word, self._game._scratch()))
        rng.state = int(word[0])
        return action

    def ordered_actions(self) -> list[int]:
        """The legal actions in the game's preferred search order (for alpha-beta)."""
        return self._game.order_actions(self.legal_actions())

    def legal_actions_mask(self) -> list[bool]:
        mask = [False] * self._game.info.num_actions
        for a in self.legal_actions():
            mask[a] = True
        return mask

    def apply_action(self, action: int) -> None:
        legal = self.legal_actions() if self._legal is None else self._legal
        if action not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self._game.kernels.apply_action(self.array, self._game.params, action)
        self._history.append(int(action))
        self._legal = None

    def _illegal_message(self, action: Any, legal: list[int]) -> str:
        name = self._game.info.name
        return illegal_action_message(name, f"{action}", legal, self.action_to_string)

    def child(self, action: int) -> Self:
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> Self:
        new = type(self)(self._game, self.array.copy(), list(self._history))
        new._legal = self._legal
        return new

    def returns(self) -> list[float]:
        out = np.zeros(self._game.info.num_players, dtype=np.float64)
        if self.is_terminal():
            self._game.kernels.returns(self.array, self._game.params, out)
        return out.tolist()  # type: ignore[no-any-return]

    def heuristic(self) -> list[float]:
        """A value estimate per player in ``[-1, 1]``; when terminal, the exact returns
        mapped linearly from the game's utility range onto ``[-1, 1]`` (as minimax scores
        a terminal position), so a game whose returns are scores stays in range."""
        if self.is_terminal():
            info = self._game.info
            span = info.max_utility - info.min_utility
            return [2.0 * (r - info.min_utility) / span - 1.0 for r in self.returns()]
        out = np.zeros(self._game.info.num_players, dtype=np.float64)
        self._game.kernels.heuristic(self.array, self._game.params, out)
        return out.tolist()  # type: ignore[no-any-return]

    def observation_tensor_shape(self) -> tuple[int, ...]:
        """The shape of :meth:`observation_tensor` (the game's ``observation_shape()``)."""
        return self._game.observation_shape()

    def observation_tensor(self, player: int | None = None) -> Float32Array:
        """What ``player`` observes, as a ``float32`` array of :meth:`observation_tensor_shape`
        (the game's ``observation`` kernel; where OpenSpiel has the game, OpenSpiel's layout).

        ``player`` defaults to the player to move; a terminal state has none, so there it
        must be given. Raises :class:`~mctslab.core.errors.InvalidConfigError` for a player
        not of the game, a terminal state without a player, or a game with no observation.
        """
        g = self._game
        shape = g.observation_shape()
        kernel = g.kernels.observation
        if kernel is None:
            raise InvalidConfigError(f"{g.info.name}: the game has no observation kernel")
        n = g.info.num_players
        if player is None:
            if self.is_terminal():
                raise InvalidConfigError(
                    f"{g.info.name}: the game is over: give observation_tensor a player in [0, {n - 1}]"
                )
            player = self.current_player()
        elif isinstance(player, bool) or not isinstance(player, int | np.integer):
            raise InvalidConfigError(
                f"{g.info.name}: player must be an integer in [0, {n - 1}], got {player!r}"
            )
        if not 0 <= player < n:
            raise InvalidConfigError(f"{g.info.name}: player must be in [0, {n - 1}], got {player}")
        out = np.zeros(int(np.prod(shape)), dtype=np.float32)
        kernel(self.array, g.params, int(player), out)
        return out.reshape(shape)

    def history(self) -> list[int]:
        return list(self._history)

    def key(self) -> Hashable:
        """The raw state array as bytes: equal positions give equal keys."""
        return self.array.tobytes()

    def action_to_string(self, action: int) -> str:
        return self._game.action_name(self, action)

    def string_to_action(self, text: str) -> int:
        action = self._game.parse_action(self, text)
        if action is None or not 0 <= action < self._game.info.num_actions:
            legal = ", ".join(self.action_to_string(a) for a in self.legal_actions())
            raise IllegalActionError(
                f"unknown action {text!r} in {self._game.info.name}; legal actions: {legal}"
            )
        return action

    def __str__(self) -> str:
        return self._game.render(self)

    def __repr__(self) -> str:
        return f"<{self._game.info.name} state after {self._history}>"


def _check_protocol() -> None:  # pragma: no cover - static check only
    s: State = KernelState.__new__(KernelState)
    del s
