"""Information Set MCTS and PIMC (mctslab.search.ismcts): known decisions, fairness, oracles."""

from __future__ import annotations

import pytest

import mctslab
from mctslab.core.errors import InvalidConfigError, InvalidSpecError
from mctslab.players.player import ISMCTSPlayer, make_player, play_game
from mctslab.search.config import SearchConfig
from mctslab.search.ismcts import ISMCTS, PIMC, ISMCTSConfig, PIMCConfig, visit_policy
from mctslab.search.mcts import search

PASS, BET = 0, 1
J, Q, K = 0, 1, 2
ROLL, STOP = 0, 1

ALGORITHMS = [
    ISMCTSConfig(iterations=2000, seed=1),
    ISMCTSConfig(iterations=2000, seed=1, variant="mo"),
    ISMCTSConfig(iterations=2000, seed=1, smooth=True),
    PIMCConfig(iterations=2000, seed=1),
]
IDS = ["so", "mo", "smooth", "pimc"]


def run(config: ISMCTSConfig | PIMCConfig, state: mctslab.State) -> mctslab.SearchResult:
    searcher = ISMCTS(config) if isinstance(config, ISMCTSConfig) else PIMC(config)
    return searcher.search(state)


@pytest.mark.parametrize("config", ALGORITHMS, ids=IDS)
def test_kuhn_dominant_decisions(config: ISMCTSConfig | PIMCConfig) -> None:
    """Facing a bet, the king always calls and the jack always folds (any equilibrium)."""
    game = mctslab.make("kuhn_poker")
    king_facing_bet = game.state_from_actions([J, K, BET])  # player 1 holds the king
    jack_facing_bet = game.state_from_actions([K, J, BET])
    assert run(config, king_facing_bet).action == BET
    assert run(config, jack_facing_bet).action == PASS


@pytest.mark.parametrize("config", ALGORITHMS, ids=IDS)
def test_the_search_reads_only_what_the_player_knows(config: ISMCTSConfig | PIMCConfig) -> None:
    """Two deals that player 0 cannot tell apart give the same search, draw for draw."""
    game = mctslab.make("kuhn_poker")
    a = run(config, game.state_from_actions([Q, J]))
    b = run(config, game.state_from_actions([Q, K]))
    assert (a.children, a.action, a.value) == (b.children, b.action, b.value)


def test_knockout_whist_search_reads_only_what_the_player_knows() -> None:
    game = mctslab.make("knockout_whist", players=3)
    rng = mctslab.core.rng.Rng(4)
    state = game.new_initial_state()
    while state.current_player() == mctslab.CHANCE:
        state.apply_action(state.legal_actions()[rng.randint(len(state.legal_actions()))])
    player = state.current_player()
    other = state.resample_from_infostate(player, mctslab.core.rng.Rng(9))
    assert other.history() != state.history()  # the others' hands differ
    for config in ALGORITHMS[:2]:
        assert run(config, state).children == run(config, other).children


@pytest.mark.parametrize("config", ALGORITHMS, ids=IDS)
def test_same_seed_same_search(config: ISMCTSConfig | PIMCConfig) -> None:
    state = mctslab.make("kuhn_poker").state_from_actions([Q, K])
    assert run(config, state).children == run(config, state).children


def test_perfect_information_ismcts_finds_the_win_and_the_block() -> None:
    game = mctslab.make("tic_tac_toe")
    win = game.state_from_actions([0, 3, 1, 4])  # x to move: 2 wins the top row
    assert ISMCTS(ISMCTSConfig(iterations=2000, seed=0)).search(win).action == 2
    block = game.state_from_actions([0, 4, 8, 2])  # x must block o's diagonal at 6
    assert ISMCTS(ISMCTSConfig(iterations=3000, seed=0)).search(block).action == 6


def test_ismcts_on_a_perfect_information_game_agrees_with_uct() -> None:
    """With nothing hidden, SO-ISMCTS is UCT: same preferred move, similar values."""
    game = mctslab.make("nim", piles=(2, 3, 4))  # one winning move: take 3 from the last pile
    state = game.new_initial_state()
    ism = ISMCTS(ISMCTSConfig(iterations=4000, seed=0, c=1.0)).search(state)
    uct = search(state, SearchConfig(iterations=4000, seed=0, c=1.0))
    assert ism.action == uct.action == 8
    assert ism.value == pytest.approx(uct.value, abs=0.15)


