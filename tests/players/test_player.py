"""The player kinds' table and the spec parser that reads the option schema.

Every option a config declares for spec strings (:func:`mctslab.core.options.option`,
``spec=True``) is reachable from its kind's spec under its name and each alias, and a
value of the wrong type is refused in one line: the cases are read from
:func:`~mctslab.core.options.options_of`, so a new option is covered without a new test.
A game declares its own player kinds (``player_kinds`` on its class) and
:func:`make_player` makes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

import mctslab
from mctslab.core import registry
from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.core.game import GameInfo
from mctslab.core.options import Option, check_options, option, options_of
from mctslab.core.player_kinds import PlayerKind, spec_config
from mctslab.games.pig import PigHoldOptions
from mctslab.players.player import (
    BUILT_IN_KINDS,
    KINDS,
    OWN_INFORMATION_KINDS,
    MinimaxOptions,
    RandomPlayer,
    make_player,
    parse_spec,
    player_kinds,
    reads_hidden_information,
)
from mctslab.search.config import SearchConfig
from mctslab.search.ismcts import ISMCTSConfig, PIMCConfig
from mctslab.search.puct import PuctConfig

TIC = mctslab.make("tic_tac_toe").info
PIG = mctslab.make("pig").info

# How each kind's player exposes the config its spec set.
_SEARCH: Callable[[Any], Any] = lambda p: p.config  # noqa: E731
_PUCT: Callable[[Any], Any] = lambda p: p.config.puct  # noqa: E731
_SELF: Callable[[Any], Any] = lambda p: p  # noqa: E731

#: (kind, game, config class, how the player shows it, options offered): each option of
#: each config a spec sets. ``puct:`` takes PuctConfig's options (its ``c`` is PUCT's) and
#: SearchConfig's declared ``under_puct``.
TABLES: list[tuple[str, GameInfo, type, Callable[[Any], Any], list[Option]]] = [
    ("mcts", TIC, SearchConfig, _SEARCH, [o for o in options_of(SearchConfig).values() if o.spec]),
    ("puct", TIC, PuctConfig, _PUCT, [o for o in options_of(PuctConfig).values() if o.spec]),
    (
        "puct",
        TIC,
        SearchConfig,
        _SEARCH,
        [o for o in options_of(SearchConfig).values() if o.spec and o.under_puct],
    ),
    ("ismcts", TIC, ISMCTSConfig, _SEARCH, list(options_of(ISMCTSConfig).values())),
    ("pimc", TIC, PIMCConfig, _SEARCH, list(options_of(PIMCConfig).values())),
    ("minimax", TIC, MinimaxOptions, _SELF, list(options_of(MinimaxOptions).values())),
    ("pig-hold", PIG, PigHoldOptions, _SELF, list(options_of(PigHoldOptions).values())),
]
#: Options whose other values need another option beside them (a config's cross-field rule).
COMPANIONS = {("puct", "mix"): "evaluator=uniform"}
#: Where a player keeps an option under another attribute name than the config's field.
ATTRIBUTE = {("pig-hold", "at"): "hold_at"}


def _valid_text(opt: Option) -> tuple[str, Any]:
    """A valid value other than the default, as a spec writes it and as the config holds it."""
    if opt.kind == "bool":
        return ("0", False) if opt.default else ("1", True)
    if opt.kind in ("choice", "str"):
        word = next(w for w in opt.choices if w != opt.default)
        return word, word
    if opt.kind == "object":  # PuctConfig's evaluator: a registered evaluator's name
        return "uniform", "uniform"
    low = 0.0 if opt.low is None else opt.low
    if opt.kind == "int":
        value = int(low) + 1 if opt.default is None else opt.default + 1
        return str(value), value
    value = (low + opt.high) / 2 if opt.high is not None else (opt.default or low) + 0.5
    return repr(float(value)), float(value)


CASES = [
    pytest.param(kind, info, shown, opt, name, id=f"{kind}:{name}({cls.__name__}.{opt.name})")
    for kind, info, cls, shown, opts in TABLES
    for opt in opts
    for name in opt.names
]


@pytest.mark.parametrize("kind,info,shown,opt,name", CASES)
def test_every_spec_option_is_reachable_under_its_name_and_each_alias(
    kind: str, info: GameInfo, shown: Callable[[Any], Any], opt: Option, name: str
) -> None:
    text, value = _valid_text(opt)
    companion = COMPANIONS.get((kind, opt.name))
    spec = f"{kind}:{name}={text}" + (f",{companion}" if companion else "")
    player = make_player(spec, info)
    got = getattr(shown(player), ATTRIBUTE.get((kind, opt.name), opt.name))
    assert got == value and type(got) is type(value), spec


BAD_CASES = [
    pytest.param(kind, info, opt, id=f"{kind}:{opt.name}")
    for kind, info, _, _, opts in TABLES
    for opt in opts
    if opt.kind in ("int", "float", "bool")
]


@pytest.mark.parametrize("kind,info,opt", BAD_CASES)
def test_a_value_of_the_wrong_type_is_one_line_naming_the_option(
    kind: str, info: GameInfo, opt: Option
) -> None:
    with pytest.raises(InvalidSpecError) as err:
        make_player(f"{kind}:{opt.names[-1]}=x1", info)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"bad value 'x1' for {opt.name!r}: expected "), message


@pytest.mark.parametrize(
    "spec,message",
    [
        ("mcts:expansion=most", "search config: expansion must be one of one, all, got 'most'"),
        ("mcts:cutoff_depth=-1", "search config: cutoff_depth must be an integer in [0, 10**9]"),
        ("puct:noise=2", "puct config: noise_fraction must be in [0, 1], got 2.0"),
        ("ismcts:variant=xo", "ismcts config: variant must be one of so, mo, got 'xo'"),
        ("pimc:determinizations=0", "pimc config: determinizations must be an integer in"),
        ("minimax:depth=0", "minimax depth must be >= 1, got 0"),
        ("pig-hold:at=0", "pig-hold: at must be >= 1, got 0"),
    ],
)
def test_a_value_out_of_range_is_the_configs_one_line_error(spec: str, message: str) -> None:
    info = PIG if spec.startswith("pig") else TIC
    with pytest.raises(InvalidSpecError) as err:
        make_player(spec, info)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_unknown_keys_name_the_closest_and_list_the_valid_ones() -> None:
    with pytest.raises(
        InvalidSpecError, match=r"unknown mcts option 'seeed' \(did you mean seed\?\)"
    ):
        make_player("mcts:seeed=1", TIC)
    with pytest.raises(
        InvalidSpecError, match=r"unknown minimax option 'deep'.*valid options: depth, time$"
    ):
        make_player("minimax:deep=3", TIC)
    with pytest.raises(InvalidSpecError) as err:
        make_player("puct:expansion=all", TIC)
    listed = str(err.value).split("valid options: ")[1].split(", ")
    assert {"noise", "alpha", "scale", "simulations", "engine", "c", "cutoff_depth"} <= set(listed)
    assert "expansion" not in listed and "rave" not in listed  # UCT's, not PUCT's


def test_puct_c_is_pucts_constant_and_time_alone_replaces_the_default_budget() -> None:
    config = make_player("puct:c=2.5,time=0.5", TIC).config  # type: ignore[attr-defined]
    assert config.puct.c == 2.5 and config.c == SearchConfig().c
    assert config.iterations is None and config.time == 0.5
    assert make_player("mcts:time=0.5", TIC).config.iterations is None  # type: ignore[attr-defined]
    assert make_player("ismcts:n=7", TIC).config.iterations == 7  # type: ignore[attr-defined]


# The table ----------------------------------------------------------------------------------


def test_kinds_and_own_information_kinds_are_read_from_the_table() -> None:
    table = player_kinds()
    assert tuple(table) == KINDS
    assert {row.name for row in BUILT_IN_KINDS} < set(KINDS)
    assert "pig-hold" in KINDS and "pig-hold" not in {row.name for row in BUILT_IN_KINDS}
    own = {name for name, row in table.items() if not row.reads_hidden_information}
    assert own == OWN_INFORMATION_KINDS
    assert all(row.help for row in table.values())


@dataclass(frozen=True)
class _CoinOptions:
    bias: float = option(0.5, "probability of the first legal move", low=0, high=1)

    def __post_init__(self) -> None:
        check_options(self, "coin")


class _CoinPlayer(RandomPlayer):
    def __init__(self, bias: float, seed: int) -> None:
        super().__init__(seed)
        self.name = "coin"
        self.bias = bias


def _coin(options: dict[str, str], info: GameInfo, seed: int) -> _CoinPlayer:
    return _CoinPlayer(spec_config("coin", _CoinOptions, options).bias, seed)


class _CoinGame:
    """A user's game (tic-tac-toe's rules) that declares its own player kinds."""

    player_kinds = (
        PlayerKind(
            "coin", _coin, reads_hidden_information=False, options=(_CoinOptions,), help="?"
        ),
        PlayerKind("peek", _coin, reads_hidden_information=True, help="reads everything"),
    )

    def __init__(self) -> None:
        self._game = mctslab.make("tic_tac_toe")
        self.info = self._game.info

    def new_initial_state(self) -> Any:
        return self._game.new_initial_state()


@pytest.fixture
def coin_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """``coin_game`` registered for one test (the registry forgets it afterwards)."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("coin_game", _CoinGame)


