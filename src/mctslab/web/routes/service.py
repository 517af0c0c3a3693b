"""The service endpoints that need no session: ``GET /api/health``, ``GET /api/games``
(the games the lab shows, with the trained networks it offers for each as PUCT's
evaluator ``network:NAME``: :mod:`mctslab.web.networks`) and ``GET /api/rules`` (the
selection rules of :mod:`mctslab.search.rules`, from which the page builds its choices)."""

from __future__ import annotations

from fastapi import APIRouter

import mctslab
from mctslab.core.registry import game_parameters, make, parameter_choices
from mctslab.search.rules import RULES
from mctslab.web import networks
from mctslab.web.render import board_kind
from mctslab.web.routes.lab import LabDep, in_thread
from mctslab.web.schemas import LAB_SELECTIONS, GameOut, HealthOut, ModelOut, RuleOut

__all__ = ["router"]

router = APIRouter()


@router.get("/api/health", response_model=HealthOut, tags=["service"])
async def health(lab: LabDep) -> HealthOut:
    """Liveness: answers at once, even while searches run. With the budget caps
    (the page sets its inputs' maxima from them)."""
    return HealthOut(
        status="ok",
        sessions=len(lab.sessions),
        version=mctslab.__version__,
        max_iterations=lab.settings.max_iterations,
        max_time=lab.settings.max_time,
    )


@router.get("/api/games", response_model=list[GameOut], tags=["service"])
async def games(lab: LabDep) -> list[GameOut]:
    """The registered games the lab shows (those of perfect information), their
    parameters (with defaults), board kind, and the trained networks it offers for
    each as PUCT's evaluator (``network:NAME``, with their model cards)."""
    if not lab.games_cache:
        for name in lab.games:  # card games are played in the terminal (mctslab play)
            game = make(name)
            params = {
                k: list(v) if isinstance(v, tuple) else v for k, v in game_parameters(name).items()
            }
            info = game.info
            lab.games_cache.append(
                GameOut(
                    name=name,
                    version=info.version,
                    parameters=params,
                    choices={k: list(v) for k, v in parameter_choices(name).items()},
                    num_players=info.num_players,
                    num_actions=info.num_actions,
                    board=board_kind(game),
                )
            )
    # The networks are looked up on each call (the first imports PyTorch: in a worker).
    models: dict[str, list[ModelOut]] = {}
    for model in await in_thread(lambda: networks.models_for(None)):
        models.setdefault(model.game, []).append(model)
    return [g.model_copy(update={"models": models.get(g.name, [])}) for g in lab.games_cache]


@router.get("/api/rules", response_model=list[RuleOut], tags=["service"])
async def rules() -> list[RuleOut]:
    """The selection rules of the registry (:data:`mctslab.search.rules.RULES`), with their
    formulas and papers, and the value of ``config.selection`` that picks each one the lab
    offers."""
    shown = [name for name in RuleOut.model_fields if name != "choice"]  # RuleInfo's
    return [
        RuleOut(
            **{name: getattr(info, name) for name in shown},
            choice=info.name if info.name in LAB_SELECTIONS else None,
        )
        for info in RULES.values()
    ]