def test_availability_counts_in_a_card_game() -> None:
    """In SO-ISMCTS an opponent's card is legal in some worlds only: its availability
    counts the visits in which it was legal, fewer than the node's visits."""
    game = mctslab.make("knockout_whist", players=2)
    rng = mctslab.core.rng.Rng(1)
    state = game.new_initial_state()
    while state.current_player() == mctslab.CHANCE:
        state.apply_action(state.legal_actions()[rng.randint(len(state.legal_actions()))])
    searcher = ISMCTS(ISMCTSConfig(iterations=3000, seed=2))
    searcher.search(state)
    assert searcher.last is not None
    root_player = searcher.last.player
    opponent_nodes = [n for n in searcher.last.table.values() if n.player != root_player]
    busiest = max(opponent_nodes, key=lambda n: n.total)
    visits_in = busiest.total
    assert len(busiest.visits) > 7  # more cards than any one world's hand: several worlds
    for a, n in busiest.visits.items():
        assert n <= busiest.avail[a] <= visits_in + len(busiest.visits)
    assert min(busiest.avail.values()) < max(busiest.avail.values())


def test_mo_keys_opponent_nodes_by_the_opponents_information() -> None:
    game = mctslab.make("kuhn_poker")
    state = game.state_from_actions([Q, K])
    so, mo = (
        ISMCTS(ISMCTSConfig(iterations=500)),
        ISMCTS(ISMCTSConfig(iterations=500, variant="mo")),
    )
    so.search(state)
    mo.search(state)
    assert so.last is not None and mo.last is not None
    # SO: player 1 acts in nodes of player 0's view (one per betting line); MO: one per
    # card player 1 may hold (J or K) and betting line.
    so_p1 = [k for k, n in so.last.table.items() if n.player == 1]
    mo_p1 = [k for k, n in mo.last.table.items() if n.player == 1]
    assert len(mo_p1) == 2 * len(so_p1)