@pytest.mark.usefixtures("coin_game")
def test_a_game_declares_its_own_player_kind() -> None:
    assert parse_spec("coin:bias=0.25") == ("coin", {"bias": "0.25"})
    player = make_player("coin:bias=0.25", TIC, seed=3)
    assert isinstance(player, _CoinPlayer) and player.bias == 0.25
    assert reads_hidden_information("coin:bias=0.25") is False
    assert reads_hidden_information("peek") is True
    assert reads_hidden_information(player) is False  # by its name, "coin"
    assert "coin" in player_kinds() and "coin" not in KINDS  # KINDS: at import
    with pytest.raises(InvalidSpecError, match=r"unknown coin option 'bais' .*bias"):
        make_player("coin:bais=1", TIC)
    with pytest.raises(InvalidSpecError, match="coin: bias must be in"):
        make_player("coin:bias=2", TIC)
    state = _CoinGame().new_initial_state()
    assert player.choose(state) in state.legal_actions()


def test_a_game_kind_may_not_take_a_built_in_kinds_name(monkeypatch: pytest.MonkeyPatch) -> None:
    class Clash(_CoinGame):
        player_kinds = (PlayerKind("mcts", _coin, reads_hidden_information=False),)

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("clash_game", Clash)
    with pytest.raises(InvalidConfigError, match="'clash_game' declares player kind 'mcts'"):
        player_kinds()


def test_a_kind_unknown_to_the_table_lists_the_known_ones() -> None:
    with pytest.raises(InvalidSpecError, match=r"unknown player 'mtcs'.*valid: mcts, puct"):
        parse_spec("mtcs:iterations=1")
