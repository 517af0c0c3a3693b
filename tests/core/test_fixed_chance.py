"""Dice determinization (mctslab.core.fixed_chance): a world is a fixed stream of numbers,
the k-th chance node below the root takes the outcome at the k-th number."""

from __future__ import annotations

from collections import Counter

import pytest

import mctslab
from mctslab.core.fixed_chance import ChanceStream, FixedChanceState, fix_chance
from mctslab.core.game import CHANCE, outcome_at
from mctslab.core.rng import Rng
from mctslab.games.pig import ROLL, STOP
from mctslab.search.config import SearchConfig
from mctslab.search.mcts import MCTS


def chance_outcomes_played(state: FixedChanceState, start: int) -> list[int]:
    """The outcomes the stream chose: the wrapped history's chance actions after ``start``."""
    replay = state.game.new_initial_state()
    picked = []
    for i, action in enumerate(state.history()):
        if i >= start and replay.current_player() == CHANCE:
            picked.append(action)
        replay.apply_action(action)
    return picked


@pytest.mark.parametrize("name", ["pig", "kuhn_poker", "knockout_whist"])
def test_the_wrapper_never_shows_a_chance_node(name: str) -> None:
    game = mctslab.make(name)
    rng = Rng(5)
    for seed in range(20):
        state = fix_chance(game.new_initial_state(), seed)  # Kuhn and Whist start with deals
        while not state.is_terminal():
            assert state.current_player() != CHANCE
            legal = state.legal_actions()
            state.apply_action(legal[rng.randint(len(legal))])
        assert state.current_player() != CHANCE
        assert len(state.returns()) == game.info.num_players


def test_the_kth_chance_node_takes_the_kth_number_on_every_path() -> None:
    """Roll at once, or stop and let the opponent roll: the first die shows the same face."""
    game = mctslab.make("pig")
    for seed in range(30):
        stream = ChanceStream(seed)
        faces = [stream.outcome(k, [(f, 1 / 6) for f in range(6)]) for k in range(4)]
        me = FixedChanceState(game.new_initial_state(), stream)
        me.apply_action(ROLL)
        other = FixedChanceState(game.new_initial_state(), stream)
        other.apply_action(STOP)
        if not other.is_terminal() and other.current_player() == 1:
            other.apply_action(ROLL)
        assert chance_outcomes_played(me, 0) == faces[:1] == chance_outcomes_played(other, 0)
        # Two more rolls where the game goes on: the stream's next numbers, in order.
        for _ in range(3):
            if me.is_terminal() or ROLL not in me.legal_actions():
                break
            me.apply_action(ROLL)
        played = chance_outcomes_played(me, 0)
        assert played == faces[: len(played)] and me.chance_count == len(played)


def test_the_same_world_replays_the_same_game() -> None:
    game = mctslab.make("kuhn_poker")
    a = fix_chance(game.new_initial_state(), 11)
    b = fix_chance(game.new_initial_state(), 11)
    assert a.history() == b.history()  # the same deal
    clone = a.clone()
    assert clone.stream is a.stream and clone.chance_count == a.chance_count == 2
    clone.apply_action(1)
    assert a.history() != clone.history() and len(a.history()) == 2  # independent states
    assert a.child(1).history() == clone.history()
    deals = {tuple(fix_chance(game.new_initial_state(), s).history()) for s in range(50)}
    assert len(deals) == 6  # other worlds, other deals: all six come up


def test_outcome_frequencies_over_worlds_match_the_probabilities() -> None:
    """Pig's die over 6,000 worlds: each face within 0.02 of 1/6 (four standard errors)."""
    game = mctslab.make("pig")
    faces: Counter[int] = Counter()
    worlds = 6000
    for seed in range(worlds):
        state = fix_chance(game.new_initial_state(), seed)
        state.apply_action(ROLL)
        faces[chance_outcomes_played(state, 0)[0]] += 1
    assert set(faces) == set(range(6))
    assert all(abs(n / worlds - 1 / 6) < 0.02 for n in faces.values())
    # An uneven distribution: the inverse of its cumulative distribution.
    uneven = [(3, 0.7), (5, 0.2), (8, 0.1)]
    counts = Counter(ChanceStream(s).outcome(0, uneven) for s in range(worlds))
    assert all(abs(counts[o] / worlds - p) < 0.02 for o, p in uneven)
    assert [outcome_at(uneven, x) for x in (0.0, 0.69, 0.7, 0.95, 0.999)] == [3, 3, 5, 8, 8]


def test_a_world_is_its_seed() -> None:
    stream, rng = ChanceStream(4), Rng(4)
    assert stream.number(3) == [rng.random() for _ in range(4)][3]  # the seed's 4th draw
    assert stream.number(0) == ChanceStream(4).number(0)  # whatever was asked for first
    assert ChanceStream(4).number(0) != ChanceStream(5).number(0)
    assert all(0.0 <= ChanceStream(9).number(k) < 1.0 for k in range(100))


def test_the_wrapper_is_a_state_the_engine_searches() -> None:
    game = mctslab.make("pig", target=20)
    state = game.state_from_actions([ROLL, 5, ROLL, 4])  # turn total 11
    world = fix_chance(state, 2)
    assert world.state is not state and world.history() == state.history()  # a copy
    assert str(world) == str(state) and world.game is game
    assert world.heuristic() == state.heuristic()  # passed on
    assert world.key() == (state.key(), 0)
    with pytest.raises(AttributeError):
        world.observation_tensor  # noqa: B018  (not passed on: searches see a plain state)
    result = MCTS(SearchConfig(iterations=200, seed=0)).search(world)
    assert result.action in (ROLL, STOP) and result.iterations == 200
    assert world.chance_count == 0  # the search worked on copies
    cutoff = SearchConfig(iterations=50, seed=0, simulation="cutoff", cutoff_depth=2)
    assert MCTS(cutoff).search(world).iterations == 50  # the heuristic, through the wrapper


def test_each_world_knows_whether_the_next_die_is_a_one() -> None:
    """The flaw that dice determinization buys its speed with: at 22 points of a turn (Pig
    to 30, nobody has banked anything), the search of a world stops wherever the world's
    next die is a 1, and rolls wherever neither of the next two dice is (after one roll
    it can stop; when only the second die is a 1, stopping at once may pass the bad die
    to the opponent: that world's search knows that too)."""
    game = mctslab.make("pig", target=30)
    state = game.state_from_actions([ROLL, 5, ROLL, 5, ROLL, 5, ROLL, 3])  # 6 + 6 + 6 + 4
    assert state.turn_total == 22 and state.current_player() == 0
    die = state.child(ROLL).chance_outcomes()
    stops = rolls = 0
    for seed in range(40):
        world = fix_chance(state, seed)
        first, second = (world.stream.outcome(k, die) for k in (0, 1))
        action = MCTS(SearchConfig(iterations=400, seed=seed)).search(world).action
        if first == 0:  # a 1
            assert action == STOP, seed
            stops += 1
        elif second != 0:
            assert action == ROLL, seed
            rolls += 1
    assert stops > 0 and rolls > 20
