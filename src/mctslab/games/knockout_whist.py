"""Knockout Whist, the card game of the Information Set MCTS literature, in plain Python.

The test game of Cowling, Powley and Whitehouse, "Information Set Monte Carlo
Tree Search" (IEEE TCIAIG 4(2), 2012): a trick-taking game for 2 to 7 players
in which a player who takes no trick in a round is out.

Rules (as implemented here):

* The deck has 52 cards. Card id ``suit * 13 + rank``, suits clubs, diamonds,
  hearts, spades ``0..3``, ranks 2 to ace ``0..12``; names ``"2C"``, ``"TD"``,
  ``"AS"`` (rank ``23456789TJQKA``, then suit ``CDHS``).
* At most 7 rounds. Round ``r`` (1-based) deals ``8 - r`` cards to every player
  still in the game, from a full reshuffled deck: 7 cards each in round 1, 6 in
  round 2, ..., 1 in round 7. Every card dealt is a chance node whose outcomes
  are the cards not yet dealt this round, each equally likely. The cards go
  round the table in seat order: deal ``k`` of a round (0-based) goes to the
  ``k mod m``-th active player in ascending seat order (``m`` players active),
  so the lowest active seat gets the first card.
* After the deal one more chance node picks the trump suit, uniformly among
  the four (actions ``52..55``, named ``"trump C"`` .. ``"trump S"``).
* The first trick of round 1 is led by player 0. The first trick of a later
  round is led by the player who won most tricks in the previous round; a tie
  goes to the lowest seat among the tied players. (All of them are still in.)
* A trick: the leader plays any card from its hand; then every other active
  player, in ascending seat order from the leader (wrapping round, skipping
  the players who are out), plays one card: a card of the led suit if it has
  one, else any card. The trick goes to the highest trump played if any, else
  to the highest card of the led suit (a discard of another suit never wins).
  The trick's winner leads the next trick.
* After the last trick of a round (every dealt card has then been played),
  every active player who took no trick in that round is knocked out. When
  one player is left the game ends and that player wins: it gets ``+1`` and
  every other player ``-1 / (N - 1)`` (zero-sum; ``+1`` / ``-1`` for two
  players). Round 7 deals one card each, so a single trick decides it: the
  game always ends by round 7.

Encodings: action ids ``0..51`` are cards (both the deals, at chance nodes, and
the plays), ``52..55`` the trump suits (clubs, diamonds, hearts, spades);
``num_actions = 56``. ``max_game_length`` is the exact longest game, chance
nodes counted: round ``r`` with ``a`` active players takes ``a * (8 - r)``
deals, one trump draw and ``a * (8 - r)`` plays, and at most ``9 - r`` players
can be left in round ``r >= 2`` (one trick each in round ``r - 1``), so the
bound is ``sum over r of 2 (8 - r) a_r + 1`` with ``a_1 = N`` and
``a_r = min(N, 9 - r)``: 119 for two players, 329 for seven.
``string_to_action`` also takes lower case, ``"10S"`` for ``"TS"`` and
``"trump spades"``. Besides the game API a state answers ``hand(player)``,
``trump_suit()``, ``round_number()``, ``active_players()``, ``tricks_won()``
and ``current_trick()`` (for opponent models, displays and tests).

Hidden information (:class:`~mctslab.core.game.ImperfectInformationState`):

* ``information_state_string(player)`` (perfect recall): for every round so
  far, the cards dealt to ``player`` (as a set, sorted: the order in which its
  own cards arrived tells nothing) and how many cards have been dealt in all,
  the trump suit, and every card played, by whom, in order. Nothing of the
  other players' hands.
* ``observation_string(player)``: the round, the trump suit, the player's hand
  now, the current trick, the tricks won this round and who is out.
* ``resample_from_infostate(player, rng, model=None)`` re-draws the current
  hands of the other active players from the cards ``player`` has not seen
  this round (not dealt to it and not played), with their hand sizes, and
  with the voids the play revealed: a player who did not follow suit in this
  round holds no card of the led suit. That is every constraint the history
  puts on the hands: a card of the led suit is always legal, a discard only
  needs the void. The new world is built by rewriting this round's deal
  actions in the history (each other player's dealt cards become the cards it
  already played this round plus its new hand; ``player``'s deals are kept)
  and replaying the history, so the world is a legal game. Earlier rounds are
  kept as they are: every card dealt in them was played.

  Sampling is exactly uniform over the consistent worlds (no rejection, no
  approximation). The hands that the voids constrain are drawn by counting:
  the players with the same voids form a group; group after group (most
  constrained first) takes ``x[s]`` cards of each suit ``s`` it may hold, with
  probability proportional to ``prod C(c[s], x[s])`` times the number of ways
  the later groups can still be dealt (memoised; the last group's count is
  Vandermonde's ``C(sum c[s], need)``), the cards of each suit uniformly; a
  group's cards are then split uniformly among its members. The players with
  no void that matters, and the undealt rest of the deck, share the cards
  left, uniformly: every deal to the groups leaves them equally many ways.
  With a ``model`` the draws go through :func:`mctslab.core.infoset.sample_world`.

The parameter ``players`` (2 to 7) is the number of players.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence

from mctslab.core.errors import IllegalActionError, InvalidConfigError
from mctslab.core.game import CHANCE, TERMINAL, GameInfo, OpponentModel
from mctslab.core.infoset import sample_world
from mctslab.core.python_state import PythonState
from mctslab.core.rng import Rng

__all__ = [
    "NUM_ACTIONS",
    "NUM_CARDS",
    "TRUMP_ACTION",
    "KnockoutWhist",
    "KnockoutWhistState",
    "card_name",
]

#: Cards in the deck; card ids ``0..51`` are ``suit * 13 + rank``.
NUM_CARDS = 52
#: The action id of trumps clubs; ``TRUMP_ACTION + suit`` picks ``suit``.
TRUMP_ACTION = 52
#: Card ids and the four trump outcomes.
NUM_ACTIONS = 56
#: Rounds at most (round ``r`` deals ``8 - r`` cards to each player).
NUM_ROUNDS = 7

MIN_PLAYERS, MAX_PLAYERS = 2, 7
RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

_FULL = (1 << NUM_CARDS) - 1
_SUIT_MASK = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
_TRUMP_MASK = 0xF << TRUMP_ACTION
_CARD_NAMES = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(NUM_CARDS))
_ACTION_NAMES = (*_CARD_NAMES, *(f"trump {s}" for s in SUITS))
_TRUMP_OUTCOMES = tuple((TRUMP_ACTION + s, 0.25) for s in range(4))

# Phases of a state.
_DEAL, _TRUMP, _PLAY, _OVER = 0, 1, 2, 3


def card_name(card: int) -> str:
    """The name of card id ``card``: rank ``23456789TJQKA`` then suit ``CDHS`` (``"AS"``)."""
    return _CARD_NAMES[card]


def _parse_table() -> dict[str, int]:
    table = {name: a for a, name in enumerate(_ACTION_NAMES)}
    for c in range(NUM_CARDS):
        if c % 13 == 8:  # "10S" for "TS"
            table["10" + SUITS[c // 13]] = c
    for s, name in enumerate(SUIT_NAMES):
        table[f"TRUMP {name.upper()}"] = TRUMP_ACTION + s
    return {key.upper(): a for key, a in table.items()}


_PARSE = _parse_table()


# _BYTES[i][b]: the set bits of byte value ``b`` at byte ``i`` of a mask (7 bytes hold 56 ids).
_BYTES = tuple(
    tuple(tuple(8 * i + j for j in range(8) if b >> j & 1) for b in range(256)) for i in range(7)
)


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask`` (below ``2**56``), ascending."""
    b0, b1, b2, b3, b4, b5, b6 = _BYTES
    return [
        *b0[mask & 255],
        *b1[mask >> 8 & 255],
        *b2[mask >> 16 & 255],
        *b3[mask >> 24 & 255],
        *b4[mask >> 32 & 255],
        *b5[mask >> 40 & 255],
        *b6[mask >> 48],
    ]


