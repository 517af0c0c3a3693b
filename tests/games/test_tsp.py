"""The travelling salesman problem: the kernel game, TSPLIB files, Held-Karp, baselines."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from mctslab.core.errors import InvalidConfigError
from mctslab.core.game import TERMINAL
from mctslab.core.testing import check_game, random_game
from mctslab.games.tsp import (
    TSP,
    Budget,
    TsplibError,
    genetic_algorithm,
    held_karp,
    known_optimum,
    nearest_neighbour,
    random_restarts,
    read_tour,
    read_tsp,
    simulated_annealing,
    tour_length,
    two_opt,
    write_tour,
)
from mctslab.games.tsp.tsplib import (
    InvalidTourError,
    distance_matrix,
    format_tsp,
    instance_from_spec,
    known_instances,
    load_known,
    parse_tour,
    parse_tsp,
    random_instance,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "tsplib"
SHIPPED = {"eil51": 51, "berlin52": 52, "st70": 70, "kroA100": 100}


def euclid(a: tuple[float, float], b: tuple[float, float]) -> int:
    """TSPLIB's EUC_2D, written out: nint(sqrt(dx^2 + dy^2))."""
    return int(math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) + 0.5)


def closed_length(coords: np.ndarray, tour: list[int]) -> int:
    """A closed tour's length from the coordinates, independently of the package."""
    pts = [(float(x), float(y)) for x, y in coords]
    return sum(euclid(pts[a], pts[b]) for a, b in zip(tour, tour[1:] + tour[:1], strict=True))


def brute_force(dist: np.ndarray) -> int:
    """The shortest closed tour over all (n - 1)! orders from city 0."""
    n = dist.shape[0]
    return min(
        int(sum(dist[a, b] for a, b in zip((0, *p), (*p, 0), strict=True)))
        for p in itertools.permutations(range(1, n))
    )


def is_tour(tour: list[int], n: int) -> bool:
    return sorted(tour) == list(range(n)) and tour[0] == 0


# ------------------------------------------------------------------------------ the game


@pytest.mark.parametrize("spec", ["random:2:0", "random:3:1", "random:6:2", "random:12:3"])
def test_tsp_conforms_on_random_instances(spec: str) -> None:
    assert check_game(TSP(instance=spec), n_games=25, seed=4) > 25


def test_tsp_conforms_on_a_shipped_instance() -> None:
    assert check_game(TSP(instance="eil51"), n_games=3, seed=1) == 3 * 51


def test_returns_are_minus_the_closed_tour_length() -> None:
    for seed in range(10):
        game = TSP(instance=f"random:{5 + seed}:{seed}")
        assert game.coordinates is not None
        state = random_game(game, seed)
        tour = game.tour(state)
        assert is_tour(tour, game.n)
        assert state.returns() == [-float(closed_length(game.coordinates, tour))]
        assert game.length(state) == closed_length(game.coordinates, tour)


def test_a_game_is_n_minus_1_moves_and_the_last_closes_the_tour() -> None:
    game = TSP(coords=[(0, 0), (3, 0), (3, 4), (0, 4)])  # a 3 x 4 rectangle
    state = game.new_initial_state()
    assert state.current_player() == 0 and state.legal_actions() == [1, 2, 3]
    state.apply_action(2)  # the diagonal, 5
    assert state.legal_actions() == [1, 3] and game.length(state) == 5
    state.apply_action(1)
    assert not state.is_terminal() and state.legal_actions() == [3]
    state.apply_action(3)  # 2 -> 1 -> 3 (the other diagonal), then back to 0
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert game.tour(state) == [0, 2, 1, 3]
    assert state.returns() == [-(5.0 + 4 + 5 + 4)]
    assert state.legal_actions() == []


def test_action_names_are_tsplib_node_numbers() -> None:
    game = TSP(instance="random:5:0")
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["2", "3", "4", "5"]
    assert state.string_to_action("4") == 3
    for bad in ("0", "6", "x", "-1", "２"):
        with pytest.raises(ValueError):
            state.string_to_action(bad)


def test_move_code_is_the_edge_and_there_are_n_squared() -> None:
    game = TSP(instance="random:7:1")
    assert game.num_move_codes() == 49
    code = game.kernels.move_code
    assert code is not None
    state = game.state_from_actions([4])
    assert [code(state.array, game.params, a) for a in state.legal_actions()] == [
        4 * 7 + a for a in state.legal_actions()
    ]


