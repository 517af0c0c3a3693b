"""Games: rules only. Importing this package registers the built-in games.

- rule kernels (numba) and their typed wrapper: :mod:`~mctslab.games.kernels`,
  :mod:`~mctslab.games.tic_tac_toe`, :mod:`~mctslab.games.connect_four`,
  :mod:`~mctslab.games.nim` (and Bachet's game), :mod:`~mctslab.games.bohnenspiel`;
- single-player games (a score to maximise, searched by :mod:`mctslab.search.single`):
  :mod:`~mctslab.games.tsp` (the travelling salesman, TSPLIB), :mod:`~mctslab.games.samegame`,
  :mod:`~mctslab.games.morpion` (Morpion Solitaire 5T, 5D and OpenSpiel's);
- plain-Python games with chance or hidden information: :mod:`~mctslab.games.pig`,
  :mod:`~mctslab.games.kuhn_poker`, :mod:`~mctslab.games.knockout_whist`;
- :mod:`~mctslab.games.openspiel`: any OpenSpiel game as ``openspiel:NAME``;
- your own games, from your packages' entry points (``mctslab.games``) and
  ``--game-module``: :mod:`mctslab.core.registry` loads them once these are registered
  (and all of :mod:`mctslab` imported).

May import: :mod:`mctslab.core` only.
"""

from typing import Any

from mctslab.games.bohnenspiel import Bohnenspiel
from mctslab.games.connect_four import ConnectFour
from mctslab.games.kernels import KernelGame, KernelState, RuleKernels
from mctslab.games.nim import Nim, bachet
from mctslab.games.tic_tac_toe import TicTacToe

__all__ = [
    "Bohnenspiel",
    "ConnectFour",
    "KernelGame",
    "KernelState",
    "Nim",
    "RuleKernels",
    "TicTacToe",
    "bachet",
]


def _register_builtins() -> None:
    from mctslab.core.declarations import declares_parameters
    from mctslab.core.game import Game
    from mctslab.core.registry import register, register_prefix
    from mctslab.games.go import Go
    from mctslab.games.knockout_whist import KnockoutWhist
    from mctslab.games.kuhn_poker import KuhnPoker
    from mctslab.games.morpion import Morpion
    from mctslab.games.pig import Pig
    from mctslab.games.samegame import SameGame
    from mctslab.games.tsp import TSP

    def nim(piles: Any = (1, 3, 5, 7), max_take: int | None = None, misere: bool = False) -> Game:
        return Nim(piles, max_take=max_take, misere=misere)

    @declares_parameters(TSP.parameter_schema)
    def tsp(instance: str = "eil51") -> Game:
        """A TSPLIB instance shipped (eil51, berlin52, st70, kroA100), a ``.tsp`` file, or
        ``random:N:SEED``."""
        return TSP(instance)

    def load_openspiel(name: str, **params: Any) -> Game:
        from mctslab.games import openspiel  # imports pyspiel, only now

        return openspiel.load(name, **params)

    def openspiel_parameters(name: str) -> dict[str, Any]:
        from mctslab.games import openspiel

        return openspiel.game_parameters(name)

    register("tic_tac_toe", TicTacToe)
    register("connect_four", ConnectFour)
    register("nim", nim)
    register("bachet", bachet)
    register("bohnenspiel", Bohnenspiel)
    register("go", Go)
    register("pig", Pig)
    register("kuhn_poker", KuhnPoker)
    register("knockout_whist", KnockoutWhist)
    register("tsp", tsp)
    register("samegame", SameGame)
    register("morpion_solitaire", Morpion)
    register_prefix("openspiel:", load_openspiel, openspiel_parameters)


_register_builtins()
