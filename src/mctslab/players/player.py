"""Players: anything that chooses a move, and the spec strings that name them.

A :class:`Player` has ``choose(state) -> action`` and ``inform(action)`` (told
of every action played, by anyone, so that an MCTS player can keep its tree).
Spec strings, usable everywhere a player is named (CLI, arena)::

    mcts:iterations=5000,c=1.4,expansion=all,simulation=heavy,solver=1
    mcts:engine=reference,iterations=500
    mcts:time=0.5
    puct:simulations=800,c=1.25,evaluator=uniform+rollout   # AlphaGo's PUCT (mctslab.search.puct)
    puct:evaluator=heuristic,noise=0.25,alpha=0.3,temperature=1
    gumbel:simulations=16,considered=8,scale=1               # Gumbel root search (mctslab.search.gumbel)
    minimax:depth=4
    minimax:time=0.5   # iterative deepening, 0.5 s a move
    minimax            # exact
    random
    human
    openspiel-mcts:uct_c=2,simulations=1000   # OpenSpiel's MCTSBot (mctslab.players.openspiel)
    openspiel-random:seed=7
    ismcts:iterations=1000,c=0.7,variant=so   # Information Set MCTS (mctslab.search.ismcts)
    ismcts:smooth=1,final=sample              # Smooth UCT, playing its average strategy
    pimc:determinizations=20,iterations=1000  # determinized UCT
    pimc:chance=fixed,determinizations=10     # ... with the dice determinized too
    pig-hold:at=20                            # Pig's "hold at 20" strategy
    az:model=connect_four,simulations=200     # PUCT with a trained network (mctslab.players.network)
    policy:model=connect_four                 # the network's policy alone, no search
    gtp:gnugo --mode gtp --level 1            # a GTP program (Go; mctslab.players.gtp)

Each kind is one row of a table (:func:`player_kinds`, rows of
:class:`~mctslab.core.player_kinds.PlayerKind`): its factory, whether it reads hidden
information, the config dataclasses its spec sets. A spec's keys are the names and aliases
those configs declare (:func:`mctslab.core.options.option`), parsed by their types. The
built-in rows are :data:`BUILT_IN_KINDS`; a game adds its own by declaring
``player_kinds`` on its class (Pig's ``pig-hold``, in :mod:`mctslab.games.pig`).

A ``gtp:`` spec takes no ``key=value`` options: everything after ``gtp:`` is the command.
A value with a comma is written in double quotes, a quote inside doubled
(``az:model="runs/a,b/gen-0001.pt"``; :func:`quote_spec_value` writes it).

Every player is handed the full state, but in a game with hidden information
(cards; ``perfect_information = False``, :func:`mctslab.core.infoset.is_perfect_information`)
only some read just what their own seat may know: ``ismcts`` and ``pimc`` (through
``information_state_string`` and ``resample_from_infostate``), ``random`` and
``openspiel-random`` (the legal moves, which the player to move always knows),
``human`` (shown only its observation) and ``gtp`` (an outside program, told the moves;
it plays only Go). ``mcts``, ``puct``, ``minimax``, ``openspiel-mcts`` (OpenSpiel's
MCTSBot searches the state it is given), ``pig-hold``, ``az`` and ``policy``
(a network over the full observation tensor) read the whole state, the other players' cards included: they would cheat.
:func:`reads_hidden_information` says which is which, and every place that sets
players against each other (:func:`play_game`, the arena, ``mctslab play``,
``tune``, ``analyze``) refuses a cheating player through
:func:`check_hidden_information` unless cheating is allowed explicitly
(``allow_cheating=True``, ``--allow-cheating``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TextIO, runtime_checkable

from mctslab.core.errors import IllegalActionError, InvalidConfigError, InvalidSpecError
from mctslab.core.game import CHANCE, GameInfo, State, sample_chance_outcome
from mctslab.core.infoset import is_perfect_information
from mctslab.core.options import Option, option, options_of
from mctslab.core.player_kinds import PlayerFactory, PlayerKind, build, spec_config, spec_values
from mctslab.core.registry import declarations
from mctslab.core.rng import Rng
from mctslab.players.gtp import PLAYER_KINDS as GTP_KINDS
from mctslab.players.network import (
    make_network_player,
    network_evaluator,
    network_game,
)
from mctslab.players.openspiel import PLAYER_KINDS as OPENSPIEL_KINDS
from mctslab.search.config import SearchConfig
from mctslab.search.engine import ENGINES, Searcher, make_searcher
from mctslab.search.ismcts import ISMCTS, PIMC, ISMCTSConfig, PIMCConfig
from mctslab.search.minimax import MinimaxResult, alphabeta, iterative_deepening, solve
from mctslab.search.puct import PuctConfig
from mctslab.search.result import SearchResult
from mctslab.search.rules import puct_config as puct_parameters

__all__ = [
    "BUILT_IN_KINDS",
    "KINDS",
    "OWN_INFORMATION_KINDS",
    "AzPlayer",
    "HumanPlayer",
    "ISMCTSPlayer",
    "MCTSPlayer",
    "MinimaxOptions",
    "MinimaxPlayer",
    "Player",
    "RandomPlayer",
    "cheating_note",
    "check_hidden_information",
    "make_player",
    "parse_spec",
    "play_game",
    "player_kinds",
    "puct_config",
    "quote_spec_value",
    "reads_hidden_information",
    "search_config",
]


@runtime_checkable
class Player(Protocol):
    """Chooses moves. ``inform`` is told every action played, including its own.

    A player of a game with hidden information may say whether it reads the other
    players' hidden information with a boolean attribute ``reads_hidden_information``
    (see :func:`reads_hidden_information`; without it, its ``name`` decides).
    """

    name: str

    def choose(self, state: State) -> int: ...

    def inform(self, action: int) -> None: ...


class RandomPlayer:
    """Uniformly random legal moves from a seeded generator."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.rng = Rng(seed)

    def choose(self, state: State) -> int:
        return self.rng.choice(state.legal_actions())

    def inform(self, action: int) -> None:
        pass


