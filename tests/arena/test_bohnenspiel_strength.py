"""The course project's pass criterion, in short: MCTS beats the reference AI on both sides.

The full benchmark (``benchmarks/bohnenspiel_vs_minimax.py``) plays 40 games at 1 s
and 3 s a move; this test plays 16 games at 3,000 iterations a move (a few
milliseconds: about 5 s in all on one core) with fixed seeds, through the arena,
and checks that MCTS wins the majority as first player and as second.
"""

from __future__ import annotations

from mctslab.arena.tournament import ArenaConfig, Entrant, run_arena

# The benchmark's configuration (see docs/bohnenspiel.md), on a budget.
MCTS = "mcts:iterations=3000,c=0.3,solver=1,reuse_tree=1"
REFERENCE = "minimax:depth=4"


def test_mcts_beats_the_reference_ai_as_first_and_second_player() -> None:
    config = ArenaConfig(
        game="bohnenspiel",
        players=(Entrant("mcts", MCTS), Entrant("minimax4", REFERENCE)),
        games=16,  # colours swapped in pairs: 8 a side
        seed=2026,
        openings=2,  # two random plies a pair, so that the pairs differ
        workers=1,
    )
    records = run_arena(config, None).records
    assert len(records) == 16 and not [r.error for r in records if r.error]
    for seat in (0, 1):
        games = [r for r in records if r.seats[seat] == "mcts"]
        wins = sum(1 for r in games if r.score_of("mcts") == 1.0)
        assert len(games) == 8
        assert wins > len(games) / 2, f"MCTS won {wins} of {len(games)} in seat {seat}"