def _names(mask: int) -> str:
    return " ".join(_CARD_NAMES[c] for c in _bits(mask)) or "-"


def _trick_winner(cards: Sequence[int], trump: int) -> int:
    """The index in ``cards`` (a trick in play order) of the card that takes it."""
    led = cards[0] // 13
    best, best_score = 0, -1
    for i, c in enumerate(cards):
        s = c // 13
        # Off-suit discards score their rank alone (< 13): never above the led card.
        score = c % 13 + (13 if s == led else 0) + (26 if s == trump else 0)
        if score > best_score:
            best, best_score = i, score
    return best


def _max_game_length(players: int) -> int:
    total = 0
    for r in range(1, NUM_ROUNDS + 1):
        active = players if r == 1 else min(players, 9 - r)
        total += 2 * (8 - r) * active + 1
    return total


class KnockoutWhist:
    """Knockout Whist for ``players`` players (2 to 7)."""

    #: Players do not see each other's hands (mctslab.core.infoset.is_perfect_information).
    perfect_information = False
    #: The deal is made by chance nodes (mctslab.core.game.has_chance_nodes).
    chance_nodes = True

    def __init__(self, players: int = 2) -> None:
        try:
            n = operator.index(players)
        except TypeError:
            n = -1
        if isinstance(players, bool) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise InvalidConfigError(
                f"knockout_whist: players must be an integer in "
                f"[{MIN_PLAYERS}, {MAX_PLAYERS}], got {players!r}"
            )
        self.players = n
        self.info = GameInfo(
            name="knockout_whist",
            version=1,
            num_players=n,
            num_actions=NUM_ACTIONS,
            max_game_length=_max_game_length(n),
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        self._loss = -1.0 / (n - 1)

    def new_initial_state(self) -> KnockoutWhistState:
        return KnockoutWhistState(self)

    def state_from_actions(self, actions: Sequence[int]) -> KnockoutWhistState:
        """The state reached by playing ``actions`` (each checked) from the start."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state

    def __repr__(self) -> str:
        return f"KnockoutWhist(players={self.players})"


class KnockoutWhistState(PythonState[KnockoutWhist]):
    """A position and the actions that led to it. ``apply_action`` works in place.

    Hands are bitmasks of card ids; the active players are a tuple of seats
    (ascending) and ``_next[seat]`` the active seat after ``seat``.
    """

    __slots__ = (
        "_active",
        "_deal_total",
        "_dealt",
        "_hands",
        "_leader",
        "_n",
        "_ndealt",
        "_next",
        "_phase",
        "_round",
        "_round_leader",
        "_round_start",
        "_to_move",
        "_trick",
        "_tricks",
        "_trump",
        "_winner",
    )
    copied = ("_hands", "_trick", "_tricks")

    def __init__(self, game: KnockoutWhist) -> None:
        super().__init__(game)
        n = game.players
        self._n = n
        self._hands = [0] * n
        self._winner = -1
        self._round = 0
        self._start_round(tuple(range(n)), 0, 0)

    def _start_round(self, active: tuple[int, ...], leader: int, start: int) -> None:
        self._round += 1
        self._active = active
        nxt = [0] * self._n
        for i, seat in enumerate(active):
            nxt[seat] = active[(i + 1) % len(active)]
        self._next = tuple(nxt)
        self._dealt = 0
        self._ndealt = 0
        self._deal_total = len(active) * (8 - self._round)
        self._trump = -1
        self._leader = self._round_leader = self._to_move = leader
        self._trick: list[int] = []
        self._tricks = [0] * self._n
        self._round_start = start
        self._phase = _DEAL

    # -- the rules -------------------------------------------------------------

    def _legal_mask(self) -> int:
        """The legal actions as a bitmask over the 56 action ids."""
        phase = self._phase
        if phase == _PLAY:
            hand = self._hands[self._to_move]
            trick = self._trick
            if trick:
                follow = hand & _SUIT_MASK[trick[0] // 13]
                if follow:
                    return follow
            return hand
        if phase == _DEAL:
            return _FULL ^ self._dealt
        if phase == _TRUMP:
            return _TRUMP_MASK
        return 0

    def _apply_action(self, action: int) -> None:
        if not 0 <= action < NUM_ACTIONS or not (self._legal_mask() >> action) & 1:
            raise self.illegal_action(action)
        self._do(action)

    def _do(self, a: int) -> None:
        """Apply the legal action ``a`` (the base appends it to the history afterwards:
        a round that ends with it starts after it)."""
        phase = self._phase
        if phase == _PLAY:
            p = self._to_move
            self._hands[p] ^= 1 << a
            trick = self._trick
            trick.append(a)
            if len(trick) < len(self._active):
                self._to_move = self._next[p]
                return
            i = _trick_winner(trick, self._trump)
            winner = self._leader
            nxt = self._next
            for _ in range(i):
                winner = nxt[winner]
            self._tricks[winner] += 1
            self._trick = []
            self._leader = self._to_move = winner
            if not self._hands[winner]:
                self._end_round()
        elif phase == _DEAL:
            active = self._active
            self._hands[active[self._ndealt % len(active)]] |= 1 << a
            self._dealt |= 1 << a
            self._ndealt += 1
            if self._ndealt == self._deal_total:
                self._phase = _TRUMP
        else:
            self._trump = a - TRUMP_ACTION
            self._phase = _PLAY

    def _end_round(self) -> None:
        tricks = self._tricks
        left = tuple(p for p in self._active if tricks[p])
        if len(left) == 1:
            self._winner = left[0]
            self._active = left
            self._phase = _OVER
            self._round_start = len(self._history) + 1
            self._ndealt = 0
            return
        best = max(tricks)
        leader = next(p for p in left if tricks[p] == best)
        self._start_round(left, leader, len(self._history) + 1)

    # -- the State protocol ----------------------------------------------------

    def current_player(self) -> int:
        phase = self._phase
        if phase == _PLAY:
            return self._to_move
        if phase == _OVER:
            return TERMINAL
        return CHANCE

    def legal_actions(self) -> list[int]:
        mask = self._legal_mask()
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(outcome, probability), ...]`` at a chance node; empty elsewhere."""
        phase = self._phase
        if phase == _DEAL:
            cards = _bits(_FULL ^ self._dealt)
            p = 1.0 / len(cards)
            return [(c, p) for c in cards]
        if phase == _TRUMP:
            return list(_TRUMP_OUTCOMES)
        return []

    def is_terminal(self) -> bool:
        return self._phase == _OVER

    def returns(self) -> list[float]:
        n = self._n
        if self._winner < 0:
            return [0.0] * n
        out = [self._game._loss] * n
        out[self._winner] = 1.0
        return out

    def action_to_string(self, action: int) -> str:
        """``"AS"`` for a card (dealt or played), ``"trump S"`` for a trump draw."""
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"knockout_whist has no action {action} (ids 0..55)")
        return _ACTION_NAMES[action]

    def string_to_action(self, text: str) -> int:
        """Parse ``"AS"`` (also ``"as"``, ``"10S"``) or ``"trump S"`` (``"trump spades"``)."""
        action = _PARSE.get(" ".join(str(text).split()).upper())
        if action is None:
            raise self.unknown_action(text)
        return action

    def __str__(self) -> str:
        lines = [f"Knockout Whist, round {self._round} of {NUM_ROUNDS}"]
        if self._phase != _OVER:
            size = 8 - self._round
            lines[0] += f", {size} card{'s' if size > 1 else ''} each"
        trump = SUIT_NAMES[self._trump] if self._trump >= 0 else "not drawn yet"
        lines.append(f"trump: {trump}")
        active = self._active
        for p in range(self._n):
            if p in active:
                lines.append(
                    f"player {p + 1}: {_names(self._hands[p])}  (tricks {self._tricks[p]})"
                )
            else:
                lines.append(f"player {p + 1}: out")
        played = ", ".join(f"player {p + 1} {_CARD_NAMES[c]}" for p, c in self.current_trick())
        lines.append(f"trick: {played or '-'}")
        if self._phase == _DEAL:
            lines.append(f"chance: dealing card {self._ndealt + 1} of {self._deal_total}")
        elif self._phase == _TRUMP:
            lines.append("chance: drawing the trump suit")
        elif self._phase == _PLAY:
            lines.append(f"player {self._to_move + 1} to play")
        else:
            lines.append(f"player {self._winner + 1} wins")
        return "\n".join(lines)

    def human_view(self, player: int | None = None) -> str:
        """The position in words, as a person in seat ``player`` sees it: its own hand
        only (``None``: every hand, as at the end). People count players from 1; the
        API's ids (and ``observation_string``) are 0-based.

        >>> from mctslab.games.knockout_whist import KnockoutWhist
        >>> state = KnockoutWhist().new_initial_state()
        >>> for card in ["AS", "2C", "KS", "3C", "QS", "4C", "JS", "5C", "TS", "6C", "9S",
        ...              "7C", "8S", "8C", "trump S"]:
        ...     state.apply_action(state.string_to_action(card))
        >>> print(state.human_view(1))
        You are player 2; round 1 of 7, trumps: spades
        Your hand: 2C 3C 4C 5C 6C 7C 8C
        Trick: player 1 leads
        Tricks this round: player 1: 0, player 2: 0
        """
        lines = []
        trump = SUIT_NAMES[self._trump] if self._trump >= 0 else "not drawn yet"
        where = f"round {self._round} of {NUM_ROUNDS}, trumps: {trump}"
        if player is None:
            lines.append(where[0].upper() + where[1:])
            for p in range(self._n):
                hand = _names(self._hands[p]) if p in self._active else "out"
                lines.append(f"Player {p + 1}: {hand}")
        else:
            self.check_player(player)
            lines.append(f"You are player {player + 1}; {where}")
            if player in self._active:
                lines.append(f"Your hand: {_names(self._hands[player])}")
            else:
                lines.append("You are out of the game")
        if self._phase == _OVER:
            lines.append(f"Player {self._winner + 1} wins the game")
            return "\n".join(lines)
        played = [f"player {p + 1} played {_CARD_NAMES[c]}" for p, c in self.current_trick()]
        if self._phase == _PLAY:
            mover = f"player {self._to_move + 1} {'plays' if played else 'leads'}"
            played.append("you lead" if not played and self._to_move == player else mover)
        lines.append(f"Trick: {', '.join(played) or 'the cards are being dealt'}")
        tricks = ", ".join(f"player {p + 1}: {self._tricks[p]}" for p in self._active)
        lines.append(f"Tricks this round: {tricks}")
        out = [f"player {p + 1}" for p in range(self._n) if p not in self._active]
        if out:
            lines.append(f"Out: {', '.join(out)}")
        return "\n".join(lines)

    def _trick_text(self) -> str:
        return " ".join(f"{p}:{_CARD_NAMES[c]}" for p, c in self.current_trick()) or "-"

    # -- queries (for opponent models, displays and tests) ----------------------

    def hand(self, player: int) -> list[int]:
        """The card ids ``player`` holds now, ascending (hidden from the other players)."""
        self.check_player(player)
        return _bits(self._hands[player])

    def trump_suit(self) -> int | None:
        """This round's trump suit (0..3, clubs to spades), ``None`` before it is drawn."""
        return self._trump if self._trump >= 0 else None

    def round_number(self) -> int:
        """The round being played, 1 to 7 (the last round at the end of the game)."""
        return self._round

    def active_players(self) -> list[int]:
        """The players still in the game (at the end: the winner), ascending."""
        return list(self._active)

    def tricks_won(self) -> list[int]:
        """Tricks each player has won in this round (zeros once a new round starts)."""
        return self._tricks.copy()

    def current_trick(self) -> list[tuple[int, int]]:
        """The cards played to the current trick: ``[(player, card), ...]`` in order."""
        out = []
        seat = self._leader
        for c in self._trick:
            out.append((seat, c))
            seat = self._next[seat]
        return out

    # -- hidden information ----------------------------------------------------

    def check_player(self, player: int) -> None:
        """Stricter than the base's: ``player`` must be an ``int`` (not a bool)."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self._n:
            raise InvalidConfigError(
                f"knockout_whist: player must be an integer in [0, {self._n - 1}], got {player!r}"
            )

    def _walk(self) -> Iterator[tuple[KnockoutWhistState, int]]:
        """Replay the history: yields (the state before each action, the action)."""
        state = self._game.new_initial_state()
        for a in self._history:
            yield state, a
            state._do(a)
            state._history.append(a)

    def information_state_string(self, player: int) -> str:
        """What ``player`` knows: per round its dealt cards, the deal count, trumps, every play."""
        self.check_player(player)
        lines = [f"player {player}"]
        rounds: list[tuple[int, int, int, int, list[str]]] = []  # round, own, dealt, trump, plays
        for state, a in self._walk():
            phase = state._phase
            if phase == _DEAL:
                if state._ndealt == 0:
                    rounds.append((state._round, 0, 0, -1, []))
                rnd, own, dealt, trump, plays = rounds[-1]
                active = state._active
                if active[state._ndealt % len(active)] == player:
                    own |= 1 << a
                rounds[-1] = (rnd, own, dealt + 1, trump, plays)
            elif phase == _TRUMP:
                rnd, own, dealt, _, plays = rounds[-1]
                rounds[-1] = (rnd, own, dealt, a - TRUMP_ACTION, plays)
            else:
                plays = rounds[-1][4]
                if plays and not state._trick:
                    plays.append("/")  # a new trick
                plays.append(f"{state._to_move}:{_CARD_NAMES[a]}")
        for rnd, own, dealt, trump, plays in rounds:
            lines.append(f"round {rnd}: dealt {_names(own)} ({dealt} cards dealt)")
            if trump >= 0:
                lines.append(f"trump {SUITS[trump]}")
            if plays:
                lines.append("plays " + " ".join(plays))
        return "\n".join(lines)

    def observation_string(self, player: int) -> str:
        """What ``player`` sees now: round, trumps, its hand, the trick, tricks won, who is out."""
        self.check_player(player)
        trump = SUITS[self._trump] if self._trump >= 0 else "-"
        tricks = " ".join(f"{p}:{self._tricks[p]}" for p in self._active)
        out = " ".join(str(p) for p in range(self._n) if p not in self._active) or "-"
        return (
            f"player {player} | round {self._round} | trump {trump} | "
            f"hand {_names(self._hands[player])} | trick {self._trick_text()} | "
            f"tricks {tricks} | out {out}"
        )

    def resample_from_infostate(
        self, player: int, rng: Rng, model: OpponentModel | None = None
    ) -> KnockoutWhistState:
        """A world ``player`` cannot tell from this one, uniform among the consistent ones
        (see the module docstring; weighted by ``model`` if given)."""
        self.check_player(player)
        if model is None:
            return self._resample(player, rng)
        return sample_world(lambda: self._resample(player, rng), player, rng, model)

    def _resample(self, player: int, rng: Rng) -> KnockoutWhistState:
        history = self._history
        start, ndealt = self._round_start, self._ndealt
        active = self._active
        m = len(active)
        # The cards dealt this round, by recipient (in the true world).
        dealt = [0] * self._n
        for k in range(ndealt):
            dealt[active[k % m]] |= 1 << history[start + k]
        played = [dealt[p] ^ self._hands[p] for p in range(self._n)]
        played_all = 0
        for mask in played:
            played_all |= mask
        # Voids: the suits a player did not follow this round (as card masks).
        forbidden = [0] * self._n
        plays = history[start + ndealt + 1 :] if self._phase == _PLAY else []
        leader = self._round_leader
        for t in range(0, len(plays), m):
            trick = plays[t : t + m]
            led = trick[0] // 13
            seat = leader
            seats = []
            for c in trick:
                if c // 13 != led:
                    forbidden[seat] |= _SUIT_MASK[led]
                seats.append(seat)
                seat = self._next[seat]
            if len(trick) == m:
                leader = seats[_trick_winner(trick, self._trump)]
        others = [q for q in active if q != player and self._hands[q]]
        pool = _FULL & ~dealt[player] & ~played_all
        sizes = {q: self._hands[q].bit_count() for q in others}
        hands = _deal_hands(pool, others, sizes, {q: pool & ~forbidden[q] for q in others}, rng)
        new = history[:start]
        slots: dict[int, list[int]] = {
            q: _bits(played[q] | hands.get(q, 0)) for q in active if q != player
        }
        for k in range(ndealt):
            seat = active[k % m]
            new.append(history[start + k] if seat == player else slots[seat].pop())
        new.extend(history[start + ndealt :])
        return self._game.state_from_actions(new)


def _pick(mask: int, k: int, rng: Rng) -> int:
    """``k`` cards of ``mask`` drawn uniformly, as a mask."""
    cards = _bits(mask)
    out = 0
    for i in range(k):
        j = i + rng.randint(len(cards) - i)
        cards[i], cards[j] = cards[j], cards[i]
        out |= 1 << cards[i]
    return out


def _deal_hands(
    pool: int, players: list[int], sizes: dict[int, int], allowed: dict[int, int], rng: Rng
) -> dict[int, int]:
    """Hands of ``sizes[q]`` cards from ``pool`` for ``players``, each within ``allowed[q]``
    (``pool`` less whole suits), uniform over such disjoint deals; the cards left over
    stay undealt.

    Players with the same allowed cards form a group: a uniform deal to the group
    split uniformly among its members is a uniform deal to the members. Players who
    may hold any card of the pool share the leftovers with the undealt cards, and
    every deal to the other groups leaves them equally many ways: they draw last,
    uniformly. The other groups' cards come from exact counting (:func:`_counted_deal`).
    """
    grouped: dict[int, list[int]] = {}
    for q in players:
        grouped.setdefault(allowed[q], []).append(q)
    free = grouped.pop(pool, [])
    masks = sorted(grouped, key=lambda a: (a.bit_count(), a))  # most constrained first
    needs = [sum(sizes[q] for q in grouped[a]) for a in masks]
    cards = _counted_deal(pool, masks, needs, rng) if masks else []
    hands: dict[int, int] = {}
    rest = pool
    for a, dealt in zip(masks, cards, strict=True):
        rest &= ~dealt
        _split(dealt, grouped[a], sizes, hands, rng)
    _split(_pick(rest, sum(sizes[q] for q in free), rng), free, sizes, hands, rng)
    return hands


def _split(
    mask: int, members: list[int], sizes: dict[int, int], out: dict[int, int], rng: Rng
) -> None:
    """Deal the cards of ``mask`` uniformly to ``members`` (``sizes[q]`` each) into ``out``."""
    cards = _bits(mask)
    for i in range(len(cards) - 1, 0, -1):
        j = rng.randint(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    start = 0
    for q in members:
        hand = 0
        for c in cards[start : start + sizes[q]]:
            hand |= 1 << c
        out[q] = hand
        start += sizes[q]


def _suit_counts(mask: int) -> tuple[int, ...]:
    return tuple((mask & _SUIT_MASK[s]).bit_count() for s in range(4))


def _compositions(total: int, caps: list[int]) -> Iterator[list[int]]:
    """Every ``x`` with ``sum(x) == total`` and ``0 <= x[i] <= caps[i]``."""
    if len(caps) == 1:
        if total <= caps[0]:
            yield [total]
        return
    room = sum(caps[1:])
    for x in range(max(0, total - room), min(total, caps[0]) + 1):
        for rest in _compositions(total - x, caps[1:]):
            yield [x, *rest]


def _counted_deal(pool: int, masks: list[int], needs: list[int], rng: Rng) -> list[int]:
    """An exactly uniform deal to the groups by counting: group ``i`` takes ``x[s]``
    cards of each suit it may hold with probability proportional to
    ``prod C(c[s], x[s])`` times the number of deals to the later groups from what is
    left (the last group's count is Vandermonde's ``C(sum c[s], need)``)."""
    suits = [[s for s in range(4) if a & _SUIT_MASK[s]] for a in masks]
    last = len(masks) - 1
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def options(i: int, c: tuple[int, ...]) -> Iterator[tuple[int, list[int]]]:
        """(weight, x) for every way group ``i`` can take its cards from counts ``c``."""
        caps = [c[s] for s in suits[i]]
        for x in _compositions(needs[i], caps):
            after = list(c)
            weight = 1
            for s, k in zip(suits[i], x, strict=True):
                weight *= math.comb(c[s], k)
                after[s] -= k
            yield weight * count(i + 1, tuple(after)), x

    def count(i: int, c: tuple[int, ...]) -> int:
        if i == last:
            return math.comb(sum(c[s] for s in suits[i]), needs[i])
        key = (i, c)
        if key not in memo:
            memo[key] = sum(w for w, _ in options(i, c))
        return memo[key]

    left = pool
    counts = _suit_counts(pool)
    cards: list[int] = []
    for i in range(last):
        u = rng.random() * count(i, counts)
        chosen: list[int] = []
        for weight, x in options(i, counts):
            if weight:  # (a rounding error can leave u >= 0: then the last possible x)
                chosen = x
                u -= weight
                if u < 0:
                    break
        dealt = 0
        for s, k in zip(suits[i], chosen, strict=True):
            dealt |= _pick(left & _SUIT_MASK[s], k, rng)
        cards.append(dealt)
        left &= ~dealt
        counts = _suit_counts(left)
    cards.append(_pick(left & masks[last], needs[last], rng))
    return cards
