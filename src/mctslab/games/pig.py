"""Pig, the dice game, with OpenSpiel's rules and encodings (OpenSpiel's ``pig``).

Rules. ``players`` players (2 to 10) take turns, player 0 first; every score
starts at 0. On a turn the player repeatedly chooses to *roll* or to *stop*.
A roll throws a ``dice``-sided die: a 1 ends the turn and the turn total is
lost; any other face ``k`` adds ``k`` to the turn total and the player chooses
again. *Stop* banks the turn total (adds it to the player's score) and passes
the turn to the next player (round robin). Once a player's score plus turn
total reaches ``target`` the only legal action is *stop*. The game ends as soon
as a banked score reaches ``target`` (that player wins), or when the players
have made ``horizon`` decisions (rolls and stops; die throws do not count),
even in the middle of a turn, including right after a roll, before the die
has been thrown.

Returns: the winner gets ``+1``, every other player ``-1 / (players - 1)`` (so
the game is zero-sum for any number of players); a game stopped by the horizon
without a winner gives every player ``0``.

Encodings (OpenSpiel's, id for id):

* Player actions: ``0`` roll, ``1`` stop; named ``"roll"`` and ``"stop"``.
* The die is a chance node (:data:`~mctslab.core.game.CHANCE`) after every roll;
  outcome ``i`` in ``[0, dice)`` is the face ``i + 1``, each with probability
  ``1 / dice``, named ``"Roll <i + 1>"``.
* ``num_actions = max(2, dice)``: large enough for the die's outcome ids too
  (OpenSpiel counts them apart: ``num_distinct_actions() = 2``,
  ``max_chance_outcomes() = dice``).
* ``max_game_length = 2 * horizon``: OpenSpiel's ``max_game_length()``
  (``horizon`` decisions) plus its ``max_chance_nodes_in_history()``
  (``horizon`` throws), because our histories hold the throws as well, the same
  bound mctslab's OpenSpiel adapter gives ``openspiel:pig``.
* ``str(state)`` and ``observation_string(player)`` (every player sees the
  same) are OpenSpiel's ``ToString()``: ``"Scores: 0 0, Turn total: 0\\n``
  ``Current player: 0\\n"``, with ``" (rolling)"`` after the player number
  while the die is in the air.
* ``observation_tensor(player)``: OpenSpiel's, ``(1 + players) x (target + 1)``
  floats flattened row by row: row 0 one-hot of the turn total, row ``1 + p``
  one-hot of player ``p``'s score, each capped at the last column ``target``.
* ``information_state_string(player)``: OpenSpiel's pig has none (it is a game
  of perfect information); ours is OpenSpiel's ``history_str()`` (the actions
  joined by ``", "``), what OpenSpiel's perfect-information games use, the same
  for every player. ``resample_from_infostate`` returns a copy of the state.

Parameters map onto OpenSpiel's: ``players`` = ``players``, ``target`` =
``winscore``, ``dice`` = ``diceoutcomes``, ``horizon`` = ``horizon``;
OpenSpiel's ``piglet`` variant (a two-outcome die) is not provided.

:class:`PigHoldPlayer` is the classic "hold at 20" strategy; the game declares it as its
own player kind, ``pig-hold:at=20`` (:attr:`Pig.player_kinds`, read by
:func:`mctslab.players.player.make_player`; its options are :class:`PigHoldOptions`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from mctslab.core.errors import IllegalActionError, InvalidConfigError, InvalidSpecError
from mctslab.core.game import CHANCE, TERMINAL, GameInfo, OpponentModel
from mctslab.core.infoset import sample_world
from mctslab.core.options import option
from mctslab.core.player_kinds import PlayerKind, spec_config
from mctslab.core.python_state import PythonState
from mctslab.core.rng import Rng
from mctslab.core.text import is_ascii_digits

__all__ = ["ROLL", "STOP", "Pig", "PigHoldOptions", "PigHoldPlayer", "PigState"]

#: The player action that throws the die.
ROLL = 0
#: The player action that banks the turn total and ends the turn.
STOP = 1

_ACTION_NAMES = ("roll", "stop")

#: The largest parameters a Pig game takes.
MAX_TARGET, MAX_DICE, MAX_HORIZON = 1000, 100, 10_000


def _check_int(name: str, value: object, lo: int, hi: int | None) -> int:
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < lo
        or (hi is not None and value > hi)
    ):
        valid = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise InvalidConfigError(f"pig: {name} must be an integer {valid}, got {value!r}")
    return value


@dataclass(frozen=True)
class PigHoldOptions:
    """The options of a ``pig-hold:`` spec (:class:`PigHoldPlayer`)."""

    at: int = option(20, "stop once the turn total reaches this", low=1, check=False)

    def __post_init__(self) -> None:
        if isinstance(self.at, bool) or not isinstance(self.at, int) or self.at < 1:
            raise InvalidConfigError(f"pig-hold: at must be >= 1, got {self.at!r}")


def _hold_player(options: dict[str, str], info: GameInfo, seed: int) -> PigHoldPlayer:
    """The player of a ``pig-hold:at=N`` spec (a :data:`~mctslab.core.player_kinds.PlayerFactory`;
    the strategy draws nothing, so ``seed`` is unused)."""
    if info.name != "pig":
        raise InvalidSpecError(f"pig-hold plays pig only, not {info.name}")
    return PigHoldPlayer(spec_config("pig-hold", PigHoldOptions, options).at)


class Pig:
    """The game of Pig: its parameters, static facts (``info``) and initial states.

    ``players`` in ``[2, 10]``, ``target`` (OpenSpiel's ``winscore``) in ``[1, 1000]``,
    ``dice`` (OpenSpiel's ``diceoutcomes``) in ``[2, 100]`` faces, ``horizon`` in
    ``[1, 10000]`` player decisions; anything else raises :class:`InvalidConfigError`.
    """

    #: The die is rolled by chance nodes (mctslab.core.game.has_chance_nodes).
    chance_nodes = True
    #: The player kinds this game adds to the spec strings (:mod:`mctslab.core.player_kinds`):
    #: ``pig-hold:at=20``, which reads the whole state (Pig hides nothing).
    player_kinds = (
        PlayerKind(
            "pig-hold",
            _hold_player,
            reads_hidden_information=True,
            options=(PigHoldOptions,),
            help='Pig\'s "hold at N" strategy: roll until the turn total reaches at=N (20)',
        ),
    )

    def __init__(
        self, players: int = 2, target: int = 100, dice: int = 6, horizon: int = 1000
    ) -> None:
        self.players = _check_int("players", players, 2, 10)
        # Upper bounds keep a game's tables and playouts small: the observation tensor
        # has target + 1 columns, a die has dice outcomes, and a game lasts up to
        # 2 * horizon plies (a playout of a billion plies would never end).
        self.target = _check_int("target", target, 1, MAX_TARGET)
        self.dice = _check_int("dice", dice, 2, MAX_DICE)
        self.horizon = _check_int("horizon", horizon, 1, MAX_HORIZON)
        self.info = GameInfo(
            name="pig",
            version=1,
            num_players=players,
            num_actions=max(2, dice),
            max_game_length=2 * horizon,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        self._faces = list(range(dice))  # the die's outcome ids
        self._outcomes = [(i, 1.0 / dice) for i in range(dice)]

    def new_initial_state(self) -> PigState:
        return PigState(self)

    def state_from_actions(self, actions: Sequence[int]) -> PigState:
        """The state reached by playing ``actions`` (each checked) from the start."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state

    def observation_tensor_shape(self) -> list[int]:
        """``[1 + players, target + 1]`` (OpenSpiel's ``observation_tensor_shape()``)."""
        return [1 + self.players, self.target + 1]

    def __repr__(self) -> str:
        return (
            f"Pig(players={self.players}, target={self.target}, dice={self.dice}, "
            f"horizon={self.horizon})"
        )


class PigState(PythonState[Pig]):
    """A Pig position and the actions that led to it. ``apply_action`` works in place.

    Plain ints and lists only: the playouts call ``current_player``,
    ``legal_actions``, ``apply_action`` and ``is_terminal`` millions of times.
    """

    __slots__ = (
        "_cur",
        "_dice",
        "_horizon",
        "_moves",
        "_n",
        "_over",
        "_scores",
        "_target",
        "_turn",
        "_turn_total",
    )
    copied = ("_scores",)

    def __init__(self, game: Pig) -> None:
        super().__init__(game)
        self._n = game.players
        self._target = game.target
        self._dice = game.dice
        self._horizon = game.horizon
        self._scores = [0] * game.players
        self._turn_total = 0
        self._turn = 0  # whose turn it is (also while the die rolls)
        self._cur = 0  # the player to decide, or CHANCE while the die rolls
        self._moves = 0  # player decisions so far (OpenSpiel's total_moves_)
        self._over = False

    # -- read-only views -------------------------------------------------------

    @property
    def scores(self) -> list[int]:
        """The banked scores, one per player (a copy)."""
        return list(self._scores)

    @property
    def turn_total(self) -> int:
        """The points rolled this turn, not banked yet."""
        return self._turn_total

    @property
    def turn_player(self) -> int:
        """Whose turn it is (also while the die is rolling and after the end)."""
        return self._turn

    @property
    def target(self) -> int:
        """The score that wins."""
        return self._target

    # -- the rules -------------------------------------------------------------

    def current_player(self) -> int:
        return TERMINAL if self._over else self._cur

    def is_terminal(self) -> bool:
        return self._over

    def legal_actions(self) -> list[int]:
        if self._over:
            return []
        cur = self._cur
        if cur < 0:
            return self._game._faces.copy()
        if self._scores[cur] + self._turn_total >= self._target:
            return [STOP]
        return [ROLL, STOP]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` for the die's faces at a chance node; empty elsewhere."""
        if self._over or self._cur != CHANCE:
            return []
        return list(self._game._outcomes)

    def _apply_action(self, action: int) -> None:
        cur = self._cur
        if self._over:
            raise self.illegal_action(action)
        if cur < 0:  # the die
            if not 0 <= action < self._dice:
                raise self.illegal_action(action)
            if action == 0:  # a 1: the turn total is lost, the turn passes
                self._turn_total = 0
                turn = self._turn + 1
                if turn == self._n:
                    turn = 0
                self._turn = self._cur = turn
            else:
                self._turn_total += action + 1
                self._cur = self._turn
        elif action == ROLL:
            if self._scores[cur] + self._turn_total >= self._target:
                raise self.illegal_action(action)
            self._cur = CHANCE
            self._moves += 1
            if self._moves >= self._horizon:
                self._over = True
        elif action == STOP:
            score = self._scores[cur] + self._turn_total
            self._scores[cur] = score
            self._turn_total = 0
            turn = self._turn + 1
            if turn == self._n:
                turn = 0
            self._turn = self._cur = turn
            self._moves += 1
            if score >= self._target or self._moves >= self._horizon:
                self._over = True
        else:
            raise self.illegal_action(action)

    def returns(self) -> list[float]:
        n = self._n
        if self._over:
            target = self._target
            for player, score in enumerate(self._scores):
                if score >= target:
                    values = [-1.0 / (n - 1)] * n
                    values[player] = 1.0
                    return values
        return [0.0] * n

    # -- names -----------------------------------------------------------------

    def _rolling(self) -> bool:
        return self._cur == CHANCE and not self._over

    def action_to_string(self, action: int) -> str:
        """``"roll"``/``"stop"``, or ``"Roll <face>"`` for an outcome of the die."""
        if self._rolling():
            if 0 <= action < self._dice:
                return f"Roll {action + 1}"
        elif action in (ROLL, STOP):
            return _ACTION_NAMES[action]
        raise self.illegal_action(action)

    def string_to_action(self, text: str) -> int:
        """Parse ``"roll"``/``"stop"`` (any case); at the die ``"Roll <face>"`` or ``"<face>"``."""
        words = text.strip().lower().split()
        if self._rolling():
            face = words[-1] if len(words) == 1 or (len(words) == 2 and words[0] == "roll") else ""
            if is_ascii_digits(face) and 1 <= int(face) <= self._dice:
                return int(face) - 1
        elif len(words) == 1 and words[0] in _ACTION_NAMES:
            return _ACTION_NAMES.index(words[0])
        names = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        raise IllegalActionError(f"unknown action {text!r} in pig; legal actions: {names}")

    def __str__(self) -> str:
        scores = " ".join(str(s) for s in self._scores)
        rolling = " (rolling)" if self._cur == CHANCE else ""
        return (
            f"Scores: {scores}, Turn total: {self._turn_total}\n"
            f"Current player: {self._turn}{rolling}\n"
        )

    def human_view(self, player: int | None = None) -> str:
        """The position in words for a person (players counted from 1; ``str(state)`` is
        OpenSpiel's string, 0-based). Pig hides nothing: ``player`` only says "you".

        >>> from mctslab.games.pig import Pig
        >>> state = Pig().state_from_actions([0, 3, 0, 5])  # roll, a 4, roll, a 6
        >>> print(state.human_view(0))
        Scores: player 1 (you) 0, player 2 0; target 100
        Player 1 to move; turn total 10
        """
        if player is not None:
            self.check_player(player)
        scores = ", ".join(
            f"player {p + 1}{' (you)' if p == player else ''} {score}"
            for p, score in enumerate(self._scores)
        )
        lines = [f"Scores: {scores}; target {self._target}"]
        if self._over:
            won = [p for p, score in enumerate(self._scores) if score >= self._target]
            if won:
                lines.append(f"Player {won[0] + 1} wins")
            else:
                lines.append(f"Over: the game's horizon of {self._horizon} moves, no winner")
        elif self._cur == CHANCE:
            lines.append(f"Player {self._turn + 1} rolls; turn total {self._turn_total}")
        else:
            lines.append(f"Player {self._turn + 1} to move; turn total {self._turn_total}")
        return "\n".join(lines)

    # -- what the players see --------------------------------------------------

    def information_state_string(self, player: int) -> str:
        """The history, ``", "``-joined (OpenSpiel's ``history_str()``); Pig hides nothing."""
        self.check_player(player)
        return ", ".join(map(str, self._history))

    def observation_string(self, player: int) -> str:
        """OpenSpiel's: ``str(state)``, the same for every player."""
        self.check_player(player)
        return str(self)

    def observation_tensor(self, player: int) -> list[float]:
        """OpenSpiel's one-hot tensor, ``(1 + players) x (target + 1)`` flattened by rows."""
        self.check_player(player)
        bins = self._target + 1
        values = [0.0] * ((1 + self._n) * bins)
        values[min(self._turn_total, bins - 1)] = 1.0
        for p, score in enumerate(self._scores):
            values[(1 + p) * bins + min(score, bins - 1)] = 1.0
        return values

    def resample_from_infostate(
        self, player: int, rng: Rng, model: OpponentModel | None = None
    ) -> PigState:
        """A copy: Pig is a game of perfect information (a ``model`` may still refuse it)."""
        self.check_player(player)
        return sample_world(self.clone, player, rng, model)

    # -- optional extras the engines use when present --------------------------

    def heuristic(self) -> list[float]:
        """Progress towards the target: each player's ``min(1, points / target)``, where the
        player whose turn it is counts the turn total too, minus the best progress of the
        others; in ``[-1, 1]``. The returns once the game is over."""
        if self._over:
            return self.returns()
        target = self._target
        progress = [min(1.0, s / target) for s in self._scores]
        turn = self._turn
        progress[turn] = min(1.0, (self._scores[turn] + self._turn_total) / target)
        values = []
        for p in range(self._n):
            others = max(progress[q] for q in range(self._n) if q != p)
            values.append(progress[p] - others)
        return values

    def key(self) -> Hashable:
        """The position: player to decide (or the die), turn, turn total, decisions made, scores."""
        return (self._cur, self._turn, self._turn_total, self._moves, self._over, *self._scores)


class PigHoldPlayer:
    """The "hold at ``hold_at``" strategy: roll while the turn total is below ``hold_at``
    and the player's score plus turn total is below the target; otherwise stop.

    With the default 20 this is the classic strategy that maximises the expected
    points of a turn (a roll at turn total ``t`` gains ``20/6`` on average and
    risks ``t/6``).
    """

    def __init__(self, hold_at: int = 20) -> None:
        if not isinstance(hold_at, int) or isinstance(hold_at, bool) or hold_at < 1:
            raise InvalidConfigError(
                f"PigHoldPlayer: hold_at must be an integer >= 1, got {hold_at!r}"
            )
        self.hold_at = hold_at
        self.name = f"pig-hold-{hold_at}"

    def choose(self, state: object) -> int:
        if not isinstance(state, PigState):
            raise InvalidConfigError(f"PigHoldPlayer plays pig only, got a {type(state).__name__}")
        player = state.current_player()
        if player < 0:
            raise IllegalActionError(f"PigHoldPlayer: no decision to make in state\n{state}")
        total = state.turn_total
        if total < self.hold_at and state.scores[player] + total < state.target:
            return ROLL
        return STOP

    def inform(self, action: int) -> None:
        pass
