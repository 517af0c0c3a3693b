"""What the adapters' ``render()`` returns: a position as text, or as a picture.

Text (``"ansi"``, and ``"human"``, which prints it): the game's ``human_view()`` where it
has one (Pig, Kuhn poker, Knockout Whist: every hand shown, as an omniscient observer
sees them), else ``str(state)``, the game's own text board.

Pictures (``"rgb_array"``): drawn with matplotlib (its Agg canvas, no window) from the
drawing fields the game declares for the web lab
(:class:`~mctslab.core.declarations.Rendering`), for the kinds of board that are a
picture: ``"grid"`` (tic-tac-toe, Connect Four: X/red and O/yellow marks, the winner's
line), ``"go"`` (the stones on the lines of the board) and ``"tour"`` (the TSP: the
cities and the tour so far). :func:`can_draw` says whether a game has one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mctslab.core.declarations import rendering
from mctslab.core.game import State

__all__ = ["DRAWN_KINDS", "can_draw", "draw", "state_text"]

#: The :class:`~mctslab.core.declarations.Rendering` kinds :func:`draw` draws.
DRAWN_KINDS = ("grid", "go", "tour")

_PIXELS = 400  # a frame's width and height
_DPI = 100


def state_text(state: State) -> str:
    """The position as text for a person: ``human_view()`` where the state has one, else
    ``str(state)``."""
    view = getattr(state, "human_view", None)
    return str(view()) if callable(view) else str(state)


def can_draw(game: object) -> bool:
    """Whether :func:`draw` draws ``game``'s positions (it declares a board of a kind in
    :data:`DRAWN_KINDS` with its drawing)."""
    declared = rendering(game)
    return declared.kind in DRAWN_KINDS and declared.draw is not None


def draw(game: object, state: State) -> np.ndarray[Any, Any]:
    """``state`` drawn: a ``(400, 400, 3)`` ``uint8`` RGB array (``ValueError`` for a game
    :func:`can_draw` refuses)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    declared = rendering(game)
    if not can_draw(game) or declared.draw is None:
        raise ValueError(f"{game!r} declares no board to draw")
    fields = declared.draw(state)
    fig = Figure(figsize=(_PIXELS / _DPI, _PIXELS / _DPI), dpi=_DPI)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    if declared.kind == "grid":
        _grid(ax, fields)
    elif declared.kind == "go":
        _go(ax, fields)
    else:
        _tour(ax, fields)
    canvas.draw()  # type: ignore[no-untyped-call]
    rgba = canvas.buffer_rgba()  # type: ignore[no-untyped-call]
    return np.asarray(rgba)[:, :, :3].copy()


def _grid(ax: Any, fields: dict[str, Any]) -> None:
    """A grid board: ``cells`` row-major, row 0 at the top, each ``""``, ``"x"`` or ``"o"``."""
    rows, cols = int(fields["rows"]), int(fields["cols"])
    ax.set_xlim(0, cols)
    ax.set_ylim(0, rows)
    ax.set_aspect("equal")
    ax.add_patch(_rectangle((0, 0), cols, rows, "#2f5fb3"))
    win = set(fields.get("win", []))
    for index, mark in enumerate(fields["cells"]):
        r, c = divmod(index, cols)
        x, y = c + 0.5, rows - r - 0.5
        colour = {"x": "#d62728", "o": "#ffd21f"}.get(mark, "white")
        edge = "black" if index in win else "none"
        ax.add_patch(_circle((x, y), 0.4, colour, edge))


def _go(ax: Any, fields: dict[str, Any]) -> None:
    """A Go board: ``stones`` in action order (row 0 at the bottom), 1 black, 2 white."""
    size = int(fields["size"])
    ax.set_xlim(-1, size)
    ax.set_ylim(-1, size)
    ax.set_aspect("equal")
    ax.add_patch(_rectangle((-1, -1), size + 1, size + 1, "#dcb35c"))
    for i in range(size):
        ax.plot([0, size - 1], [i, i], color="black", linewidth=1)
        ax.plot([i, i], [0, size - 1], color="black", linewidth=1)
    for point, stone in enumerate(fields["stones"]):
        if stone:
            r, c = divmod(point, size)
            colour = "black" if stone == 1 else "white"
            ax.add_patch(_circle((c, r), 0.45, colour, "black"))


def _tour(ax: Any, fields: dict[str, Any]) -> None:
    """A TSP tour: ``cities`` as ``[x, y]``, ``order`` the cities visited so far."""
    cities = np.asarray(fields["cities"], dtype=float)
    order = [int(c) for c in fields["order"]]
    ax.set_aspect("equal")
    ax.scatter(cities[:, 0], cities[:, 1], s=12, color="#1f77b4")
    if len(order) > 1:
        path = cities[order]
        ax.plot(path[:, 0], path[:, 1], color="#d62728", linewidth=1.5)
    if order:
        ax.scatter(cities[order[:1], 0], cities[order[:1], 1], s=40, color="#2ca02c")
    ax.margins(0.05)


def _rectangle(corner: tuple[float, float], width: float, height: float, colour: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle(corner, width, height, facecolor=colour, edgecolor="none")


def _circle(centre: tuple[float, float], radius: float, colour: str, edge: str) -> Any:
    from matplotlib.patches import Circle

    return Circle(centre, radius, facecolor=colour, edgecolor=edge, linewidth=2)
