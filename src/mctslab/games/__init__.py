"""Built-in games: rule kernels (numba) wrapped in typed states."""

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
