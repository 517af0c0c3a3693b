"""Hexapawn: a game written once in plain Python, then checked, solved and played by mctslab.

Martin Gardner's Hexapawn (Scientific American, March 1962). The board has 3x3
squares and each side has 3 pawns on its home row. White (player 0) moves
first, up the board; Black (player 1) moves down. A pawn moves one square
straight forward to an empty square, or captures an enemy pawn one square
diagonally forward. A player wins by reaching the far row, by capturing every
enemy pawn, or when the opponent to move has no legal move. There are no draws.

Nothing below inherits from mctslab: ``Hexapawn`` and ``HexapawnState`` only
have the attributes and methods that the protocols of ``mctslab.core.game`` list
(plus the optional ``heuristic()`` and ``key()``). That is all the engines need.
The shorter way writes the rules alone in a subclass of ``mctslab.PythonState``,
which brings ``history``, ``child``, ``clone``, the legal-action mask and the
errors (docs/games.md, "Adding your own game"); this file writes every method, to
show the whole protocol.

Run it::

    python examples/hexapawn.py
"""

from __future__ import annotations

import copy
import re
from collections.abc import Hashable, Sequence

from mctslab import TERMINAL, GameInfo, IllegalActionError, InvalidConfigError
from mctslab.core.testing import check_game
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import search
from mctslab.search.minimax import solve

WHITE, BLACK = 0, 1
EMPTY = -1  # a board cell holds EMPTY, WHITE or BLACK
PLAYER_NAMES = ("White", "Black")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
MOVE_TEXT = re.compile(r"([a-z]\d+)[-x]([a-z]\d+)")  # "a1-a2" (move) or "a2xb3" (capture)


class Hexapawn:
    """The game: its size, its static facts (``info``) and a factory of initial states.

    Squares are numbered row by row from White's home row: square
    ``row * columns + column``, named like chess squares (``a1`` is White's
    left corner). An action is ``from_square * cells + to_square``, a fixed
    encoding in ``[0, cells**2)`` whatever the position.
    """

    def __init__(self, columns: int = 3, rows: int = 3) -> None:
        if not (2 <= columns <= len(LETTERS) and rows >= 3):
            raise InvalidConfigError(
                f"hexapawn needs 2 <= columns <= 26 and rows >= 3, got columns={columns}, "
                f"rows={rows}"
            )
        self.columns = columns
        self.rows = rows
        self.cells = columns * rows
        # Every move takes a pawn one row forward, so a side makes at most
        # columns * (rows - 2) moves that stop short of the far row, plus one that reaches it.
        moves_per_side = columns * (rows - 2) + 1
        self.info = GameInfo(
            name="hexapawn",
            version=1,
            num_players=2,
            num_actions=self.cells * self.cells,
            max_game_length=2 * moves_per_side,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )

    def new_initial_state(self) -> HexapawnState:
        return HexapawnState(self)

    def state_from_actions(self, actions: Sequence[int]) -> HexapawnState:
        """The state reached by playing ``actions`` (each checked) from the start."""
        state = self.new_initial_state()
        for action in actions:
            state.apply_action(action)
        return state

    def square_name(self, square: int) -> str:
        row, column = divmod(square, self.columns)
        return f"{LETTERS[column]}{row + 1}"

    def parse_square(self, text: str) -> int | None:
        """The square named ``text`` (e.g. ``"b2"``), or ``None`` if it is not on the board."""
        column, row = LETTERS.find(text[0]), int(text[1:]) - 1
        if 0 <= column < self.columns and 0 <= row < self.rows:
            return row * self.columns + column
        return None


