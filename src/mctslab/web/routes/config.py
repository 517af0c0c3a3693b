"""The search a request asks for: its :class:`EngineConfig` as a :class:`SearchConfig`, and
PUCT's network evaluator where it names one.

Shared by the two routes that start from a request's configuration: the stateless bot
(:mod:`~mctslab.web.routes.bot`) and a new session (:mod:`~mctslab.web.routes.sessions`).
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import Game
from mctslab.search.config import SearchConfig
from mctslab.search.puct import PuctConfig
from mctslab.web import networks
from mctslab.web.schemas import DEFAULT_ITERATIONS, LAB_OPTIONS, EngineConfig

__all__ = ["network_evaluator", "search_config"]


def search_config(
    config: EngineConfig,
    iterations: int | None,
    time_: float | None,
    max_iterations: int,
    evaluator: Any = None,
) -> SearchConfig:
    """The :class:`SearchConfig` of ``config``, with a request's budget if it gives one.

    Each option the lab offers (:data:`LAB_OPTIONS`) goes to the config that declares it:
    :class:`PuctConfig`'s where the selection is ``"puct"``. The default iterations are
    capped by ``max_iterations`` (the schema says so). ``evaluator`` is PUCT's evaluator
    where ``config.evaluator`` names a network (the loaded one,
    :func:`network_evaluator`); else the name is the evaluator."""
    its, secs = config.iterations, config.time
    if "iterations" not in config.model_fields_set:
        its = None if "time" in config.model_fields_set else min(DEFAULT_ITERATIONS, max_iterations)
    if iterations is not None or time_ is not None:
        its, secs = iterations, time_
    values: dict[type, dict[str, Any]] = {SearchConfig: {}, PuctConfig: {}}
    for name, (owner, opt) in LAB_OPTIONS.items():
        values[owner][opt.name] = getattr(config, name)
    puct: PuctConfig | None = None
    selection = config.selection
    if config.selection == "puct":
        for name, (owner, opt) in LAB_OPTIONS.items():
            value = getattr(config, name)
            if owner is SearchConfig and not opt.under_puct and not opt.default and value:
                # An extension of UCT's rule that is off by default (RAVE, progressive
                # bias, knowledge): SearchConfig refuses it too; this names the lab's field.
                raise InvalidConfigError(
                    f"config.{name}: {name}={value:g} is an option of UCT's "
                    "selection (selection 'uct'); PUCT has its priors: set it to 0"
                )
        if evaluator is not None:
            values[PuctConfig]["evaluator"] = evaluator
        puct = PuctConfig(**values[PuctConfig])
        selection = "uct"  # PUCT's rule is the puct field; selection names UCT's family's
    return SearchConfig(
        **values[SearchConfig], puct=puct, selection=selection, iterations=its, time=secs
    )


async def network_evaluator(config: EngineConfig, game: Game) -> Any:
    """PUCT's evaluator object for ``config`` in ``game``: a network's
    (``network:NAME``, loaded in a worker thread: the first load takes a while), or
    ``None`` where the evaluator is a built-in's name or the selection is UCT. A network
    of another game, or of other parameters, is a 400."""
    if config.selection != "puct" or networks.network_name(config.evaluator) is None:
        return None
    return await anyio.to_thread.run_sync(
        lambda: networks.network_evaluator(config.evaluator, game)
    )
