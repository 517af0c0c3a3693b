"""The web API's request and response models (pydantic), as the OpenAPI schema shows them.

Request bodies take exactly what their schema says (:data:`REQUEST`: no unknown field,
no ``true`` for 1, no NaN). Every error is :class:`ErrorOut` (``{"detail": one line}``),
and :func:`error_responses` writes the error statuses a route sends into its
``responses``. 422 means the request does not match the schema; 400 means it matches
but the game refuses it (see :mod:`mctslab.web.app`).

A response that is a dataclass of the engines (a search's result and its children, a
traced iteration's phases, a selection rule) has its model generated from the
dataclass's fields (:func:`dataclass_model`): the types and defaults are the
dataclass's, the descriptions the API's own.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import sys
from collections.abc import Mapping, Sequence
from types import MappingProxyType, UnionType
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model, field_validator
from pydantic_core import PydanticCustomError

from mctslab.core.options import Option, options_of
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig
from mctslab.search.result import ChildStats, SearchResult
from mctslab.search.rules import RULES, RuleInfo, selectable_rules
from mctslab.search.trace import (
    ChildPrior,
    ChildScore,
    Expansion,
    IterationTrace,
    SelectionStep,
    Simulation,
    Update,
)
from mctslab.web.openspiel import OPENSPIEL_PATTERN

#: The lab's selection rules (``EngineConfig.selection``): UCT's selectable rules of the
#: registry, then PUCT.
LAB_SELECTIONS = (*selectable_rules(), "puct")

__all__ = [
    "BODY_ERROR",
    "DEFAULT_ITERATIONS",
    "HOST_ERROR",
    "LAB_OPTIONS",
    "LAB_SELECTIONS",
    "NODE_ID",
    "OPENSPIEL_GAME",
    "REQUEST",
    "AiReport",
    "BudgetIn",
    "CancelOut",
    "ChildPriorOut",
    "ChildScoreOut",
    "ChildView",
    "EngineConfig",
    "ErrorOut",
    "ExpansionOut",
    "GameOut",
    "HealthOut",
    "IterationsIn",
    "IterationsOut",
    "JsonInt",
    "KeptTree",
    "LegalMove",
    "ModelOut",
    "MoveIn",
    "MoveOut",
    "NaturalInt",
    "NodeOut",
    "PlayIn",
    "PlayedMove",
    "PositiveInt",
    "RuleOut",
    "SelectionStepOut",
    "SessionIn",
    "SessionView",
    "SimulationOut",
    "StateView",
    "TraceOut",
    "TreeCounts",
    "TreeNodeOut",
    "UpdateOut",
    "dataclass_model",
    "engine_config_model",
    "error_responses",
    "json_integer",
    "lab_field",
    "lab_options",
]

#: A node id: the actions from the root, dot-separated ("4.0.8"); "" is the root.
NODE_ID = r"^([0-9]+(\.[0-9]+)*)?$"
#: An OpenSpiel game the lab serves (mctslab.web.openspiel.ALLOWED), optionally with
#: parameters: openspiel:go(board_size=9).
OPENSPIEL_GAME = OPENSPIEL_PATTERN
#: Iterations per AI move unless the configuration says otherwise (or max_iterations is less).
DEFAULT_ITERATIONS = 1000


def json_integer(value: Any) -> Any:
    """An integer as JSON Schema has it: 3, or 3.0 (a number without a fraction); not `true`
    or "3", which pydantic's lax mode would take."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


#: The integers of request bodies (with the models' ``strict``, which refuses floats).
JsonInt = Annotated[int, BeforeValidator(json_integer)]
# Bounds before the validator, on the int itself: elsewhere pydantic checks them apart and
# writes "ge" into the schema, which is no JSON Schema keyword, instead of "minimum".
PositiveInt = Annotated[int, Field(ge=1), BeforeValidator(json_integer)]
NaturalInt = Annotated[int, Field(ge=0), BeforeValidator(json_integer)]

# Request bodies take exactly what their schema says: no unknown field, no `true` for 1
# or "3" for 3 (strict), no NaN or infinity (not JSON, though Python's parser reads them).
REQUEST = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class ErrorOut(BaseModel):
    """Every error the API sends: one line that names the problem (the field, the cap,
    the legal moves)."""

    detail: str = Field(description="What was wrong, in one line.")


