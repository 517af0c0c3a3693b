"""The policy a player plays, as a table: what exploitability is measured on.

A search player is turned into a tabular policy (:data:`mctslab.analysis.exploitability.Policy`)
by asking it, at every information state of the game, what it would do there:
one search from one state of that information state (the player reads only what
its seat knows, so any state of the set gives the same search). Two readings:

- ``"visits"``: the root's visit counts normalised, the *average strategy* of the
  search (what Smooth UCT plays, and OpenSpiel's ``NORMALIZED_VISIT_COUNT``);
- ``"played"``: the move the player actually plays, with probability 1 (for a
  player that draws its move at random, one draw).

Every information state gets a fresh player seeded from ``seed`` and the
information state, so the table does not depend on the order of the walk.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Literal

from mctslab.analysis.exploitability import GameTree, TabularPolicy, policy_from_function
from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import Game, State
from mctslab.core.infoset import information_key
from mctslab.players.player import ISMCTSPlayer, MCTSPlayer, RandomPlayer, make_player
from mctslab.search.ismcts import ISMCTSConfig, self_play, visit_policy

__all__ = ["PolicyReading", "player_policy", "self_play_policy"]

PolicyReading = Literal["visits", "played"]
_READINGS = ("visits", "played")


def player_policy(
    game: Game | GameTree,
    spec: str,
    *,
    seed: int = 0,
    reading: PolicyReading = "visits",
) -> TabularPolicy:
    """The tabular policy of the player ``spec`` (e.g. ``"ismcts:iterations=1000"``).

    ``reading`` is ``"visits"`` (root visit counts normalised; for a player without
    search statistics, ``random`` is uniform and the others play their move) or
    ``"played"`` (the chosen move with probability 1).
    """
    if reading not in _READINGS:
        raise InvalidConfigError(f"reading must be one of {', '.join(_READINGS)}, got {reading!r}")
    tree = game if isinstance(game, GameTree) else GameTree(game)
    info = tree.game.info

    def decide(state: State) -> Mapping[int, float]:
        player = state.current_player()
        key = str(information_key(state, player))
        player_seed = (seed * 1_000_003 + zlib.crc32(key.encode())) & 0x7FFF_FFFF
        agent = make_player(spec, info, player_seed)
        legal = state.legal_actions()
        if reading == "visits" and isinstance(agent, RandomPlayer):
            return {a: 1.0 / len(legal) for a in legal}
        action = agent.choose(state)
        result = agent.last_result if isinstance(agent, MCTSPlayer | ISMCTSPlayer) else None
        if reading == "visits" and result is not None:
            return visit_policy(result)
        return {action: 1.0}

    return policy_from_function(tree, decide)


def self_play_policy(game: Game | GameTree, config: ISMCTSConfig) -> TabularPolicy:
    """The average strategy of one MO-ISMCTS self-play search from the start of the game
    (:func:`mctslab.search.ismcts.self_play`; Smooth UCT with ``smooth=True``): at each
    information state, the node's visit counts normalised; uniform where the search
    never chose (an information state it did not reach, or reached once)."""
    tree = game if isinstance(game, GameTree) else GameTree(game)
    table = self_play(tree.game.new_initial_state(), config, tree.game.info)
    policy: TabularPolicy = {}
    for key, state, actions in zip(
        tree.infoset_keys, tree.infoset_states, tree.infoset_actions, strict=True
    ):
        node = table.get((state.current_player(), key))
        total = 0 if node is None else sum(node.visits.get(a, 0) for a in actions)
        if node is None or total == 0:
            policy[key] = {a: 1.0 / len(actions) for a in actions}
        else:
            policy[key] = {a: node.visits.get(a, 0) / total for a in actions}
    return policy