def test_utility_bounds_bound_every_tour_and_the_heuristic_stays_in_range() -> None:
    for seed in range(5):
        game = TSP(instance=f"random:7:{seed}")
        d = game.distances
        lengths = [
            int(sum(d[a, b] for a, b in zip((0, *p), (*p, 0), strict=True)))
            for p in itertools.permutations(range(1, 7))
        ]
        assert game.info.min_utility <= -max(lengths) <= -min(lengths) <= game.info.max_utility
        assert game.info.max_utility <= 0.0 and not game.info.zero_sum
        state = random_game(game, seed)
        assert -1.0 <= state.heuristic()[0] <= 1.0


def test_heuristic_is_the_nearest_neighbour_completion_mapped_like_a_score() -> None:
    game = TSP(instance="random:20:5")
    nn = nearest_neighbour(game.distances).length
    want = 2.0 * (game.upper_bound - nn) / (game.upper_bound - game.lower_bound) - 1.0
    assert game.new_initial_state().heuristic() == pytest.approx([want])
    # Terminal: KernelState maps the return through the utility range; same formula.
    final = random_game(game, 1)
    length = game.length(final)
    mapped = 2.0 * (game.upper_bound - length) / (game.upper_bound - game.lower_bound) - 1.0
    assert final.heuristic() == pytest.approx([mapped])


def test_render_shows_the_tour_and_the_map() -> None:
    game = TSP(instance="eil51")
    state = game.state_from_actions([31, 20])
    text = str(state)
    assert text.splitlines()[0] == "tsp eil51: at city 21, 3/51 visited, length " + str(
        game.length(state)
    )
    assert text.splitlines()[1] == "tour: 1 32 21"
    assert "@" in text and "S" in text
    assert "tour:" in str(TSP(distances=[[0, 1], [1, 0]]).new_initial_state())


def test_the_game_copies_the_distances_it_is_given() -> None:
    mine = np.array([[0, 2, 3], [2, 0, 4], [3, 4, 0]], dtype=np.int64)
    game = TSP(distances=mine)
    mine[0, 1] = mine[1, 0] = 7
    assert game.distances[0, 1] == 2 and mine.flags.writeable
    assert game.state_from_actions([1, 2]).returns() == [-9.0]


def test_a_bare_name_loads_the_shipped_file_and_the_default_is_eil51() -> None:
    game = TSP(instance="eil51")
    assert game.n == 51 and game.instance == "eil51"
    assert np.array_equal(game.distances, TSP().distances)
    assert np.array_equal(game.distances, read_tsp(DATA / "eil51.tsp").distances())
    assert TSP(instance=str(DATA / "st70.tsp")).n == 70  # a path


@pytest.mark.parametrize(
    "kwargs",
    [
        {"instance": "random:1:0"},  # one city: no move at all
        {"instance": "random:x:0"},
        {"instance": "random:5:1:2"},
        {"instance": "no_such_instance"},
        {"instance": "random:5:0", "coords": [(0, 0), (1, 1)]},
        {"distances": [[0, 1], [2, 0]]},  # asymmetric
        {"distances": [[0, -1], [-1, 0]]},
        {"distances": [[1, 1], [1, 0]]},
        {"distances": [[0, 1.5], [1.5, 0]]},
        {"coords": [(0, 0, 0)]},
    ],
)
def test_bad_game_parameters_raise_invalid_config_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidConfigError):
        TSP(**kwargs)  # type: ignore[arg-type]


# -------------------------------------------------------------------------- Held-Karp


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_held_karp_equals_brute_force(n: int) -> None:
    rng = np.random.default_rng(n)
    for k in range(20):
        if k % 2 == 0:  # Euclidean
            dist = TSP(instance=f"random:{n}:{100 * n + k}").distances
        else:  # any integer matrix, not even symmetric: the recursion does not care
            dist = rng.integers(0, 100, size=(n, n))
            np.fill_diagonal(dist, 0)
        length, tour = held_karp(dist)
        assert length == brute_force(np.asarray(dist))
        assert is_tour(tour, n)
        assert (
            int(sum(dist[a, b] for a, b in zip(tour, tour[1:] + tour[:1], strict=True))) == length
        )