# What each error status means, for the schema's per-route `responses`.
_ERRORS: dict[int, str] = {
    400: "Well formed, but refused by the game: a bad game parameter or configuration for "
    "this game (an OpenSpiel parameter off the lab's list or out of its bounds), an illegal "
    "move or a move name no move has, a position after the end, a node not in the tree, "
    "a session of another game than the route's; or a Host header the server does not "
    "answer to (allowed_hosts).",
    404: "No such session: it never existed, was deleted, or expired.",
    409: "A search is running on the session (or the AI's search was cancelled: no move).",
    413: "Over a size cap: the session's tree (max_nodes, or fewer of this game's nodes "
    "within max_session_memory), the view (max_view_nodes, max_svg_nodes), the time "
    "to set up the game (max_build_time), or the request body (max_body_bytes).",
    422: "The request does not match this schema (a type, a range, an unknown field or "
    "game, malformed JSON) or a budget is over its cap (max_iterations, max_time).",
    429: "Too many at once: sessions (max_sessions, max_client_sessions), searches "
    "(max_searches, max_client_searches), or the memory of every tree together "
    "(max_memory).",
    503: "SVG export needs Graphviz.",
}
#: The 400 of a route whose requests the game cannot refuse: the Host header alone.
HOST_ERROR = "A Host header the server does not answer to (allowed_hosts)."
BODY_ERROR = "The request body is over its cap (max_body_bytes)."


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that sends the error statuses ``codes``."""
    return {code: {"model": ErrorOut, "description": _ERRORS[code]} for code in codes}


class _LabConfig(BaseModel):
    """The fields of :class:`EngineConfig` that are the lab's own: the engine, the
    selection (UCT's selectable rules or PUCT, which sets :class:`PuctConfig`) and the
    budget (whose default the server's caps bound). The rest are generated from the
    configs' declarations (:data:`LAB_OPTIONS`)."""

    model_config = REQUEST

    engine: Literal["reference", "compiled", "auto"] | None = Field(
        default=None,
        description="Engine of the AI's moves. Default: 'reference' for a session (its tree "
        "is the one the lab shows), 'auto' for /api/move (compiled where the game has "
        "rule kernels).",
    )
    # The schema's enum is the registry's (mctslab.search.rules: UCT's selectable rules,
    # and PUCT); the validator below refuses anything else (422).
    selection: str = Field(
        default="uct",
        description="Selection rule (GET /api/rules lists them with their formulas): "
        + ", ".join(f"'{name}' ({RULES[name].title}, with c)" for name in selectable_rules())
        + ", or 'puct' (AlphaGo's PUCT, with c_puct, fpu and the evaluator's priors and "
        "values; expansion does not apply: a node's children are added at once).",
        json_schema_extra={"enum": list(LAB_SELECTIONS)},
    )
    iterations: PositiveInt | None = Field(
        default=DEFAULT_ITERATIONS,
        description="Iterations per AI move (null: none; a time alone replaces it). The "
        "default is the server's max_iterations where that is smaller.",
    )
    time: float | None = Field(
        default=None, gt=0, description="Seconds per AI move (null: no time budget)."
    )

    if TYPE_CHECKING:  # the generated fields (LAB_OPTIONS), typed by their options

        def __getattr__(self, name: str) -> Any: ...

    @field_validator("selection")
    @classmethod
    def _known_selection(cls, value: str) -> str:
        if value not in LAB_SELECTIONS:
            raise ValueError(
                f"unknown selection rule {value!r}; the lab's: {', '.join(LAB_SELECTIONS)}"
            )
        return value


def lab_options(
    search: type = SearchConfig, puct: type = PuctConfig
) -> dict[str, tuple[type, Option]]:
    """The options the lab offers (declared with ``lab=True``) beyond its own fields, by
    their name in a request: the search config's, then PUCT's (a name both have is
    PUCT's with ``_puct``: ``c_puct``)."""
    names = options_of(search)
    found: dict[str, tuple[type, Option]] = {}
    for owner in (search, puct):
        for opt in options_of(owner).values():
            name = opt.name if owner is search or opt.name not in names else f"{opt.name}_puct"
            if opt.lab and name not in _LabConfig.model_fields:
                found[name] = (owner, opt)
    return found


#: The options of :class:`SearchConfig` and :class:`PuctConfig` the lab offers, by their
#: field's name in :class:`EngineConfig`: (the config that declares it, the option).
LAB_OPTIONS: Mapping[str, tuple[type, Option]] = MappingProxyType(lab_options())


def lab_field(opt: Option) -> tuple[Any, Any]:
    """The pydantic field of an option: its type (a ``Literal`` of its choices; an integer
    as JSON Schema has it, :data:`JsonInt`; an evaluator by name), its bounds, default
    and description (``lab_help``, else the one-line help as a sentence)."""
    bounds: dict[str, Any] = {}
    if opt.low is not None:
        bounds["gt" if opt.low_open else "ge"] = opt.low
    if opt.high is not None:
        bounds["lt" if opt.high_open else "le"] = opt.high
    kind: Any
    if opt.kind == "choice" or opt.choices:
        kind = Literal[opt.choices]  # type: ignore[valid-type]
    elif opt.kind == "int":
        # Bounds before the validator, as PositiveInt's (the schema's "minimum").
        kind = Annotated[int, Field(**bounds), BeforeValidator(json_integer)]
    elif opt.kind == "float":
        kind = Annotated[float, Field(**bounds)] if bounds else float
    else:
        kind = {"bool": bool}.get(opt.kind, str)  # "object": a name (an evaluator's)
    if opt.optional:
        kind = kind | None
    help_text = opt.lab_help or f"{opt.help[0].upper()}{opt.help[1:]}."
    return kind, Field(default=opt.default, description=help_text)


def engine_config_model(options: Mapping[str, tuple[type, Option]]) -> type[_LabConfig]:
    """The request model of a search configuration: the lab's own fields and one field
    for each of ``options`` (:func:`lab_field`)."""
    fields: dict[str, Any] = {name: lab_field(opt) for name, (_, opt) in options.items()}
    return create_model(
        "EngineConfig",
        __base__=_LabConfig,
        __module__=__name__,
        __doc__="A search configuration (the fields of :class:`mctslab.SearchConfig` the "
        "lab offers).",
        **fields,
    )


if TYPE_CHECKING:  # typed as its base: the lab's own fields, the generated ones as Any
    EngineConfig = _LabConfig
else:
    EngineConfig = engine_config_model(LAB_OPTIONS)


class SessionIn(BaseModel):
    model_config = REQUEST

    # The schema's enum of names is written by create_app (the names of GET /api/games).
    game: str = Field(description="A name from GET /api/games, or openspiel:NAME.")
    params: dict[str, Any] = Field(default_factory=dict, description="Game parameters.")
    config: EngineConfig = Field(default_factory=lambda: EngineConfig())
    human_player: NaturalInt | None = Field(
        default=None, description="The player the human plays (0 moves first); null: none."
    )
    actions: list[JsonInt] = Field(default_factory=list, description="Moves played from the start.")


class LegalMove(BaseModel):
    action: int
    label: str


class PlayedMove(BaseModel):
    action: int
    label: str = Field(description="The move's name where it was played (a die's face, ...).")
    player: int = Field(description="Who played it; -1 for chance (a die's outcome).")


class StateView(BaseModel):
    text: str = Field(
        description="The board as text for a person: the game's human_view() where it has "
        "one (players counted from 1), else str(state)."
    )
    actions: list[int] = Field(description="The moves played from the start (action ids).")
    moves: list[PlayedMove] = Field(
        description="The same moves named, with who played them: the page's move list, "
        "chance outcomes included (their names need the position they were drawn at)."
    )
    current_player: int = Field(description="Player to move; -4 once the game is over.")
    terminal: bool
    returns: list[float]
    legal: list[LegalMove]
    render: dict[str, Any] = Field(description="What the page draws (mctslab.web.render).")
    player_names: list[str] = Field(
        description="Each player's name for people, by player id: X/O, Red/Yellow where "
        "the board draws them so, else 'player 1', 'player 2', ..."
    )
    value_scale: list[float] = Field(
        description="[min, max]: the game's scale of returns, on which a move's value is given."
    )
    ending: str | None = Field(
        default=None,
        description="How a finished game ended where the rules tell it apart, in words: "
        "'at the move limit (162 moves), counted as the board stands' (Go); null otherwise.",
    )


class TreeCounts(BaseModel):
    nodes: int = Field(description="Nodes of the session's (reference) tree.")
    root_visits: int


class KeptTree(BaseModel):
    """The tree of an earlier search that GET /tree shows while the reference tree has no
    search at the current position: a compiled AI move's, or the last one before the end."""

    engine: str = Field(description="The engine whose tree it is: reference or compiled.")
    actions: list[int] = Field(
        description="The moves from the start to the position it searched from (its root)."
    )
    nodes: int
    root_visits: int


# Models generated from the dataclasses they answer with. ---------------------------------


def _annotation(source: type, name: str) -> Any:
    """The annotation of ``source``'s field ``name``, evaluated in ``source``'s module (the
    field's alone: another field's may name a type its module imports only for checking)."""
    declared = next(f for f in dataclasses.fields(source) if f.name == name).type
    if not isinstance(declared, str):
        return declared
    # The annotation's text, read as typing.get_type_hints reads it.
    return eval(declared, vars(sys.modules[source.__module__]))


def _json_type(kind: Any, models: Mapping[type, Any]) -> Any:
    """``kind`` as the model holds it: a tuple as a list (JSON's array), a dataclass as its
    model in ``models``, through unions (``Expansion | None``) and lists."""
    if kind in models:
        return models[kind]
    args = get_args(kind)
    origin = get_origin(kind)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return list[_json_type(args[0], models)]  # type: ignore[misc]
    if origin is list:
        return list[_json_type(args[0], models)]  # type: ignore[misc]
    if origin in (Union, UnionType):
        return functools.reduce(operator.or_, (_json_type(a, models) for a in args))
    return kind


def dataclass_model(
    source: type,
    name: str,
    *,
    doc: str | None = None,
    fields: Sequence[str] | None = None,
    describe: Mapping[str, str] = MappingProxyType({}),
    types: Mapping[str, Any] = MappingProxyType({}),
    extra: Mapping[str, tuple[Any, Any]] = MappingProxyType({}),
    models: Mapping[type, Any] = MappingProxyType({}),
) -> type[BaseModel]:
    """The response model ``name`` of the dataclass ``source``: a field for each of its
    fields (``fields``: these, in this order, the names of ``extra`` among them), with the
    dataclass's type (a tuple as a list; a nested dataclass as its model in ``models``) and
    default, and the description ``describe`` gives it; ``types`` replaces a type where
    JSON's differs (a score that is infinite in Python is ``null``), ``extra`` adds the
    fields the answer has beyond the dataclass's (``(type, default or Field)``, last unless
    ``fields`` places them)."""
    own = {f.name: f for f in dataclasses.fields(source)}
    order = list(fields) if fields is not None else [*own, *(n for n in extra if n not in own)]
    made: dict[str, Any] = {}
    for field_name in order:
        if field_name in extra:
            made[field_name] = extra[field_name]
            continue
        declared = own[field_name]
        if field_name in types:
            kind = types[field_name]
        else:
            kind = _json_type(_annotation(source, field_name), models)
        options: dict[str, Any] = {}
        if declared.default is not dataclasses.MISSING:
            options["default"] = declared.default
        elif declared.default_factory is not dataclasses.MISSING:
            options["default_factory"] = declared.default_factory
        if field_name in describe:
            options["description"] = describe[field_name]
        made[field_name] = (kind, Field(**options))
    return create_model(name, __module__=__name__, __doc__=doc, **made)  # type: ignore[call-overload, no-any-return]


if TYPE_CHECKING:  # the generated models, typed as models whose fields read as Any

    class _Generated(BaseModel):
        def __init__(self, **data: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...

    ChildView = _Generated
    AiReport = _Generated
    MoveOut = _Generated
    ChildScoreOut = _Generated
    ChildPriorOut = _Generated
    SelectionStepOut = _Generated
    ExpansionOut = _Generated
    SimulationOut = _Generated
    UpdateOut = _Generated
    TraceOut = _Generated
    RuleOut = _Generated
else:
    ChildView = dataclass_model(
        ChildStats,
        "ChildView",
        fields=("action", "label", "visits", "value", "proven", "prior"),
        extra={"label": (str, ...)},
        describe={
            "value": "Mean return of the move for the player to move.",
            "proven": "1 / 0 / -1: proven win / draw / loss; null.",
            "prior": "The evaluator's prior P of the move under PUCT; null under UCT.",
        },
    )
    #: A search's answer as the page's AI report and the bot service's move share it.
    _MOVE = {
        "label": (str, ...),
        "engine": (str, ...),
    }
    _MOVE_DESCRIBED = {
        "seconds": "Seconds searching (compilation apart).",
    }
    AiReport = dataclass_model(
        SearchResult,
        "AiReport",
        fields=(
            "action",
            "label",
            "player",
            "final_rule",
            "value",
            "iterations",
            "seconds",
            "compile_seconds",
            "stopped_by",
            "engine",
            "children",
        ),
        extra=_MOVE,
        models={ChildStats: ChildView},
        describe={
            **_MOVE_DESCRIBED,
            "final_rule": "The rule that picked the move ('solver' for a proof).",
            "compile_seconds": "Seconds compiling the compiled engine's code for this game, "
            "or loading it from numba's cache: the first move of a game in the server's "
            "process only.",
        },
    )
    MoveOut = dataclass_model(
        SearchResult,
        "MoveOut",
        fields=(
            "action",
            "label",
            "player",
            "value",
            "iterations",
            "seconds",
            "compile_seconds",
            "final_rule",
            "stopped_by",
            "proven",
            "engine",
            "children",
        ),
        extra=_MOVE,
        models={ChildStats: ChildView},
        describe={
            **_MOVE_DESCRIBED,
            "compile_seconds": "Seconds compiling the engine's code on first use.",
        },
    )
    ChildScoreOut = dataclass_model(
        ChildScore,
        "ChildScoreOut",
        types={"uct": float | None},  # JSON has no infinity: an unvisited child's is null
        describe={
            "mean": "Q/N in [0, 1] of the player who moves into the child.",
            "uct": "The selection's score: UCT (null when unvisited: infinite), with RAVE "
            "or progressive bias mctslab.search.reference.selection.rave_score (see TreeNodeOut.uct), or "
            "under PUCT the PUCT score.",
            "eligible": "False for a proven child that MCTS-Solver skips.",
            "prior": "The prior P selection used under PUCT; null: UCT.",
            "amaf_visits": "RAVE's all-moves-as-first count N~; null without RAVE.",
            "amaf_mean": "RAVE's all-moves-as-first mean Q~/N~ in [0, 1]; null without RAVE "
            "or while N~ = 0.",
            "bias": "Progressive bias's w * H (the score gains w * H / (N + 1)); null "
            "without progressive bias.",
        },
    )
    ChildPriorOut = dataclass_model(ChildPrior, "ChildPriorOut")
    SelectionStepOut = dataclass_model(
        SelectionStep,
        "SelectionStepOut",
        models={ChildScore: ChildScoreOut},
        describe={
            "beta": "RAVE's weight on the AMAF means at this node, sqrt(k / (3 N + k)); "
            "null without RAVE.",
        },
    )
    ExpansionOut = dataclass_model(
        Expansion,
        "ExpansionOut",
        models={ChildPrior: ChildPriorOut},
        describe={
            "priors": "PUCT: the leaf is evaluated (node = parent = the leaf) and all its "
            "children are added, with the evaluator's priors; null under UCT.",
        },
    )
    SimulationOut = dataclass_model(
        Simulation,
        "SimulationOut",
        describe={
            "rewards": "Per player, in [0, 1]: what is backed up.",
            "evaluator": "PUCT's evaluator; null under UCT.",
            "value": "The evaluator's value of the leaf as rewards per player in [0, 1]; "
            "null when it gives none (UCT, 'uniform+rollout': the playout is the value).",
            "playout_rewards": "A playout's rewards mixed with the value (PUCT with mix > "
            "0); else null.",
            "mix": "The playout's share of the rewards under PUCT's mix.",
        },
    )
    UpdateOut = dataclass_model(
        Update,
        "UpdateOut",
        describe={
            "amaf_updates": "Under RAVE, the node's children whose AMAF statistics this "
            "iteration updated (the path's child and the siblings whose move the same "
            "player played later in the iteration); null without RAVE.",
        },
    )
    TraceOut = dataclass_model(
        IterationTrace,
        "TraceOut",
        doc="One iteration, phase by phase (:class:`mctslab.search.trace.IterationTrace`).",
        extra={"path": (list[str], Field(description="Node ids of the path, root first."))},
        models={
            SelectionStep: SelectionStepOut,
            Expansion: ExpansionOut,
            Simulation: SimulationOut,
            Update: UpdateOut,
        },
        describe={
            "backpropagation": "Leaf to root.",
            "c": "The selection rule's exploration constant.",
            "rave": "RAVE's k (0: off).",
            "progressive_bias": "Progressive bias's w (0: off).",
            "rule": "The selection rule (a name of GET /api/rules: 'uct', 'ucb1-tuned', "
            "'rave' (RAVE or progressive bias), 'puct').",
            "score_label": "The selection score's short name, for a column head.",
        },
    )
    RuleOut = dataclass_model(
        RuleInfo,
        "RuleOut",
        doc="A selection rule of the registry (:class:`mctslab.search.rules.RuleInfo`).",
        fields=("name", "title", "label", "formula", "reference", "how", "statistics", "choice"),
        extra={
            "choice": (
                str | None,
                Field(
                    description="The value of the lab's config.selection that picks it; null: "
                    "another option turns it on (RAVE: rave or progressive_bias > 0) or the "
                    "lab does not offer it."
                ),
            )
        },
        describe={
            "name": "The rule's name (IterationTrace's rule).",
            "label": "Its score's short name.",
            "formula": "A child's score.",
            "reference": "The paper that defines it.",
            "how": "How a player spec turns it on.",
            "statistics": "Node statistics it reads beyond N and Q.",
        },
    )


class SessionView(BaseModel):
    id: str
    game: str
    params: dict[str, Any]
    config: EngineConfig
    engine: str = Field(description="The engine of the AI's moves: reference or compiled.")
    engine_ready: bool = Field(
        default=True,
        description="False while the compiled engine's code for this game is not loaded in "
        "the server yet: the first AI move compiles it (or loads it from numba's cache).",
    )
    inference: str | None = Field(
        default=None,
        description="Where the config's network evaluator runs: 'onnx' (ONNX Runtime) or "
        "'torch' (PyTorch, where ONNX Runtime is not installed); null without a network.",
    )
    human_player: int | None
    busy: bool = Field(description="Whether a search is running on the session.")
    state: StateView
    tree: TreeCounts
    kept_tree: KeptTree | None = Field(
        description="The earlier search's tree that GET /tree shows, if it shows one: "
        "null while it shows the reference tree at the current position."
    )
    last_ai: AiReport | None


class PlayIn(BaseModel):
    model_config = REQUEST

    action: JsonInt | Annotated[str, Field(min_length=1)] = Field(
        description="An action id, or a move's name (e.g. 'b2'); a name no legal move has is a 400."
    )


class BudgetIn(BaseModel):
    model_config = REQUEST

    iterations: PositiveInt | None = None
    time: float | None = Field(default=None, gt=0)


class IterationsIn(BaseModel):
    model_config = REQUEST

    k: PositiveInt = Field(description="Iterations to run at the current position.")


class IterationsOut(BaseModel):
    iterations: int = Field(description="Iterations run by this request.")
    nodes: int
    root_visits: int
    seconds: float
    compile_seconds: float = Field(
        default=0.0, description="Seconds compiling the engine's code on first use."
    )
    stopped_by: str


class MoveIn(BaseModel):
    model_config = REQUEST

    game: str = Field(description="A name from GET /api/games, or openspiel:NAME.")
    params: dict[str, Any] = Field(default_factory=dict)
    actions: list[JsonInt] = Field(default_factory=list, description="Moves played from the start.")
    config: EngineConfig = Field(default_factory=lambda: EngineConfig())
    iterations: PositiveInt | None = Field(default=None, description="Overrides config.iterations.")
    time: float | None = Field(default=None, gt=0, description="Overrides config.time.")


class ModelOut(BaseModel):
    """A trained network the lab offers as PUCT's evaluator, with its model card."""

    name: str = Field(description="The network's name (a network shipped in the package).")
    evaluator: str = Field(description="The config's evaluator value that names it: network:NAME.")
    game: str = Field(description="The game it plays (its checkpoint's header).")
    label: str = Field(description="What the page's evaluator selector calls it.")
    description: str | None = Field(description="What it is, from its model card.")
    generations: int | None = Field(description="Generations of self-play it was trained for.")
    wall_seconds: float | None = Field(description="Seconds its training took.")
    command: str | None = Field(description="The command that trained it.")
    evaluation: Any = Field(
        default=None, description="How it scored, as its model card says (null: not said)."
    )
    card: dict[str, Any] = Field(description="The whole model card ({} if it has none).")


class GameOut(BaseModel):
    name: str
    version: int
    parameters: dict[str, Any] = Field(description="Parameters and their defaults.")
    choices: dict[str, list[str]] = Field(
        default_factory=dict,
        description="The parameters that take one of a few words, and the words (Go's ko, "
        "Bohnenspiel's utility): the page offers a menu for each.",
    )
    num_players: int
    num_actions: int
    board: str = Field(description="Kind of drawing: grid, piles or text.")
    models: list[ModelOut] = Field(
        default_factory=list,
        description="The trained networks the lab offers for this game as PUCT's evaluator "
        "(config.evaluator 'network:NAME'), with their model cards: the networks shipped "
        "in the package, where the server has PyTorch (none without it).",
    )


class HealthOut(BaseModel):
    status: str
    sessions: int
    version: str
    max_iterations: int = Field(description="The cap on iterations a request may ask for.")
    max_time: float = Field(description="The cap on seconds of search a request may ask for.")


class TreeNodeOut(BaseModel):
    """A node of the tree view (:func:`mctslab.analysis.treeview.to_json`)."""

    id: str
    action: int | None
    label: str | None
    player: int | None
    to_play: int
    visits: int
    value: float | None = Field(description="Q/N in [0, 1] of the player who moved in.")
    uct: float | None = Field(
        description="The selection score from the parent: UCT (null when unvisited), with "
        "RAVE or progressive bias (1 - beta) Q/N + beta Q~/N~ + c sqrt(ln N_parent / N) + "
        "w H / (N + 1) (mctslab.search.reference.selection.rave_score), or under PUCT the PUCT score."
    )
    prior: float | None = Field(
        description="The evaluator's prior P of the move into the node under PUCT; null "
        "under UCT and at the root."
    )
    amaf_visits: int | None = Field(
        default=None,
        description="RAVE's all-moves-as-first count N~ of the move into the node; null "
        "without RAVE, at the root and for a chance outcome.",
    )
    amaf_value: float | None = Field(
        default=None,
        description="RAVE's all-moves-as-first mean Q~/N~ in [0, 1] for the player who moved "
        "in; null without RAVE or while N~ = 0.",
    )
    bias: float | None = Field(
        default=None,
        description="Progressive bias's w * H of the node (its score gains w * H / (N + 1)); "
        "null without progressive bias.",
    )
    proven: int | None
    terminal: bool
    untried: int
    num_children: int
    hidden: int = Field(description="Children left out (beyond depth, or outside top).")
    hidden_visits: int
    children: list[TreeNodeOut]


class NodeOut(BaseModel):
    id: str
    actions: list[int] = Field(description="The moves from the start of the game to the node.")
    moves: list[str] = Field(
        default_factory=list,
        description="The moves from the tree's root to the node, named as the board names them.",
    )
    text: str = Field(description="The position as text for a person, as StateView.text.")
    render: dict[str, Any]
    to_play: int
    terminal: bool
    legal: list[LegalMove]


class CancelOut(BaseModel):
    cancelled: bool = Field(description="Whether a search was running.")
