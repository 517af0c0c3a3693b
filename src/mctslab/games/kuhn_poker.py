"""Kuhn poker, with OpenSpiel's rules and encodings (OpenSpiel's ``kuhn_poker``).

Rules (H. W. Kuhn, 1950; generalised to ``n`` players as in OpenSpiel). The
deck has ``n + 1`` cards, ``0`` (lowest) to ``n`` (highest); with two players
they are Jack, Queen, King. Every player antes 1 chip into the pot, then each
player in turn (0 first) is dealt one card face down. Betting: players act in
turn order, 0 first, each able to *pass* or *bet* 1 chip. Until someone bets,
*pass* means check; after the first bet, *bet* means call and *pass* means
fold. The betting round goes once around the table after the first bet: every
player after the first bettor, then every player before it, answers that bet
once. If nobody bets the highest card dealt wins the pot (each of the others
loses its ante); otherwise the highest card among the players who bet or
called wins. Returns: the winner gets ``pot - own stake``, every other player
``-own stake`` (stake 1, or 2 for a player who bet or called); zero-sum,
``min_utility = -2``, ``max_utility = 2 * (n - 1)``.

Encodings (OpenSpiel's, id for id and character for character):

* The deal: ``n`` chance nodes (:data:`~mctslab.core.game.CHANCE`), the ``i``-th
  giving a card to player ``i``; outcome ``c`` is card ``c``, drawn uniformly
  from the cards not dealt yet, named ``"Deal:<c>"``.
* Player actions: ``0`` pass (``"Pass"``), ``1`` bet (``"Bet"``).
* ``num_actions = n + 1`` (the card ids; OpenSpiel counts ``2`` distinct player
  actions and ``n + 1`` chance outcomes apart);
  ``max_game_length = 3n - 1``: the ``n`` deals plus OpenSpiel's
  ``max_game_length() = 2n - 1`` betting actions.
* ``str(state)``: the cards dealt, space separated, then a space and the
  betting with ``p`` for pass and ``b`` for bet: ``"2 0 3 pb"``.
* ``information_state_string(player)``: the player's card (once dealt) then the
  betting, ``"0pb"``; ``observation_string(player)``: the player's card then
  every player's contribution to the pot, ``"0121"`` (empty before the
  player's card is dealt).
* ``information_state_tensor(player)``, ``6n - 1`` floats: the observing player
  one-hot (``n``), its card one-hot (``n + 1``, zeros before the deal), then
  ``2n - 1`` betting slots of two (one-hot pass, bet).
* ``observation_tensor(player)``, ``3n + 1`` floats: the observing player
  one-hot (``n``), its card one-hot (``n + 1``), every player's contribution
  to the pot (``n``, starting at the ante 1).

``resample_from_infostate(player, rng, model=None)`` deals the other players'
cards afresh, uniformly from the cards ``player`` has not seen (its own is
kept), and replays the betting: nothing a player does in Kuhn poker reveals
its card, so every such deal is consistent.

The parameter ``players`` (2 to 10) is OpenSpiel's ``players``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import CHANCE, TERMINAL, GameInfo, OpponentModel
from mctslab.core.infoset import sample_world
from mctslab.core.python_state import PythonState
from mctslab.core.rng import Rng
from mctslab.core.text import is_ascii_digits

__all__ = ["BET", "PASS", "KuhnPoker", "KuhnPokerState"]

_RANKS = "23456789TJQKA"  # card names for people: the ranks below the ace

#: Check, or fold when facing a bet.
PASS = 0
#: Bet, or call when facing a bet.
BET = 1

_ACTION_NAMES = ("Pass", "Bet")
_NOBODY = -1
_ANTE = 1


class KuhnPoker:
    """Kuhn poker for ``players`` players (2 to 10; OpenSpiel's ``players``)."""

    #: Players do not see each other's cards (mctslab.core.infoset.is_perfect_information).
    perfect_information = False
    #: The deal is made by chance nodes (mctslab.core.game.has_chance_nodes).
    chance_nodes = True

    def __init__(self, players: int = 2) -> None:
        if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 10:
            raise InvalidConfigError(
                f"kuhn_poker: players must be an integer in [2, 10], got {players!r}"
            )
        self.players = players
        self.info = GameInfo(
            name="kuhn_poker",
            version=1,
            num_players=players,
            num_actions=players + 1,
            max_game_length=3 * players - 1,
            zero_sum=True,
            min_utility=-2.0,
            max_utility=2.0 * (players - 1),
        )

    def new_initial_state(self) -> KuhnPokerState:
        return KuhnPokerState(self)

    def state_from_actions(self, actions: Sequence[int]) -> KuhnPokerState:
        """The state reached by playing ``actions`` (each checked) from the start."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state

    def information_state_tensor_shape(self) -> list[int]:
        """``[6n - 1]`` (OpenSpiel's)."""
        return [6 * self.players - 1]

    def observation_tensor_shape(self) -> list[int]:
        """``[3n + 1]`` (OpenSpiel's)."""
        return [3 * self.players + 1]

    def __repr__(self) -> str:
        return f"KuhnPoker(players={self.players})"


class KuhnPokerState(PythonState[KuhnPoker]):
    """A Kuhn poker state: the deal and the betting so far. ``apply_action`` works in place."""

    __slots__ = ("_ante", "_first_bettor", "_n", "_owner", "_pot", "_winner")
    copied = ("_ante", "_owner")

    def __init__(self, game: KuhnPoker) -> None:
        super().__init__(game)
        n = game.players
        self._n = n
        self._owner = [_NOBODY] * (n + 1)  # card -> the player holding it
        self._first_bettor = _NOBODY
        self._winner = _NOBODY
        self._pot = _ANTE * n
        self._ante = [_ANTE] * n  # each player's contribution to the pot

    # -- read-only views -------------------------------------------------------

    def card(self, player: int) -> int | None:
        """The card dealt to ``player``, or ``None`` before it is dealt."""
        self.check_player(player)
        return self._history[player] if len(self._history) > player else None

    @property
    def pot(self) -> int:
        """The chips in the pot."""
        return self._pot

    @property
    def contributions(self) -> list[int]:
        """Each player's chips in the pot (a copy)."""
        return list(self._ante)

    def betting(self) -> list[int]:
        """The betting actions so far (the history after the deal)."""
        return self._history[self._n :]

    # -- the rules -------------------------------------------------------------

    def current_player(self) -> int:
        if self._winner != _NOBODY:
            return TERMINAL
        k = len(self._history)
        return CHANCE if k < self._n else k % self._n

    def is_terminal(self) -> bool:
        return self._winner != _NOBODY

    def legal_actions(self) -> list[int]:
        if self._winner != _NOBODY:
            return []
        if len(self._history) < self._n:
            return [c for c, p in enumerate(self._owner) if p == _NOBODY]
        return [PASS, BET]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(card, probability)`` for the cards not dealt yet at a deal; empty elsewhere."""
        k = len(self._history)
        if self._winner != _NOBODY or k >= self._n:
            return []
        p = 1.0 / (self._n + 1 - k)
        return [(c, p) for c, owner in enumerate(self._owner) if owner == _NOBODY]

    def _did_bet(self, player: int, playing: int) -> bool:
        """Whether ``player`` bet or called (OpenSpiel's ``DidBet``), ``playing`` being
        the action now applied, the next one of the history."""
        first = self._first_bettor
        if first == _NOBODY:
            return False
        if player == first:
            return True
        n, hist = self._n, self._history
        i = n + player if player > first else 2 * n + player
        return (hist[i] if i < len(hist) else playing) == BET

    def _apply_action(self, action: int) -> None:
        if self._winner != _NOBODY:
            raise self.illegal_action(action)
        hist, n = self._history, self._n
        k = len(hist)  # the index of this action (appended by the base afterwards)
        if k < n:  # deal card `action` to player k
            if not 0 <= action <= n or self._owner[action] != _NOBODY:
                raise self.illegal_action(action)
            self._owner[action] = k
            return
        if action == BET:
            player = k % n
            if self._first_bettor == _NOBODY:
                self._first_bettor = player
            self._pot += 1
            self._ante[player] += _ANTE
        elif action != PASS:
            raise self.illegal_action(action)
        acted = k + 1 - n
        first = self._first_bettor
        if first == _NOBODY:
            if acted == n:  # everybody checked: the highest card dealt wins
                owner = self._owner[n]
                self._winner = owner if owner != _NOBODY else self._owner[n - 1]
        elif acted == n + first:  # everybody answered the bet
            for card in range(n, -1, -1):
                owner = self._owner[card]
                if owner != _NOBODY and self._did_bet(owner, action):
                    self._winner = owner
                    break

    def clone(self) -> KuhnPokerState:
        # Written out rather than inherited: PythonState's clone sets the attributes by
        # name (setattr), about three times as long as this, and a random playout of Kuhn
        # poker is so short (4 moves, 7 us) that the clone the engine makes before each
        # one would cost it 7%.
        new = KuhnPokerState.__new__(KuhnPokerState)
        new._game = self._game
        new._history = self._history.copy()
        new._n = self._n
        new._owner = self._owner.copy()
        new._first_bettor = self._first_bettor
        new._winner = self._winner
        new._pot = self._pot
        new._ante = self._ante.copy()
        return new

    def returns(self) -> list[float]:
        winner = self._winner
        if winner == _NOBODY:
            return [0.0] * self._n
        pot = self._pot
        return [float(pot - stake if p == winner else -stake) for p, stake in enumerate(self._ante)]

    # -- names -----------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """``"Deal:<card>"`` at a deal, else ``"Pass"`` or ``"Bet"``."""
        if self.current_player() == CHANCE:
            if 0 <= action <= self._n:
                return f"Deal:{action}"
        elif action in (PASS, BET):
            return _ACTION_NAMES[action]
        raise self.illegal_action(action)

    def string_to_action(self, text: str) -> int:
        """Parse ``"Pass"``/``"Bet"`` (any case, or ``p``/``b``), or ``"Deal:<c>"``/``"<c>"``."""
        word = text.strip().lower()
        if self.current_player() == CHANCE:
            card = word.removeprefix("deal:").strip()
            if is_ascii_digits(card) and int(card) <= self._n:
                return int(card)
        else:
            for action, name in enumerate(_ACTION_NAMES):
                if word in (name.lower(), name[0].lower()):
                    return action
        names = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        raise IllegalActionError(f"unknown action {text!r} in kuhn_poker; legal actions: {names}")

    def __str__(self) -> str:
        n = self._n
        text = " ".join(str(c) for c in self._history[:n])
        if len(self._history) > n:
            text += " " + "".join("b" if a else "p" for a in self._history[n:])
        return text

    # -- what the players see --------------------------------------------------

    def card_name(self, card: int) -> str:
        """A card for people: Jack, Queen, King with two players (OpenSpiel's 0, 1, 2);
        with more, the top ``n + 1`` ranks below the ace (three players: T J Q K)."""
        return _RANKS[len(_RANKS) - 1 - (self._n + 1) + card]

    def human_view(self, player: int | None = None) -> str:
        """The position in words, as a person in seat ``player`` sees it (``None``: every
        card, as at the end). People count players from 1; the API's ids are 0-based.

        >>> from mctslab.games.kuhn_poker import KuhnPoker
        >>> state = KuhnPoker().state_from_actions([2, 0, 0, 1])
        >>> print(state.human_view(0))
        You are player 1; your card: K (low to high: J Q K)
        Pot: 3 chips (player 1: 1, player 2: 2)
        Betting: player 1 checks, player 2 bets; player 1 to act
        >>> state.apply_action(1)
        >>> print(state.human_view())
        Cards: player 1 K, player 2 J
        Pot: 4 chips (player 1: 2, player 2: 2)
        Betting: player 1 checks, player 2 bets, player 1 calls
        Player 1 wins 4 chips (returns +2, -2)
        """
        n, hist = self._n, self._history
        order = " ".join(self.card_name(c) for c in range(n + 1))
        if player is None:
            dealt = [f"player {p + 1} {self.card_name(hist[p])}" for p in range(min(n, len(hist)))]
            lines = [f"Cards: {', '.join(dealt) or 'none dealt yet'}"]
        else:
            self.check_player(player)
            card = self.card_name(hist[player]) if len(hist) > player else "not dealt yet"
            lines = [f"You are player {player + 1}; your card: {card} (low to high: {order})"]
        chips = ", ".join(f"player {p + 1}: {a}" for p, a in enumerate(self._ante))
        lines.append(f"Pot: {self._pot} chips ({chips})")
        words, facing = [], False
        for i, a in enumerate(hist[n:]):
            if a == BET:
                words.append(f"player {i % n + 1} {'calls' if facing else 'bets'}")
                facing = True
            else:
                words.append(f"player {i % n + 1} {'folds' if facing else 'checks'}")
        to_act = self.current_player()
        text = ", ".join(words) if words else "none yet"
        if to_act >= 0:
            text += f"; player {to_act + 1} to act"
        lines.append(f"Betting: {text}")
        if self._winner != _NOBODY:
            returns = ", ".join(f"{r:+g}" for r in self.returns())
            lines.append(f"Player {self._winner + 1} wins {self._pot} chips (returns {returns})")
        return "\n".join(lines)

    def information_state_string(self, player: int) -> str:
        """The player's card, then the betting as ``p``/``b``: ``"0pb"``."""
        self.check_player(player)
        hist = self._history
        card = str(hist[player]) if len(hist) > player else ""
        return card + "".join("b" if a else "p" for a in hist[self._n :])

    def observation_string(self, player: int) -> str:
        """The player's card, then each player's chips in the pot: ``"0121"``."""
        self.check_player(player)
        if len(self._history) <= player:
            return ""
        return str(self._history[player]) + "".join(str(a) for a in self._ante)

    def _private_tensor(self, player: int, size: int) -> list[float]:
        n = self._n
        values = [0.0] * size
        values[player] = 1.0
        if len(self._history) > player:
            values[n + self._history[player]] = 1.0
        return values

    def information_state_tensor(self, player: int) -> list[float]:
        """OpenSpiel's: player one-hot, card one-hot, then ``2n - 1`` pass/bet one-hots."""
        self.check_player(player)
        n = self._n
        values = self._private_tensor(player, 6 * n - 1)
        base = 2 * n + 1
        for i, action in enumerate(self._history[n:]):
            values[base + 2 * i + action] = 1.0
        return values

    def observation_tensor(self, player: int) -> list[float]:
        """OpenSpiel's: player one-hot, card one-hot, then each player's chips in the pot."""
        self.check_player(player)
        n = self._n
        values = self._private_tensor(player, 3 * n + 1)
        values[2 * n + 1 :] = [float(a) for a in self._ante]
        return values

    def resample_from_infostate(
        self, player: int, rng: Rng, model: OpponentModel | None = None
    ) -> KuhnPokerState:
        """A state ``player`` cannot tell from this one: the other players' dealt cards drawn
        uniformly from the cards ``player`` has not seen, the betting replayed; reweighted
        by ``model`` through :func:`mctslab.core.infoset.sample_world`."""
        self.check_player(player)
        hist, n = self._history, self._n
        dealt = min(len(hist), n)
        own = hist[player] if dealt > player else _NOBODY
        betting = hist[n:]
        game = self._game

        def uniform() -> KuhnPokerState:
            pool = [c for c in range(n + 1) if c != own]
            world = KuhnPokerState(game)
            for seat in range(dealt):
                world.apply_action(own if seat == player else pool.pop(rng.randint(len(pool))))
            for action in betting:
                world.apply_action(action)
            return world

        return sample_world(uniform, player, rng, model)

    # -- optional extras the engines use when present --------------------------

    def key(self) -> Hashable:
        """The history, which names the state."""
        return tuple(self._history)