def test_held_karp_tour_has_its_stated_length_up_to_16_cities() -> None:
    game = TSP(instance="random:16:3")
    length, tour = held_karp(game.distances)
    assert is_tour(tour, 16)
    assert game.coordinates is not None
    assert length == closed_length(game.coordinates, tour)
    assert length <= two_opt(game.distances).length


def test_held_karp_small_cases_and_the_limit() -> None:
    assert held_karp([[0]]) == (0, [0])
    assert held_karp([[0, 3], [5, 0]]) == (8, [0, 1])
    with pytest.raises(InvalidConfigError, match="at most 16"):
        held_karp(TSP(instance="random:17:0").distances)


# ------------------------------------------------------------------------------ TSPLIB


@pytest.mark.parametrize(
    "name,pairs",
    [
        # (node, node, nint(sqrt(dx^2 + dy^2))) from the files' coordinates, by hand:
        ("eil51", [(1, 2, 12), (1, 3, 19), (10, 20, 37)]),  # sqrt(153), sqrt(369), sqrt(1405)
        ("berlin52", [(1, 2, 666), (10, 20, 770)]),  # 666.108, 770.276
        ("st70", [(1, 2, 59), (10, 20, 69)]),  # 59.203, 68.964 (rounds up)
        ("kroA100", [(1, 2, 1693), (10, 20, 1871)]),  # 1692.830, 1871.215
    ],
)
def test_tsplib_reader_dimensions_and_known_distances(
    name: str, pairs: list[tuple[int, int, int]]
) -> None:
    instance = read_tsp(DATA / f"{name}.tsp")
    assert instance.name == name and instance.dimension == SHIPPED[name]
    assert instance.edge_weight_type == "EUC_2D"
    d = instance.distances()
    for a, b, want in pairs:
        assert d[a - 1, b - 1] == d[b - 1, a - 1] == want
    assert np.array_equal(load_known(name).distances(), d)


def test_shipped_instances_and_their_optima() -> None:
    assert known_instances() == sorted(SHIPPED)
    assert {name: known_optimum(name) for name in SHIPPED} == {
        "eil51": 426,
        "berlin52": 7542,
        "st70": 675,
        "kroA100": 21282,
    }
    assert known_optimum("KROA100") == 21282 and known_optimum("nope") is None


def test_ceil_2d_and_att_distances() -> None:
    pts = [(0, 0), (3, 4), (1, 1), (10, 0), (10, 30)]
    euc, ceil, att = (distance_matrix(pts, kind) for kind in ("EUC_2D", "CEIL_2D", "ATT"))
    assert (euc[0, 1], euc[0, 2]) == (5, 1)  # 5, nint(1.414)
    assert (ceil[0, 1], ceil[0, 2]) == (5, 2)  # 5, ceil(1.414)
    assert (att[0, 3], att[0, 4]) == (4, 10)  # sqrt(100 / 10) = 3.16 -> 4; sqrt(1000 / 10) = 10
    text = "NAME : a\nTYPE : TSP\nDIMENSION : 2\nEDGE_WEIGHT_TYPE : ATT\nNODE_COORD_SECTION\n1 0 0\n2 10 0\nEOF\n"
    assert parse_tsp(text).distances()[0, 1] == 4


def test_random_instance_is_numpy_default_rng_of_the_seed() -> None:
    instance = random_instance(30, 7)
    want = np.random.default_rng(7).integers(0, 1000, size=(30, 2))
    assert np.array_equal(instance.coords, want)
    assert instance.name == "random:30:7" and instance.edge_weight_type == "EUC_2D"
    assert np.array_equal(instance_from_spec("random:30:7").coords, want)
    assert np.array_equal(instance_from_spec("random:30").coords, random_instance(30, 0).coords)


def test_tsp_file_round_trips(tmp_path: Path) -> None:
    instance = random_instance(25, 3)
    path = tmp_path / "r.tsp"
    path.write_text(format_tsp(instance))
    again = read_tsp(path)
    assert again.name == instance.name and np.array_equal(again.coords, instance.coords)
    berlin = load_known("berlin52")
    assert np.array_equal(parse_tsp(format_tsp(berlin)).coords, berlin.coords)


