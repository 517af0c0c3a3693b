"""The lessons (``lessons/*.ipynb``) run from start to end on an IPython kernel (nbclient,
as ``make test`` runs them) and print what the course texts print: each notebook's last
cell, tagged ``results``, prints its numbers as JSON, and the tests below check them
against the texts' figures (to 4 decimals where the texts give them) and the orderings
and intervals the lessons claim.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path
from typing import Any

import pytest

from conftest import require_extra

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
#: What a lesson may import: mctslab's public API (the package and its teaching aids),
#: the standard library, numpy and matplotlib.
ALLOWED = {
    "mctslab",
    "mctslab.teaching.bandits",
    "mctslab.search.trace",
    "mctslab.teaching.graphs",
    "mctslab.teaching.listing",
    "mctslab.teaching.ucb",
    "mctslab.players.network",
    "mctslab.train",
    "numpy",
    "matplotlib",
    "graphviz",
}
ALLOWED_STDLIB = {"json", "math", "tempfile", "time", "pathlib"}

_RESULTS: dict[str, dict[str, Any]] = {}


def notebooks() -> list[Path]:
    return sorted(LESSONS.glob("*.ipynb"))


def _code(path: Path) -> list[str]:
    book = json.loads(path.read_text())
    return ["".join(c["source"]) for c in book["cells"] if c["cell_type"] == "code"]


def results(name: str) -> dict[str, Any]:
    """Execute ``lessons/NAME.ipynb`` (once per test process) and read its results cell."""
    if name not in _RESULTS:
        nbformat = require_extra("nbformat", "dev")
        nbclient = require_extra("nbclient", "dev")
        book = nbformat.read(LESSONS / f"{name}.ipynb", as_version=4)
        client = nbclient.NotebookClient(book, timeout=600, kernel_name="python3")
        client.execute()
        [cell] = [c for c in book.cells if "results" in c.metadata.get("tags", [])]
        text = "".join(o["text"] for o in cell.outputs if o.get("name") == "stdout")
        _RESULTS[name] = json.loads(text)
    return _RESULTS[name]


def test_the_lessons_are_there_numbered_and_saved_without_outputs() -> None:
    names = [p.stem for p in notebooks()]
    assert names == [
        "01_monte_carlo",
        "02_bandits",
        "03_four_phases",
        "04_worked_uct",
        "05_bachet_minimax",
        "07_final_move_and_outcomes",
        "10_alphazero",
    ]
    for path in notebooks():
        book = json.loads(path.read_text())
        for cell in book["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, path.name
        tagged = [c for c in book["cells"] if "results" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1 and tagged[0] is book["cells"][-1], path.name


@pytest.mark.parametrize("path", notebooks(), ids=lambda p: p.stem)
def test_a_lesson_imports_only_the_public_api(path: Path) -> None:
    """Lessons use what a student can: ``mctslab``'s public names and its teaching aids,
    never an engine's internals, nor a re-implementation of what the package has."""
    for source in _code(path):
        lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith("%")]
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name in ALLOWED | ALLOWED_STDLIB or name.startswith("matplotlib."), (
                    path.name,
                    name,
                )


def test_lesson_1_monte_carlo() -> None:
    found = results("01_monte_carlo")
    estimates = {int(k): v for k, v in found["estimates"].items()}
    assert set(estimates) == {2, 100, 10_000}
    assert estimates[2] in (0.0, 0.5, 1.0)  # two tosses can say nothing else
    assert abs(estimates[10_000] - 0.5) < 0.02  # 1.96 * sqrt(0.25 / 10,000) = 0.0098
    values = {int(k): v for k, v in found["opening_values"].items()}
    assert found["best_opening"] == 4 == max(values, key=lambda m: values[m])  # the centre
    corners, edges = [values[m] for m in (0, 2, 6, 8)], [values[m] for m in (1, 3, 5, 7)]
    assert min(corners) > max(edges)  # "the corners next"
    assert found["exact_values"] == [0.0]  # solved, every opening draws


def test_lesson_2_bandits() -> None:
    found = results("02_bandits")
    # The French lecture's figures for the exploration term, to 5 decimals.
    logs = {int(k): v for k, v in found["logs"].items()}
    assert [round(logs[n], 5) for n in (100, 1_000, 10_000)] == [4.60517, 6.90776, 9.21034]
    # "n < ln N: under-explored": at most 4, 6 and 9 visits.
    assert found["under_explored_at_most"] == {"100": 4, "1000": 6, "10000": 9}
    # Greedy locks onto the worse restaurant; UCB1 still explores a 0.02 gap.
    assert found["restaurant_pulls"]["greedy"][0] > 9_900
    assert found["restaurant_pulls"]["ucb1"][1] > found["restaurant_pulls"]["ucb1"][0]
    # At 10,000 pulls on 0.3 / 0.5 / 0.7: UCB1 < epsilon-greedy < greedy, the 95% intervals
    # apart; UCB1's regret grows far slower than linearly (x10 for 10x the pulls).
    final = found["final_regret"]
    assert final["ucb1"][2] < final["epsilon-greedy"][1]
    assert final["epsilon-greedy"][2] < final["greedy"][1]
    assert 1.0 < found["ucb_growth_1000_to_10000"] < 3.0