class MCTSPlayer:
    """MCTS with tree reuse: the tree under the moves played is kept for the next search.

    ``engine`` is ``"auto"`` (compiled for games with rule kernels), ``"reference"``
    or ``"compiled"``; the searcher is made at the first move, when the game is known.
    ``name`` is ``"mcts"`` (UCT) or ``"puct"`` (a config with ``puct`` set, from a
    ``puct:...`` spec). ``last_result`` is the :class:`SearchResult` of the last move
    (``None`` after a forced move, which is played without a search unless
    ``search_forced_moves``: self-play sets it so that every move it records has one).
    """

    def __init__(
        self,
        info: GameInfo,
        config: SearchConfig | None = None,
        engine: str = "auto",
        *,
        name: str = "mcts",
        search_forced_moves: bool = False,
    ) -> None:
        if engine not in ENGINES:
            raise InvalidSpecError(
                f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}"
            )
        self.name = name
        self.info = info
        self.config = config or SearchConfig()
        self.engine = engine
        self.search_forced_moves = search_forced_moves
        self.searcher: Searcher | None = None
        self.last_result: SearchResult | None = None

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1 and not self.search_forced_moves:
            # A forced move is played at once: searching it would only spend the budget
            # (Bohnenspiel's end games can force one side for hundreds of plies).
            self.last_result = None
            return legal[0]
        if self.searcher is None:
            self.searcher = make_searcher(self.config, state, self.engine)
        self.last_result = self.searcher.search(state, self.info, config=self.config)
        return self.last_result.action

    def rebudget(self, config: SearchConfig) -> None:
        """Search with ``config`` from the next move on (a clock's budget for the move,
        :func:`mctslab.players.time_control.set_move_time`): each search hands the
        searcher the player's config, so its own is never written from outside."""
        self.config = config

    def inform(self, action: int) -> None:
        # Tree reuse follows the state's history in search(); nothing to do here.
        pass


class AzPlayer(MCTSPlayer):
    """AlphaZero's player (``az:model=...``): PUCT whose evaluator is a trained network
    (:mod:`mctslab.players.network`), loaded at the first move, where the game and its
    parameters are known."""

    def __init__(
        self, info: GameInfo, path: Path, config: SearchConfig, engine: str, backend: str = "auto"
    ) -> None:
        super().__init__(info, config, engine, name="az")
        self.path = path
        #: ``backend=`` as asked (``auto``, ``onnx``, ``torch``); after the first move, the
        #: backend that runs the network, and ``backend_note`` why.
        self.backend = backend
        self.backend_note = ""

    def choose(self, state: State) -> int:
        if self.config.rule.evaluated:
            puct = puct_parameters(self.config)
            if isinstance(puct.evaluator, str):  # the placeholder: load the network
                evaluator, self.backend, self.backend_note = network_evaluator(
                    self.path, network_game(state), self.backend
                )
                self.config = replace(self.config, puct=replace(puct, evaluator=evaluator))
        return super().choose(state)