def test_tour_file_round_trips(tmp_path: Path) -> None:
    game = TSP(instance="eil51")
    result = two_opt(game.distances)
    path = tmp_path / "eil51.tour"
    write_tour(path, result.tour, "eil51.2opt.tour", comment=f"length {result.length}")
    text = path.read_text().splitlines()
    assert text[-2:] == ["-1", "EOF"] and "TOUR_SECTION" in text and "TYPE : TOUR" in text
    back = read_tour(path, dimension=51)
    assert list(back.tour) == result.tour
    assert back.name == "eil51.2opt.tour" and back.comment == f"length {result.length}"
    assert tour_length(game.distances, back.tour) == result.length


def test_tour_files_several_nodes_a_line_and_bad_tours() -> None:
    ok = "NAME : t\nTYPE : TOUR\nDIMENSION : 4\nTOUR_SECTION\n1 3\n2 4 -1\nEOF\n"
    assert parse_tour(ok).tour == (0, 2, 1, 3)
    bad = {
        "not a permutation": ok.replace("2 4 -1", "2 2 -1"),
        "does not end with -1": ok.replace(" -1", ""),
        "outside": ok.replace("2 4", "2 9"),
        "TYPE must be TOUR": ok.replace("TOUR\n", "TSP\n", 1),
    }
    for message, text in bad.items():
        with pytest.raises(TsplibError, match=message):
            parse_tour(text, "t.tour")
    with pytest.raises(TsplibError, match="the instance has 5"):
        parse_tour(ok, dimension=5)
    with pytest.raises(InvalidTourError):
        write_tour("never.tour", [0, 1, 1], "bad")


GOOD = (
    "NAME : tiny\n"
    "COMMENT : a square\n"
    "TYPE : TSP\n"
    "DIMENSION : 4\n"
    "EDGE_WEIGHT_TYPE : EUC_2D\n"
    "NODE_COORD_SECTION\n"
    "1 0 0\n"
    "2 10 0\n"
    "3 10 10\n"
    "4 0.0 1e1\n"
    "EOF\n"
)


def test_a_good_file_parses() -> None:
    tiny = parse_tsp(GOOD, "tiny.tsp")
    assert (tiny.name, tiny.comment, tiny.dimension) == ("tiny", "a square", 4)
    assert tiny.distances()[0, 2] == 14  # nint(14.14)
    assert parse_tsp(GOOD.replace("EOF\n", "")).dimension == 4  # EOF may be missing


@pytest.mark.parametrize(
    "edit,message",
    [
        (("DIMENSION : 4\n", ""), r"tiny\.tsp:\d+: missing DIMENSION"),
        (("3 10 10\n", ""), r"tiny\.tsp:\d+: NODE_COORD_SECTION has 3 nodes, DIMENSION says 4"),
        (("3 10 10\n", "3 10\n"), r"tiny\.tsp:9: a node line is 'number x y' \(3 fields\), got 2"),
        (("3 10 10\n", "3 10 10 7\n"), r"tiny\.tsp:9: .*got 4"),
        (("EOF\n", "5 1 1\nEOF\n"), r"tiny\.tsp:11: more nodes than DIMENSION"),
        (("EUC_2D", "GEOM"), r"tiny\.tsp:5: unknown EDGE_WEIGHT_TYPE 'GEOM'; supported"),
        (("EDGE_WEIGHT_TYPE : EUC_2D\n", ""), r"tiny\.tsp:\d+: missing EDGE_WEIGHT_TYPE"),
        (("3 10 10\n", "3 ten 10\n"), r"tiny\.tsp:9: coordinate 'ten' is not a number"),
        (("3 10 10\n", "3 nan 10\n"), r"tiny\.tsp:9: coordinate 'nan' is not a number"),
        (("3 10 10\n", "x 10 10\n"), r"tiny\.tsp:9: node number 'x'"),
        (("3 10 10\n", "9 10 10\n"), r"tiny\.tsp:9: node number 9 outside"),
        (("3 10 10\n", "2 10 10\n"), r"tiny\.tsp:9: node 2 given twice"),
        (
            ("DIMENSION : 4", "DIMENSION : four"),
            r"tiny\.tsp:4: DIMENSION must be a positive integer",
        ),
        (("TYPE : TSP", "TYPE : ATSP"), r"tiny\.tsp:3: TYPE must be TSP"),
        (("NAME", "CAPACITY : 3\nNAME"), r"tiny\.tsp:1: unknown header key 'CAPACITY'"),
        (("NODE_COORD_SECTION", "EDGE_WEIGHT_SECTION"), r"unsupported section EDGE_WEIGHT_SECTION"),
        (("NAME : tiny\n", "NAME : tiny\nNAME : again\n"), r"tiny\.tsp:2: NAME given twice"),
        (("EOF\n", "EOF\n1 2 3\n"), r"tiny\.tsp:12: text after EOF"),
        (("EOF\n", "DISPLAY_DATA_SECTION\n"), r"tiny\.tsp:11: unsupported section DISPLAY"),
    ],
)
def test_bad_tsplib_files_name_the_file_and_line(edit: tuple[str, str], message: str) -> None:
    text = GOOD.replace(*edit)
    assert text != GOOD
    with pytest.raises(TsplibError, match=message):
        parse_tsp(text, "tiny.tsp")