def test_visit_policy_sums_to_one() -> None:
    state = mctslab.make("kuhn_poker").state_from_actions([Q, K])
    result = ISMCTS(ISMCTSConfig(iterations=300, seed=3, smooth=True)).search(state)
    policy = visit_policy(result)
    assert sum(policy.values()) == pytest.approx(1.0)
    assert set(policy) == {PASS, BET}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"c": -1}, "c must"),
        ({"variant": "xo"}, "variant"),
        ({"final": "best"}, "final"),
        ({"eta": 2}, "eta"),
        ({"iterations": 0}, "iterations"),
        ({"iterations": None}, "budget"),
        ({"time": -1.0}, "time"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_bad_ismcts_configs_are_refused(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(InvalidConfigError, match=match):
        ISMCTSConfig(**kwargs)  # type: ignore[arg-type]


def test_bad_pimc_configs_are_refused() -> None:
    with pytest.raises(InvalidConfigError, match="determinizations"):
        PIMCConfig(determinizations=0)
    with pytest.raises(
        InvalidConfigError, match="chance must be one of sampled, fixed, got 'dice'"
    ):
        PIMCConfig(chance="dice")  # type: ignore[arg-type]


def test_searching_a_chance_node_or_the_end_is_refused() -> None:
    game = mctslab.make("kuhn_poker")
    with pytest.raises(InvalidConfigError, match="chance node"):
        ISMCTS().search(game.new_initial_state())
    over = game.state_from_actions([Q, K, PASS, PASS])
    with pytest.raises(InvalidConfigError, match="game is over"):
        PIMC().search(over)


def test_player_specs() -> None:
    info = mctslab.make("kuhn_poker").info
    player = make_player("ismcts:iterations=50,smooth=1,variant=mo,final=sample", info, seed=3)
    assert isinstance(player, ISMCTSPlayer) and player.name == "ismcts"
    assert make_player("pimc:determinizations=5,n=100", info).name == "pimc"
    with pytest.raises(InvalidSpecError, match="unknown ismcts option 'depth'"):
        make_player("ismcts:depth=3", info)
    with pytest.raises(InvalidSpecError, match="determinizations"):
        make_player("pimc:determinizations=0", info)
    fixed = make_player("pimc:chance=fixed,determinizations=10,iterations=1000", info)
    assert isinstance(fixed, ISMCTSPlayer) and isinstance(fixed.config, PIMCConfig)
    assert (fixed.config.chance, fixed.config.determinizations) == ("fixed", 10)
    assert make_player("pimc", info).config == PIMCConfig(chance="sampled")  # type: ignore[attr-defined]
    with pytest.raises(InvalidSpecError, match="chance must be one of sampled, fixed, got 'yes'"):
        make_player("pimc:chance=yes", info)
    with pytest.raises(InvalidSpecError, match="pig only"):
        make_player("pig-hold", info)


def test_ismcts_beats_random_at_kuhn_poker() -> None:
    game = mctslab.make("kuhn_poker")
    total = 0.0
    for i in range(200):
        seat = i % 2
        players = [make_player("random", game.info, i), make_player("random", game.info, i)]
        players[seat] = make_player("ismcts:iterations=200", game.info, i)
        total += play_game(game.new_initial_state(), players, chance_seed=i).returns()[seat]
    assert total / 200 > 0.2  # random loses to the king-calls, jack-folds lines


# -- dice determinization: PIMC with chance="fixed" ----------------------------------


def pig_position(target: int, rolls: list[int]) -> mctslab.State:
    """Pig to ``target``, player 0 to move after rolling the faces ``rolls`` (2 to 6)."""
    actions = []
    for face in rolls:
        actions += [ROLL, face - 1]
    return mctslab.make("pig", target=target).state_from_actions(actions)


def test_pimc_with_fixed_chance_plays_legal_moves_and_repeats_itself() -> None:
    game = mctslab.make("pig", target=20)
    spec = "pimc:chance=fixed,determinizations=4,iterations=200"
    games = []
    for _ in range(2):
        players = [make_player(spec, game.info, seed=3), make_player("random", game.info, 4)]
        games.append(play_game(game.new_initial_state(), players, chance_seed=5).history())
    assert games[0] == games[1] and len(games[0]) > 4  # play_game refuses illegal moves
    state = pig_position(20, [4, 5])
    a, b = (PIMC(PIMCConfig(chance="fixed", iterations=300, seed=9)).search(state) for _ in "ab")
    assert a.children == b.children and a.action == b.action
    sampled = PIMC(PIMCConfig(iterations=300, seed=9)).search(state)
    assert sampled.children != a.children  # another search: the worlds fix the dice


def test_pimc_with_fixed_chance_makes_sensible_pig_decisions() -> None:
    config = PIMCConfig(chance="fixed", iterations=1000, seed=0)
    start = mctslab.make("pig", target=30).new_initial_state()
    assert PIMC(config).search(start).action == ROLL  # stopping at 0 only passes the turn
    # 13 banked (6 + 4 + 3), the opponent's 1, and 17 in hand: stopping wins now, the
    # only legal move.
    won = mctslab.make("pig", target=30).state_from_actions(
        [ROLL, 5, ROLL, 3, ROLL, 2, STOP, ROLL, 0, ROLL, 5, ROLL, 5, ROLL, 4]
    )
    assert won.legal_actions() == [STOP] and PIMC(config).search(won).action == STOP


def test_pimc_with_fixed_chance_rolls_on_where_chance_nodes_stop() -> None:
    """Its known flaw: at 22 points of a turn (Pig to 30, nothing banked) UCT with chance
    nodes stops, while each determinized world knows whether the next die is a 1 and the
    merged worlds roll, valuing the roll far above what it is worth (measured: 0.94
    against the chance nodes' 0.68 at 2,000 iterations)."""
    state = pig_position(30, [6, 6, 6, 4])
    for seed in range(3):
        chance_nodes = search(state, SearchConfig(iterations=2000, seed=seed))
        fixed = PIMC(PIMCConfig(chance="fixed", iterations=2000, seed=seed)).search(state)
        assert (chance_nodes.action, fixed.action) == (STOP, ROLL)
        assert fixed.children[ROLL].value > chance_nodes.children[ROLL].value + 0.1