class ISMCTSPlayer:
    """Information Set MCTS (:mod:`mctslab.search.ismcts`) or PIMC, searching from what the
    player to move knows; a fresh tree every move, forced moves played at once."""

    def __init__(
        self, info: GameInfo, config: ISMCTSConfig | PIMCConfig, model: Any = None
    ) -> None:
        self.info = info
        self.config = config
        self.searcher: ISMCTS | PIMC
        if isinstance(config, PIMCConfig):
            self.name = "pimc"
            self.searcher = PIMC(config, model)
        else:
            self.name = "ismcts"
            self.searcher = ISMCTS(config, model)
        self.last_result: SearchResult | None = None

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_result = None
            return legal[0]
        self.last_result = self.searcher.search(state, self.info)
        return self.last_result.action

    def inform(self, action: int) -> None:
        pass


class MinimaxPlayer:
    """Exact minimax (no budget), depth-limited alpha-beta with the heuristic (``depth``),
    or iterative deepening within ``time`` seconds a move (up to ``depth`` if given)."""

    def __init__(self, info: GameInfo, depth: int | None = None, time: float | None = None):
        self.name = (
            "minimax"
            if depth is None and time is None
            else f"minimax-d{depth}"
            if time is None
            else f"minimax-t{time:g}"
        )
        self.info = info
        self.depth = depth
        self.time = time
        #: The last move's search (``None`` before the first, or for the exact solver).
        self.last: MinimaxResult | None = None

    def choose(self, state: State) -> int:
        if self.time is not None:
            self.last = iterative_deepening(state, self.time, self.info, self.depth)
            return self.last.action
        if self.depth is None:
            return solve(state, self.info).best_actions[0]
        self.last = alphabeta(state, self.depth, self.info)
        return self.last.action

    def inform(self, action: int) -> None:
        pass


#: A human's prompt lists the legal moves up to this many; beyond, ``?`` lists them.
LISTED_MOVES = 20