def test_bad_files_on_disk(tmp_path: Path) -> None:
    assert issubclass(TsplibError, InvalidConfigError)
    with pytest.raises(TsplibError, match="cannot read"):
        read_tsp(tmp_path / "missing.tsp")
    binary = tmp_path / "binary.tsp"
    binary.write_bytes(b"NAME : \xff\n")
    with pytest.raises(TsplibError, match=r"binary\.tsp: not an ASCII text file"):
        read_tsp(binary)
    bad = tmp_path / "bad.tsp"
    bad.write_text(GOOD.replace("DIMENSION : 4\n", ""))
    with pytest.raises(InvalidConfigError, match=r"bad\.tsp:\d+: missing DIMENSION"):
        TSP(instance=str(bad))


# ------------------------------------------------------------------------- heuristics


def stated_length_is_right(dist: np.ndarray, length: int, tour: list[int]) -> bool:
    return is_tour(tour, dist.shape[0]) and tour_length(dist, tour) == length


@pytest.mark.parametrize("seed", range(8))
def test_baselines_return_valid_tours_with_their_stated_length(seed: int) -> None:
    game = TSP(instance=f"random:10:{seed}")
    d = game.distances
    assert game.coordinates is not None
    nn = nearest_neighbour(d)
    assert stated_length_is_right(d, *nn)
    assert nn.length == closed_length(game.coordinates, nn.tour)
    opt = two_opt(d, nn.tour)
    assert stated_length_is_right(d, *opt) and opt.length <= nn.length
    budget = Budget(iterations=3000)
    sa = simulated_annealing(d, budget, seed=seed, initial=nn.tour)
    ga = genetic_algorithm(d, Budget(iterations=30), seed=seed, population=20, initial=nn.tour)
    rr = random_restarts(d, budget, seed=seed)
    for result in (sa, ga, rr):
        assert stated_length_is_right(d, result.length, result.tour)
        lengths = [length for _, length in result.trace]
        assert lengths[-1] == result.length
        assert lengths == sorted(lengths, reverse=True) and len(set(lengths)) == len(lengths)
        seconds = [s for s, _ in result.trace]
        assert seconds == sorted(seconds) and seconds[0] >= 0.0
    # What is guaranteed: SA and the GA keep the best found, so never worse than the
    # tour they start from (here the nearest-neighbour tour).
    assert sa.trace[0] == (0.0, nn.length) and sa.length <= nn.length
    assert ga.length <= nn.length
    assert held_karp(d)[0] <= min(sa.length, ga.length, rr.length, opt.length)


@pytest.mark.parametrize("seed", range(4))
def test_two_opt_ends_at_a_local_optimum(seed: int) -> None:
    d = TSP(instance=f"random:30:{seed}").distances
    length, tour = two_opt(d)
    n = len(tour)
    for i in range(1, n - 1):
        for j in range(i + 1, n):
            a, b, c, e = tour[i - 1], tour[i], tour[j], tour[(j + 1) % n]
            assert d[a, c] + d[b, e] >= d[a, b] + d[c, e]
    assert length == tour_length(d, tour)


def test_nearest_neighbour_from_another_start_begins_the_tour_at_city_0() -> None:
    d = TSP(coords=[(0, 0), (1, 0), (5, 0), (2, 0)]).distances
    assert nearest_neighbour(d, start=2) == (10, [0, 2, 3, 1])  # 2 -> 3 -> 1 -> 0 -> 2
    with pytest.raises(InvalidConfigError):
        nearest_neighbour(d, start=4)


