"""The Go game: :class:`Go`, its options and its rule kernels, action names, the
board's text, the score, and the adjudication of a game stopped by its length limit."""

from __future__ import annotations

from typing import Any, Literal, get_args

from mctslab.core.declarations import RecordFormat, Rendering
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL, GameInfo
from mctslab.core.text import is_ascii_digits
from mctslab.games.go.board import apply_action, init, legal_actions, observation, returns
from mctslab.games.go.drawing import go_drawing
from mctslab.games.go.layout import (
    HEADER,
    PARAMS_HEADER,
    S_CAPTURED,
    S_MOVES,
    S_PASSES,
    S_PLAYER,
    make_params,
)
from mctslab.games.go.learned import node_priors, pattern_words
from mctslab.games.go.playouts import heavy_action, light_action, playout, rollout_actions
from mctslab.games.go.scoring import area_score2, heuristic
from mctslab.games.go.sgf import game_so_far, write_sgf
from mctslab.games.kernels import KernelGame, KernelState, RuleKernels

__all__ = [
    "COLUMNS",
    "Go",
    "KoRule",
]

#: The ko rules (see the package docstring): positional superko, or the simple-ko point.
KoRule = Literal["superko", "simple"]


COLUMNS = "abcdefghjklmnopqrst"


class Go(KernelGame):
    """Go on ``board_size`` x ``board_size`` with area scoring (OpenSpiel ``go`` encodings)."""

    kernels = RuleKernels(
        init,
        legal_actions,
        apply_action,
        returns,
        heuristic,
        playout=playout,
        observation=observation,
        rollout_actions=rollout_actions,
        heavy_action=heavy_action,
        light_action=light_action,
        knowledge=node_priors,
    )

    def __init__(
        self,
        board_size: int = 9,
        komi: float = 7.5,
        ko: KoRule = "superko",
        max_game_length: int | None = None,
        patterns: float = 0,
        pattern_playouts: bool = False,
    ) -> None:
        """``patterns``: the scale of the learned patterns' node prior
        (:func:`~mctslab.games.go.learned.pattern_priors`; Michi's is 100), 0 for none;
        the prior applies to a search with ``knowledge`` > 0. ``pattern_playouts``: the
        heavy playout's 3x3 rule draws by the learned gammas
        (:func:`~mctslab.games.go.playouts.learned_pattern_point`), not MoGo's patterns."""
        if (
            not isinstance(board_size, int)
            or isinstance(board_size, bool)
            or not 5 <= board_size <= 19
        ):
            raise InvalidConfigError("go: board_size must be an integer in [5, 19]")
        try:
            komi2 = float(komi) * 2
        except (TypeError, ValueError):
            raise InvalidConfigError(f"go: komi must be a number, got {komi!r}") from None
        if isinstance(komi, bool) or not komi2.is_integer() or abs(komi2) > 2 * board_size**2:
            raise InvalidConfigError(
                f"go: komi must be a multiple of 0.5 within the board's area, got {komi!r}"
            )
        if ko not in get_args(KoRule):
            raise InvalidConfigError(f"go: ko must be 'superko' or 'simple', got {ko!r}")
        if max_game_length is None:
            max_game_length = 2 * board_size * board_size
        if (
            not isinstance(max_game_length, int)
            or isinstance(max_game_length, bool)
            or not 2 <= max_game_length <= 100 * board_size * board_size
        ):
            raise InvalidConfigError(
                "go: max_game_length must be an integer in [2, 100 * board_size**2]"
            )
        if (
            isinstance(patterns, bool)
            or not isinstance(patterns, int | float)
            or not 0 <= patterns <= 10_000
        ):
            raise InvalidConfigError(
                f"go: patterns must be a number in [0, 10000], got {patterns!r}"
            )
        if pattern_playouts not in (True, False, 0, 1):
            raise InvalidConfigError(
                f"go: pattern_playouts must be true or false, got {pattern_playouts!r}"
            )
        self.board_size, self.komi, self.ko = board_size, float(komi), ko
        self.patterns, self.pattern_playouts = float(patterns), bool(pattern_playouts)
        info = GameInfo(
            name="go",
            version=1,
            num_players=2,
            num_actions=board_size * board_size + 1,
            max_game_length=max_game_length,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
        )
        words = pattern_words(patterns) if patterns > 0 or pattern_playouts else None
        params = make_params(
            board_size, int(komi2), ko == "superko", max_game_length, words, bool(pattern_playouts)
        )
        super().__init__(info, params)

    def observation_shape(self) -> tuple[int, ...]:
        """OpenSpiel's: 4 planes (black, white, empty, White to play) of ``N x N``."""
        return (4, self.board_size, self.board_size)

    def point_name(self, action: int) -> str:
        """``a1`` .. (OpenSpiel's lower-case point names) or ``PASS``."""
        n = self.board_size
        if action == n * n:
            return "PASS"
        return f"{COLUMNS[action % n]}{action // n + 1}"

    def action_name(self, state: KernelState, action: int) -> str:
        colour = "B" if int(state.array[S_MOVES]) % 2 == 0 else "W"
        return f"{colour} {self.point_name(action)}"

    def parse_action(self, state: KernelState, text: str) -> int | None:
        t = text.strip().lower()
        if t[:2] in ("b ", "w "):
            t = t[2:].strip()
        n = self.board_size
        if t == "pass":
            return n * n
        if len(t) < 2 or t[0] not in COLUMNS[:n] or not is_ascii_digits(t[1:]):
            return None
        row = int(t[1:])
        if not 1 <= row <= n:
            return None
        return (row - 1) * n + COLUMNS.index(t[0])

    def rendering(self) -> Rendering:
        """The web lab's Go board (:mod:`mctslab.games.go.drawing`); Black and White, on
        the board and in text."""
        return Rendering(
            kind="go", players=("Black", "White"), draw=self._board, labels=("Black", "White")
        )

    def _board(self, state: KernelState) -> dict[str, Any]:
        return go_drawing(self, state)

    def record_format(self) -> RecordFormat:
        """Go's game records: SGF (:mod:`mctslab.games.go.sgf`), the file Sabaki, GoGui
        and GNU Go's ``loadsgf`` read."""
        return RecordFormat(
            format="sgf",
            media_type="application/x-go-sgf",
            filename="mctslab-go.sgf",
            write=self._sgf,
        )

    def _sgf(self, state: KernelState, players: tuple[str, ...]) -> str:
        """The SGF record of ``state``'s game so far, Black and White named ``players``."""
        return write_sgf(game_so_far(self, state, black=players[0], white=players[1]))

    def colour_at(self, state: KernelState, action: int) -> int:
        """0 empty, 1 black, 2 white at point ``action``."""
        v = int(self.params[PARAMS_HEADER + action])
        return int(state.array[HEADER + v])

    def score(self, state: KernelState) -> float:
        """Black's Tromp-Taylor area score minus komi (negative: White ahead), of the
        board as it stands (at the end: the score the returns follow)."""
        return float(area_score2(state.array, self.params)) / 2.0

    def captures(self, state: KernelState) -> tuple[int, int]:
        """Stones captured so far by Black and by White."""
        a = state.array
        return int(a[S_CAPTURED]), int(a[S_CAPTURED + 1])

    def render(self, state: KernelState) -> str:
        n = self.board_size
        a = state.array
        marks = "+XO"
        lines = []
        for r in reversed(range(n)):
            row = "".join(marks[self.colour_at(state, r * n + c)] for c in range(n))
            lines.append(f"{r + 1:2d} {row}")
        lines.append("   " + COLUMNS[:n].upper())
        black, white = self.captures(state)
        to_play = "over" if self.is_over(state) else ("B" if int(a[S_MOVES]) % 2 == 0 else "W")
        lines.append(f"to play: {to_play}, captures B {black} W {white}")
        return "\n".join(lines)

    @staticmethod
    def is_over(state: KernelState) -> bool:
        return int(state.array[S_PLAYER]) == TERMINAL

    def hand_over(self, state: KernelState) -> None:
        """Let the other colour move in ``state`` (in place), as GTP's ``play`` and
        ``genmove`` of the colour not to move ask: a pass that does not count toward the
        two consecutive passes that end the game. GNU Go and GoGui place the stone out of
        turn with no pass at all; an alternating state needs the pass, and counting it
        would let the next pass end the game at once (the search sees that and passes to
        win on the area as it stands)."""
        if self.is_over(state):
            raise InvalidConfigError("the game is over: there is no turn to hand over")
        state.array[S_PASSES] = 0  # nor does an earlier pass make this one the second
        state.apply_action(self.board_size**2)
        if not self.is_over(state):  # (the length limit still ends the game)
            state.array[S_PASSES] = 0

    def ended_by_length(self, state: KernelState) -> bool:
        """Whether ``state`` is over by the length limit (``max_game_length`` moves), not
        by two passes: its board was not played out, and its dead stones still stand."""
        history = state.history()
        passed = len(history) >= 2 and history[-1] == history[-2] == self.board_size**2
        return self.is_over(state) and not passed

    def adjudicate(self, state: KernelState, seed: int = 0) -> tuple[list[float], str] | None:
        """The returns of a game stopped by its length limit as people and GTP programs
        would score it, and a line that says so; ``None`` for a game over by two passes.

        Tromp-Taylor counts the board as it stands, dead stones as alive; stopped early,
        the game is scored by agreement instead
        (:func:`~mctslab.games.go.status.agreed_score`: the stones that heavy playouts
        from ``seed`` judge dead are removed, then the area is counted). The arena uses
        it for every Go game that reaches the limit (its ``"length"`` termination)."""
        if not self.ended_by_length(state):
            return None
        from mctslab.games.go.status import agreed_score

        agreement = agreed_score(self, state, seed=seed)

        def sgf_result(score: float) -> str:  # as SGF writes it (go.sgf imports Go)
            return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"

        black = 0.0 if agreement.score == 0 else (1.0 if agreement.score > 0 else -1.0)
        note = (
            f"length limit of {self.info.max_game_length} moves: scored by agreement, "
            f"{len(agreement.dead)} dead stones removed, {sgf_result(agreement.score)} "
            f"(the board as it stood: {sgf_result(self.score(state))})"
        )
        return [black, -black], note