class HexapawnState:
    """A position and the actions that led to it. ``apply_action`` works in place."""

    def __init__(self, game: Hexapawn) -> None:
        self.game = game  # the engines read state.game.info
        c = game.columns
        self.board: tuple[int, ...] = (WHITE,) * c + (EMPTY,) * (game.cells - 2 * c) + (BLACK,) * c
        self.to_move = WHITE  # after the end: the player who would have moved (the loser)
        self.winner: int | None = None
        self._history: list[int] = []
        self._legal = self._moves()

    # -- the rules -------------------------------------------------------------

    def _moves(self) -> list[int]:
        """The pawn moves of the player to move, ascending."""
        g, board, me = self.game, self.board, self.to_move
        forward = g.columns if me == WHITE else -g.columns  # one row ahead, in squares
        actions = []
        for square, pawn in enumerate(board):
            if pawn != me:
                continue
            ahead = square + forward  # on the board: a pawn on the far row ends the game
            if board[ahead] == EMPTY:
                actions.append(square * g.cells + ahead)
            column = square % g.columns
            for side in (-1, 1):
                if 0 <= column + side < g.columns and board[ahead + side] == 1 - me:
                    actions.append(square * g.cells + ahead + side)
        return sorted(actions)

    def apply_action(self, action: int) -> None:
        if action not in self._legal:  # nothing is legal once the game is over
            raise IllegalActionError(self._illegal_message(action))
        g, me = self.game, self.to_move
        start, end = divmod(int(action), g.cells)
        board = list(self.board)
        board[start], board[end] = EMPTY, me
        self.board = tuple(board)
        self._history.append(int(action))
        self.to_move = 1 - me
        self._legal = self._moves()
        far_row = g.rows - 1 if me == WHITE else 0
        # The mover wins on the far row, or if the opponent cannot move (which
        # includes having no pawns left).
        if end // g.columns == far_row or not self._legal:
            self.winner = me
            self._legal = []

    def _illegal_message(self, action: object) -> str:
        if self.winner is not None:
            return f"illegal action {action} in hexapawn: the game is over"
        shown = ", ".join(f"{a} ({self.action_to_string(a)})" for a in self._legal)
        return f"illegal action {action} in hexapawn; legal actions: {shown}"

    # -- the State protocol ----------------------------------------------------

    def current_player(self) -> int:
        return TERMINAL if self.winner is not None else self.to_move

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    def legal_actions_mask(self) -> list[bool]:
        mask = [False] * self.game.info.num_actions
        for action in self._legal:
            mask[action] = True
        return mask

    def child(self, action: int) -> HexapawnState:
        new = self.clone()
        new.apply_action(action)
        return new

    def clone(self) -> HexapawnState:
        new = copy.copy(self)  # the board is an immutable tuple: only the lists need copies
        new._history = list(self._history)
        new._legal = list(self._legal)
        return new

    def is_terminal(self) -> bool:
        return self.winner is not None

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == WHITE else [-1.0, 1.0]

    def action_to_string(self, action: int) -> str:
        g = self.game
        start, end = divmod(action, g.cells)
        capture = start % g.columns != end % g.columns  # diagonal moves are captures
        return g.square_name(start) + ("x" if capture else "-") + g.square_name(end)

    def string_to_action(self, text: str) -> int:
        """Parse ``"a1-a2"`` or ``"a2xb3"`` (either separator is accepted)."""
        g = self.game
        match = MOVE_TEXT.fullmatch(text.strip().lower())
        squares = [g.parse_square(s) for s in match.groups()] if match else [None]
        if None in squares:
            legal = ", ".join(self.action_to_string(a) for a in self._legal)
            raise IllegalActionError(f"unknown move {text!r} in hexapawn; legal moves: {legal}")
        start, end = squares
        assert start is not None and end is not None
        return start * g.cells + end

    def history(self) -> list[int]:
        return list(self._history)

    def __str__(self) -> str:
        g = self.game
        marks = {EMPTY: ".", WHITE: "W", BLACK: "B"}
        width = len(str(g.rows))
        lines = []
        for row in reversed(range(g.rows)):  # Black's home row on top, as in chess diagrams
            cells = self.board[row * g.columns : (row + 1) * g.columns]
            lines.append(f"{row + 1:>{width}} " + " ".join(marks[c] for c in cells))
        lines.append(" " * width + " " + " ".join(LETTERS[: g.columns]))
        if self.winner is None:
            lines.append(f"{PLAYER_NAMES[self.to_move]} to move")
        else:
            lines.append(f"{PLAYER_NAMES[self.winner]} wins")
        return "\n".join(lines)

    # -- optional extras the engines use when present --------------------------

    def heuristic(self) -> list[float]:
        """Material and advancement: each pawn counts 1, plus up to 1 as it nears the far row.

        White's value is ``(white - black) / (white + black)`` in ``[-1, 1]``.
        Used by depth-limited minimax and by MCTS's ``simulation="cutoff"``.
        """
        if self.winner is not None:
            return self.returns()
        g = self.game
        score = [0.0, 0.0]
        for square, pawn in enumerate(self.board):
            if pawn != EMPTY:
                row = square // g.columns
                advanced = row if pawn == WHITE else g.rows - 1 - row
                score[pawn] += 1.0 + advanced / (g.rows - 1)
        value = (score[WHITE] - score[BLACK]) / (score[WHITE] + score[BLACK])
        return [value, -value]

    def key(self) -> Hashable:
        """The position (board and player to move), for transposition tables."""
        return (self.board, self.to_move)


def main() -> None:
    game = Hexapawn()

    # 1. Check that the rules keep every promise of the game API.
    checked = check_game(game, n_games=200, seed=0)
    print(f"check_game: {checked} states of 200 random games conform to the game API\n")

    # 2. Solve the game exactly (negamax with alpha-beta).
    state = game.new_initial_state()
    print(f"{state}\n")
    solved = solve(state)
    moves = ", ".join(f"{state.action_to_string(a)} {v:+.0f}" for a, v in solved.action_values)
    print(f"solve: value for White {solved.value:+.0f} ({solved.nodes} nodes); moves: {moves}")
    print("(Gardner's result: Black wins Hexapawn with perfect play)\n")

    # 3. Let MCTS pick a move, then play MCTS against itself.
    result = search(state, SearchConfig(iterations=2000, seed=0))
    print(f"MCTS, {result.iterations} iterations, picks {state.action_to_string(result.action)}")
    for child in result.children:
        name = state.action_to_string(child.action)
        print(f"  {name}: {child.visits} visits, mean value {child.value:+.2f}")
    config = SearchConfig(iterations=2000, seed=0, solver=True)
    while not state.is_terminal():
        action = search(state, config).action
        print(f"{PLAYER_NAMES[state.current_player()]} plays {state.action_to_string(action)}")
        state.apply_action(action)
    print(f"\n{state}")


if __name__ == "__main__":
    main()