def test_anytime_searches_repeat_with_a_seed_and_an_iteration_budget() -> None:
    d = TSP(instance="random:25:1").distances
    for search in (simulated_annealing, genetic_algorithm, random_restarts):
        a = search(d, Budget(iterations=500), seed=3)
        b = search(d, Budget(iterations=500), seed=3)
        assert (a.length, a.tour) == (b.length, b.tour)
        assert [x for _, x in a.trace] == [x for _, x in b.trace]


def test_searches_stop_on_a_time_budget() -> None:
    d = TSP(instance="random:15:1").distances
    result = random_restarts(d, Budget(seconds=0.05), seed=1)
    assert stated_length_is_right(d, result.length, result.tour)


def test_simulated_annealing_on_eil51_within_10_percent_of_the_optimum() -> None:
    game = TSP(instance="eil51")
    result = simulated_annealing(game.distances, Budget(iterations=1_000_000), seed=0)
    optimum = known_optimum("eil51")
    assert optimum == 426
    assert stated_length_is_right(game.distances, result.length, result.tour)
    assert result.length <= 1.1 * optimum
    # The tour plays as a game: its return is minus its length.
    assert game.state_from_actions(result.tour[1:]).returns() == [-float(result.length)]


def test_tiny_instances_and_bad_arguments() -> None:
    d = TSP(coords=[(0, 0), (3, 4), (6, 0)]).distances
    assert simulated_annealing(d, Budget(iterations=10)).length == 16
    assert two_opt(d).length == 16
    assert genetic_algorithm(d, Budget(iterations=3), population=4).length == 16
    for bad in (
        {},
        {"iterations": 0},
        {"iterations": 1.5},
        {"seconds": -1.0},
        {"seconds": math.inf},
    ):
        with pytest.raises(InvalidConfigError):
            Budget(**bad)  # type: ignore[arg-type]
    budget = Budget(iterations=5)
    with pytest.raises(InvalidConfigError):
        simulated_annealing(d, budget, alpha=1.5)
    with pytest.raises(InvalidConfigError):
        simulated_annealing(d, budget, initial=[0, 1, 1])
    with pytest.raises(InvalidConfigError):
        genetic_algorithm(d, budget, population=1)
    with pytest.raises(InvalidConfigError):
        two_opt([[0, 1], [2, 0]])  # 2-opt needs symmetric distances


def test_a_fifo_or_a_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    import os

    from mctslab.games.tsp import TsplibError, read_tsp, tsplib

    fifo = tmp_path / "pipe.tsp"
    os.mkfifo(fifo)
    with pytest.raises(TsplibError, match="not a regular file"):
        read_tsp(fifo)  # would block forever if it were opened
    huge = tmp_path / "huge.tsp"
    with open(huge, "wb") as f:
        f.truncate(tsplib.MAX_FILE_BYTES + 1)
    with pytest.raises(TsplibError, match="more than"):
        read_tsp(huge)


def test_polish_keeps_the_start_and_never_lengthens_the_rest() -> None:
    """The ``polish`` kernel (2-opt and Or-opt over the rest of the tour): from a position
    part-way through a tour, a random rest is reordered into another legal rest, no
    longer, whose replayed score is the one it returns; it draws nothing."""
    from mctslab.games.tsp.game import polish

    for seed in range(30):
        game = TSP(f"random:9:{seed}")
        state = game.new_initial_state()
        for _ in range(seed % 4):
            state.apply_action(state.legal_actions()[0])
        rest = [int(a) for a in np.random.default_rng(seed).permutation(state.legal_actions())]
        before = state.clone()
        for a in rest:
            before.apply_action(a)
        seq = np.array(rest, dtype=np.int64)
        score = polish(state.array, game.params, seq, len(rest))
        after = state.clone()
        for a in seq:
            after.apply_action(int(a))
        assert sorted(seq.tolist()) == sorted(rest)
        assert after.returns()[0] == score >= before.returns()[0]
        again = np.array(rest, dtype=np.int64)
        assert polish(state.array, game.params, again, len(rest)) == score
        assert again.tolist() == seq.tolist()
