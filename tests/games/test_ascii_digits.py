"""Moves typed in Unicode digits (``"１"`` fullwidth, ``"١"`` Arabic-Indic, ``"²"``) are
refused by every game (issue 28): ``str.isdigit`` and ``int`` accept them, the games'
parsers do not (:mod:`mctslab.core.text`)."""

from __future__ import annotations

import pytest

from mctslab.core.errors import IllegalActionError
from mctslab.core.game import State
from mctslab.core.registry import available_games, make, parse_value
from mctslab.core.rng import Rng
from mctslab.core.text import ascii_int, is_ascii_digits

_FULLWIDTH = str.maketrans("0123456789", "".join(chr(0xFF10 + d) for d in range(10)))
_ARABIC = str.maketrans("0123456789", "".join(chr(0x0660 + d) for d in range(10)))


def _positions(name: str, plies: int = 6) -> list[State]:
    """The start and a few positions along a random game (chance nodes included)."""
    state = make(name).new_initial_state()
    rng = Rng(1)
    out = [state.clone()]
    for _ in range(plies):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randint(len(legal))])
        out.append(state.clone())
    return out


@pytest.mark.parametrize("name", available_games())
def test_every_game_refuses_its_move_names_in_unicode_digits(name: str) -> None:
    checked = 0
    for state in _positions(name):
        if state.is_terminal():
            continue
        for action in state.legal_actions():
            for text in (state.action_to_string(action), str(action)):
                for table in (_FULLWIDTH, _ARABIC):
                    foreign = text.translate(table)
                    if foreign == text:
                        continue
                    checked += 1
                    with pytest.raises(IllegalActionError):
                        state.string_to_action(foreign)
    assert checked > 0


def test_the_ascii_helpers() -> None:
    assert ascii_int("07") == 7 and ascii_int("-7", signed=True) == -7
    for text in ("", "-", "+7", " 7", "7_0", "\uff17", "\u00b2", "-7", "--7"):
        assert ascii_int(text) is None, text
    assert not is_ascii_digits("\u0667") and is_ascii_digits("0123456789")


def test_game_parameters_in_unicode_digits_stay_text() -> None:
    assert parse_value("\uff17") == "\uff17" and parse_value("7") == 7
    assert parse_value("\uff17.5") == "\uff17.5" and parse_value("7.5") == 7.5