class HumanPlayer:
    """Reads moves typed at the terminal (action names, as the board shows them)."""

    def __init__(
        self,
        read: Callable[[str], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        self.name = "human"
        self._read = read or input
        self._out = out or sys.stdout

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        names = ", ".join(state.action_to_string(a) for a in legal)
        # A long list (Go's 82 moves) is shown on request, not in every prompt.
        few = len(legal) <= LISTED_MOVES
        shown = names if few else f"{len(legal)} legal moves, ? lists them"
        hint = f"legal moves: {names}" if few else "? lists the legal moves"
        while True:
            text = self._read(f"your move ({shown}): ").strip()
            if text in ("?", "help", ""):
                print(f"legal moves: {names}", file=self._out)
                continue
            try:
                action = state.string_to_action(text)
            except IllegalActionError as err:
                said = str(err) if few else str(err).split("; legal actions:")[0] + f"; {hint}"
                print(said, file=self._out)
                continue
            if action not in legal:
                print(f"{text!r} is not legal here; {hint}", file=self._out)
                continue
            return action

    def inform(self, action: int) -> None:
        pass


def reads_hidden_information(player: str | Player) -> bool:
    """Whether ``player`` (a spec string or a player object) reads the full state it is
    handed, the other players' hidden cards included, when it chooses a move.

    A spec is judged by its kind's row (:func:`player_kinds`). A player object by its
    own boolean ``reads_hidden_information`` attribute where it has one, else by its
    ``name`` (mctslab's players are named by their kind); a player this cannot place is
    taken to read everything.

    >>> reads_hidden_information("mcts:iterations=100"), reads_hidden_information("ismcts")
    (True, False)
    """
    kinds = player_kinds()
    if isinstance(player, str):
        kind, _ = parse_spec(player)
        return kinds[kind].reads_hidden_information
    declared = getattr(player, "reads_hidden_information", None)
    if isinstance(declared, bool):
        return declared
    name = getattr(player, "name", None)
    row = kinds.get(name) if isinstance(name, str) else None
    return row is None or row.reads_hidden_information


def _named(name: str, player: str | Player) -> str:
    what = player if isinstance(player, str) else getattr(player, "name", type(player).__name__)
    return name if name == what else f"{name} ({what})"


def check_hidden_information(
    game: object,
    players: Iterable[tuple[str, str | Player]],
    allow_cheating: bool = False,
) -> tuple[str, ...]:
    """Refuse players that would see hidden information, unless ``allow_cheating``.

    ``players`` are ``(name, spec or player)`` pairs. In a game with hidden information
    (:func:`mctslab.core.infoset.is_perfect_information` false) a player for which
    :func:`reads_hidden_information` holds sees the other players' cards: it raises
    :class:`InvalidConfigError` naming it, or with ``allow_cheating`` it is allowed.
    Returns the names of the players allowed to cheat (empty when none reads hidden
    information, as in every perfect-information game).
    """
    if is_perfect_information(game):
        return ()
    cheats = [(name, p) for name, p in players if reads_hidden_information(p)]
    if cheats and not allow_cheating:
        name = getattr(getattr(game, "info", None), "name", "this game")
        who = ", ".join(_named(n, p) for n, p in cheats)
        verb = "reads" if len(cheats) == 1 else "read"
        raise InvalidConfigError(
            f"{name} hides information and {who} {verb} the full state, the other players' "
            "cards included; use a player that sees only its own information (ismcts:..., "
            "pimc:..., random) or allow cheating explicitly (--allow-cheating, "
            "allow_cheating=True)"
        )
    return tuple(n for n, _ in cheats)


def cheating_note(names: Sequence[str]) -> str:
    """The line results carry when players were allowed to cheat (``""`` when none were).

    >>> cheating_note(["mcts"])
    'cheating allowed: mcts sees hidden information'
    """
    if not names:
        return ""
    verb = "sees" if len(names) == 1 else "see"
    return f"cheating allowed: {', '.join(names)} {verb} hidden information"


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"kind:key=value,..."`` into the kind and its raw options.

    The kind is a row of :func:`player_kinds`. ``gtp:CMD`` is the exception (a kind that
    ``takes_command``): its one option ``command`` is everything after ``gtp:``.
    """
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip()
    kinds = player_kinds()
    if kind not in kinds:
        raise InvalidSpecError(f"unknown player {kind!r} in {spec!r}; valid: {', '.join(kinds)}")
    if kinds[kind].takes_command:
        return kind, {"command": rest.strip()}
    options: dict[str, str] = {}
    if not rest.strip():
        return kind, options  # "mcts" or "mcts:": the defaults
    for item in (p.strip() for p in _split_options(rest, spec)):
        if not item:  # "iterations=5,,c=1": a typo, not an option to skip silently
            raise InvalidSpecError(f"empty option in {spec!r}: write key=value,key=value")
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InvalidSpecError(f"bad option {item!r} in {spec!r}: write key=value")
        options[key.strip()] = _unquote(value.strip(), spec)
    return kind, options


def quote_spec_value(value: str) -> str:
    """``value`` written as an option value of a spec: as it is, or in double quotes (a
    quote inside doubled) where it holds a comma, a quote or spaces at its ends, so that
    :func:`parse_spec` reads it back whole: ``az:model="runs/a,b/gen-0001.pt"``."""
    if "," not in value and '"' not in value and value == value.strip():
        return value
    return '"' + value.replace('"', '""') + '"'


def _split_options(rest: str, spec: str) -> list[str]:
    """``rest`` cut at the commas outside double quotes (a doubled quote inside a quoted
    value toggles twice: the value stays quoted)."""
    items: list[str] = []
    start, quoted = 0, False
    for i, ch in enumerate(rest):
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            items.append(rest[start:i])
            start = i + 1
    if quoted:
        raise InvalidSpecError(f'unclosed quote in {spec!r}: write key="value"')
    items.append(rest[start:])
    return items


def _unquote(value: str, spec: str) -> str:
    """A whole value in double quotes without them (``""`` inside is one ``"``)."""
    if (
        len(value) >= 2
        and value[0] == value[-1] == '"'
        and '"' not in value[1:-1].replace('""', "")
    ):
        return value[1:-1].replace('""', '"')
    if '"' in value:
        raise InvalidSpecError(
            f'bad quotes in {value!r} in {spec!r}: quote a whole value, key="a,b"'
        )
    return value


# The spec strings' options, read by the option schema ---------------------------------------


@dataclass(frozen=True)
class MinimaxOptions:
    """The options of a ``minimax:`` spec (:class:`MinimaxPlayer`): none is exact minimax,
    ``depth`` alpha-beta to that depth, ``time`` iterative deepening within those seconds."""

    depth: int | None = option(
        None, "plies alpha-beta searches before the heuristic (none: exact)", low=1, check=False
    )
    time: float | None = option(
        None,
        "seconds a move for iterative deepening (none: no limit)",
        low=0,
        low_open=True,
        check=False,
    )

    def __post_init__(self) -> None:
        depth, seconds = self.depth, self.time
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, int) or depth < 1
        ):
            raise InvalidConfigError(f"minimax depth must be >= 1, got {depth}")
        if seconds is not None and not (
            isinstance(seconds, int | float) and math.isfinite(seconds) and seconds > 0
        ):
            raise InvalidConfigError(
                f"minimax time must be a positive number of seconds, got {seconds}"
            )


def _time_alone(values: dict[str, Any]) -> None:
    """A time budget given alone replaces the default iteration budget."""
    if "time" in values and "iterations" not in values:
        values["iterations"] = None


def search_config(options: dict[str, str], seed: int | None = None) -> SearchConfig:
    """A :class:`SearchConfig` from raw ``mcts:`` options: each key an option of
    :class:`SearchConfig` (its :func:`~mctslab.core.options.option` fields but ``puct``)
    by name or alias (unknown keys are errors that list the valid ones)."""
    table = options_of(SearchConfig)
    valid = [*(name for name, opt in table.items() if opt.spec), "engine"]
    (values,) = spec_values("mcts", options, [table], valid)
    _time_alone(values)
    if seed is not None:
        values.setdefault("seed", seed)
    return build(SearchConfig, values)


#: A ``puct:`` player's search budget when its spec names none (AlphaZero's 800
#: simulations a move).
PUCT_SIMULATIONS = 800


#: ``gumbel:``'s default budget: Gumbel search is made to plan few simulations well.
GUMBEL_SIMULATIONS = 64


def _puct_tables() -> tuple[dict[str, Option], dict[str, Option]]:
    """What a ``puct:`` spec sets: every option of :class:`PuctConfig` (its ``c`` is
    PUCT's), and the options of :class:`SearchConfig` declared ``under_puct`` (UCT's
    ``c``, ``expansion`` and the like do not apply: PUCT creates a node's children
    together)."""
    puct = {n: o for n, o in options_of(PuctConfig).items() if o.spec}
    search = {n: o for n, o in options_of(SearchConfig).items() if o.spec and o.under_puct}
    return puct, search


def puct_config(options: dict[str, str], seed: int | None = None) -> SearchConfig:
    """A :class:`SearchConfig` with ``puct=`` :class:`PuctConfig` from raw ``puct:``
    options (:func:`_puct_tables`; by name or alias: ``simulations`` is ``iterations``,
    ``noise`` ``noise_fraction``, ``alpha`` ``noise_alpha``; unknown keys are errors that
    list the valid ones; ``engine`` is the caller's). Defaults:
    ``evaluator=uniform+rollout``, :data:`PUCT_SIMULATIONS` simulations."""
    puct_table, search_table = _puct_tables()
    # The valid keys listed: PuctConfig's names and aliases, the search options' names,
    # and "simulations", the budget's name in the PUCT papers.
    valid = [*(n for o in puct_table.values() for n in o.names), *search_table, "simulations"]
    puct, search = spec_values("puct", options, [puct_table, search_table], [*valid, "engine"])
    _time_alone(search)
    search.setdefault("iterations", PUCT_SIMULATIONS)
    if seed is not None:
        search.setdefault("seed", seed)
    return build(SearchConfig, {**search, "puct": build(PuctConfig, puct)})


def _search_values(kind: str, cls: type, options: dict[str, str], seed: int) -> dict[str, Any]:
    """An ``ismcts`` or ``pimc`` config's values from raw options (unknown keys are errors)."""
    (values,) = spec_values(kind, options, [options_of(cls)])
    _time_alone(values)
    values.setdefault("seed", seed)
    return values


# The player kinds -----------------------------------------------------------------------------


def _engine(options: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The spec's ``engine=`` (``auto`` by default) and the options without it."""
    rest = dict(options)
    return rest.pop("engine", "auto"), rest


def _mcts(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    engine, options = _engine(options)
    return MCTSPlayer(info, search_config(options, seed), engine)


def _puct(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    engine, options = _engine(options)
    return MCTSPlayer(info, puct_config(options, seed), engine, name="puct")


def _gumbel(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    """Gumbel root search: ``puct:``'s options, ``gumbel=1`` and its own default budget."""
    engine, options = _engine(options)
    options = {"gumbel": "1", "simulations": str(GUMBEL_SIMULATIONS), **options}
    return MCTSPlayer(info, puct_config(options, seed), engine, name="gumbel")


def _ismcts(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    return ISMCTSPlayer(
        info, build(ISMCTSConfig, _search_values("ismcts", ISMCTSConfig, options, seed))
    )


def _pimc(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    return ISMCTSPlayer(info, build(PIMCConfig, _search_values("pimc", PIMCConfig, options, seed)))


def _minimax(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    chosen = spec_config("minimax", MinimaxOptions, options)
    return MinimaxPlayer(info, chosen.depth, chosen.time)


def _no_options(kind: str, options: dict[str, str]) -> None:
    if options:
        raise InvalidSpecError(f"player {kind!r} takes no options, got {', '.join(options)}")


def _random(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    _no_options("random", options)
    return RandomPlayer(seed)


def _human(options: dict[str, str], info: GameInfo, seed: int) -> Player:
    _no_options("human", options)
    return HumanPlayer()


def _network(kind: str) -> PlayerFactory:
    """``az:`` or ``policy:`` (:mod:`mctslab.players.network`; PyTorch is imported only
    when such a player is made)."""

    def make(options: dict[str, str], info: GameInfo, seed: int) -> Player:
        made = make_network_player(kind, options, info, seed)
        if not isinstance(made, tuple):
            return made
        path, rest = made
        engine, rest = _engine(rest)
        backend = rest.pop("backend", "auto")
        # The placeholder "uniform" is replaced by the network at the first move.
        config = puct_config({**rest, "evaluator": "uniform"}, seed)
        return AzPlayer(info, path, config, engine, backend)

    return make


#: The built-in player kinds, one row each (:class:`~mctslab.core.player_kinds.PlayerKind`):
#: the kind, its factory, whether it reads hidden information, the configs its spec sets,
#: its help, whether a clock sets its search's budget. A game adds its own
#: (:func:`player_kinds`).
BUILT_IN_KINDS: tuple[PlayerKind, ...] = (
    PlayerKind(
        "mcts",
        _mcts,
        reads_hidden_information=True,
        options=(SearchConfig,),
        help="UCT (the reference or the compiled engine), tree kept between moves",
        timed=True,
    ),
    PlayerKind(
        "puct",
        _puct,
        reads_hidden_information=True,
        options=(PuctConfig, SearchConfig),
        help="AlphaGo's PUCT with an evaluator's priors and values (800 simulations)",
        timed=True,
    ),
    PlayerKind(
        "gumbel",
        _gumbel,
        reads_hidden_information=True,
        options=(PuctConfig, SearchConfig),
        help="Gumbel root search with Sequential Halving (64 simulations)",
    ),
    PlayerKind(
        "ismcts",
        _ismcts,
        reads_hidden_information=False,
        options=(ISMCTSConfig,),
        help="Information Set MCTS, searching what its seat knows",
        timed=True,
    ),
    PlayerKind(
        "pimc",
        _pimc,
        reads_hidden_information=False,
        options=(PIMCConfig,),
        help="determinized UCT: worlds drawn from what its seat knows",
        timed=True,
    ),
    PlayerKind(
        "minimax",
        _minimax,
        reads_hidden_information=True,
        options=(MinimaxOptions,),
        help="exact minimax, alpha-beta to a depth, or iterative deepening in time",
    ),
    PlayerKind(
        "random", _random, reads_hidden_information=False, help="uniformly random legal moves"
    ),
    PlayerKind("human", _human, reads_hidden_information=False, help="moves typed at the terminal"),
    *GTP_KINDS,
    PlayerKind(
        "az",
        _network("az"),
        reads_hidden_information=True,
        options=(PuctConfig, SearchConfig),
        help="PUCT with a trained network, model=NAME_OR_PATH (200 simulations)",
        timed=True,
    ),
    PlayerKind(
        "policy",
        _network("policy"),
        reads_hidden_information=True,
        help="a trained network's policy alone, model=NAME_OR_PATH, no search",
    ),
    *OPENSPIEL_KINDS,
)


def player_kinds() -> dict[str, PlayerKind]:
    """Every player kind a spec string may name, by name: :data:`BUILT_IN_KINDS`, then
    the kinds the registered games declare (a game class's ``player_kinds``, read
    through :func:`mctslab.core.registry.declarations` without making the game; Pig's
    ``pig-hold``). Read anew at each call, so a game registered later adds its kinds;
    a game's kind may not take a name another kind has."""
    table = {kind.name: kind for kind in BUILT_IN_KINDS}
    for game, declared in declarations("player_kinds"):
        for kind in declared:
            if not isinstance(kind, PlayerKind):
                raise InvalidConfigError(
                    f"game {game!r}: player_kinds holds PlayerKind rows, got {kind!r}"
                )
            if table.get(kind.name, kind) is not kind:
                raise InvalidConfigError(
                    f"game {game!r} declares player kind {kind.name!r}, which another kind has"
                )
            table[kind.name] = kind
    return table


#: Every player kind a spec string may name (those of the games registered when mctslab
#: was imported; :func:`player_kinds` is the live table).
KINDS = tuple(player_kinds())
#: The player kinds that choose from what their own seat may know, even when they are
#: handed the full state of a game with hidden information (see the module docstring):
#: the rows of :func:`player_kinds` declared ``reads_hidden_information=False``.
OWN_INFORMATION_KINDS = frozenset(
    name for name, kind in player_kinds().items() if not kind.reads_hidden_information
)


def make_player(spec: str, info: GameInfo, seed: int = 0) -> Player:
    """A player from a spec string such as ``"mcts:iterations=5000,c=1.4"``: the factory
    of its kind's row in :func:`player_kinds`.

    ``seed`` seeds the player unless the spec sets its own. ``puct:...`` is an
    :class:`MCTSPlayer` named ``"puct"`` searching with PUCT (:func:`puct_config`;
    defaults: ``evaluator=uniform+rollout``, 800 simulations). Raises
    :class:`InvalidSpecError` naming the bad key and the valid ones.
    """
    kind, options = parse_spec(spec)
    made: Player = player_kinds()[kind].make(options, info, seed)
    return made


def play_game(
    state: State,
    players: list[Player],
    on_move: Callable[[State, int, int], None] | None = None,
    chance_seed: int = 0,
    allow_cheating: bool = False,
) -> State:
    """Play ``state`` to the end with one player per seat; every player is informed.

    Chance outcomes (dice, deals) are drawn by their probabilities from
    ``Rng(chance_seed)``, apart from the players' own generators, and reported to
    ``on_move`` with the player :data:`~mctslab.core.game.CHANCE`. Players of a game
    with hidden information are given the full state: a player that reads it all
    (:func:`reads_hidden_information`: ``mcts``, ``minimax``, ...) would see the
    others' cards, so it raises :class:`InvalidConfigError` before any move unless
    ``allow_cheating``. The information-set players read it only through
    ``information_state_string`` and ``resample_from_infostate`` (what their seat
    may know).
    """
    if len(players) != _num_players(state, players):
        raise InvalidConfigError(
            f"the game has {_num_players(state, players)} players, got {len(players)}"
        )
    seats = [(f"seat {i + 1}", p) for i, p in enumerate(players)]
    check_hidden_information(getattr(state, "game", None), seats, allow_cheating)
    chance = Rng(chance_seed)
    while not state.is_terminal():
        p = state.current_player()
        if p == CHANCE:
            action = sample_chance_outcome(state, chance)
        else:
            action = players[p].choose(state.clone())
        state.apply_action(action)
        for player in players:
            player.inform(action)
        if on_move is not None:
            on_move(state, p, action)
    return state


def _num_players(state: State, players: list[Player]) -> int:
    info = getattr(getattr(state, "game", None), "info", None)
    return info.num_players if isinstance(info, GameInfo) else len(players)