def test_lesson_4_the_worked_uct_example() -> None:
    found = results("04_worked_uct")
    # The Vietnamese text: UCT(B) = 10.6907 < UCT(C) = 10.9769 (c = sqrt 2, log10).
    assert {k: round(v, 4) for k, v in found["base10"].items()} == {"B": 10.6907, "C": 10.9769}
    # The standard formula's natural logarithm on the same tree.
    assert {k: round(v, 4) for k, v in found["natural"].items()} == {"B": 11.0481, "C": 11.4823}
    assert math.isclose(found["ucb_check"], found["base10"]["B"])
    assert {k: round(v, 4) for k, v in found["base10_iteration3"].items()} == {
        "B": 20.7759,
        "C": 10.7759,
    }
    assert found["paths"] == [["A", "B"], ["A", "C"], ["A", "B", "E"], ["A", "C", "G"]]
    assert found["same_choices"] is True  # the base does not change a choice here
    assert found["final_means"] == {"B": 10.0, "C": 12.5}  # C is played


def test_lesson_5_bachet_and_minimax() -> None:
    found = results("05_bachet_minimax")
    # 4 stones, take 1 or 2: 12 nodes as a tree, 8 positions merged (stones, mover).
    assert (found["tree_nodes"], found["merged_nodes"]) == (12, 8)
    # Backward induction: the first player wins by taking 1 (leaving 3).
    assert found["start_returns"] == [1.0, -1.0] and found["start_best"] == ["1:1"]
    # Multiples of 3 lose for the mover, the winning take is n mod 3: the solver agrees.
    assert found["agree"] is True and found["takes"] is True
    assert found["dot_has_colours"] is True


def test_lesson_3_the_four_phases_and_the_perspective() -> None:
    found = results("03_four_phases")
    # The first iterations each add an opening (unvisited children first).
    assert len(set(found["first_nodes"])) == 3 and all("." not in n for n in found["first_nodes"])
    # Rewards in [0, 1], alternating r, 1 - r up the path: the player who moved in.
    assert found["first_rewards_alternate"] is True
    assert found["root_visits"] == 40 and found["deeper_later"] is True
    # The right perspective wins in one and blocks every time; the wrong one never.
    assert found["outcomes"] == {
        "win in one, credit mover": 20,
        "win in one, credit to_move": 0,
        "block, credit mover": 20,
        "block, credit to_move": 0,
    }


def test_lesson_7_final_move_rules_and_outcome_weights() -> None:
    found = results("07_final_move_and_outcomes")
    picks = found["picks"]
    # On the lesson's Connect Four position at 300 iterations the rules disagree ...
    assert picks["robust"]["action"] != picks["max"]["action"]
    # ... and robust-max searches on until they agree, on max's move here.
    assert picks["robust-max"]["stopped_by"] == "agreement"
    assert 300 < picks["robust-max"]["iterations"] <= 330
    assert picks["robust-max"]["action"] == picks["max"]["action"]
    # A draw worth a loss: O stops blocking; loss 0 or -1 with a draw halfway: it blocks.
    assert found["best_value"] == 0.0
    assert found["optimal"] == {
        "win 1, draw 0.5, loss 0": 20,
        "win 1, draw 0, loss -1": 20,
        "win 1, draw 0, loss 0": 0,
    }


def test_lesson_10_alphazero_from_scratch() -> None:
    """Tic-tac-toe trained from scratch in the notebook (16 small generations, seconds):
    the network alone goes from about half optimal moves to nine in ten or more (measured
    56.5% and 97.2%), the winning move's prior sharpens, and with equal simulations the
    network's PUCT does not lose to plain UCT (measured 8 wins, 12 draws, 0 losses)."""
    require_extra("torch", "nn")
    found = results("10_alphazero")
    assert found["generations"] == 16
    assert found["share"]["untrained"] < 0.7 and found["share"]["trained"] >= 0.9
    assert found["c1_prior"]["trained"] > 0.5 > found["c1_prior"]["untrained"]
    tally = found["tally"]
    assert sum(tally.values()) == 20
    assert tally["mcts wins"] <= 2 and tally["az wins"] > tally["mcts wins"]
