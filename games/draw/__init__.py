"""The games drawn as SVG, from their JSON-able views (``Game.view(state, seat)``).

>>> from tablezoo.games import draw, make
>>> game = make("diamant", 3)
>>> text = draw.svg(game, game.view(game.initial_state(), None), names=["Ann", "Bob", "Cy"])

One module per game (:mod:`.heckmeck`, :mod:`.sechs_nimmt`, :mod:`.diamant`,
:mod:`.court`) over shared primitives (:mod:`.base`). A drawing reads only the
view it is given (no rules, and so nothing a seat may not see), names the seats
by the ``names`` passed in, and marks the pieces the viewing seat may play now
with ``data-command`` (the move's command word), focusable and labelled for
keyboards and screen readers. When the view is of a finished game, the drawing
ends with the winner and the final scores.

The site puts the SVG in its pages; :func:`rgb_array` rasterises the same drawing
for PettingZoo's ``render_mode="rgb_array"`` (with numpy and ``resvg-py``: the
``render`` extra). The rest of this package needs only the standard library.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tablezoo.games.draw import court, diamant, heckmeck, sechs_nimmt

if TYPE_CHECKING:
    import numpy as np

    from tablezoo.games.core import Game

DRAWERS: dict[str, Callable[[dict[str, Any], Sequence[str] | None], str]] = {
    "heckmeck": heckmeck.draw,
    "sechs_nimmt": sechs_nimmt.draw,
    "diamant": diamant.draw,
    "court": court.draw,
}
"""Game name -> the function drawing a view of that game."""


def svg(game: str | Game[Any], view: dict[str, Any], names: Sequence[str] | None = None) -> str:
    """``view`` of ``game`` (a game or its name) drawn as an SVG document (text).

    ``names`` are the seats' display names in seat order; seats without one are
    called "seat N".
    """
    name = game if isinstance(game, str) else game.info.name
    drawer = DRAWERS.get(name)
    if drawer is None:
        raise ValueError(f"no drawing for the game {name!r}; games drawn: {', '.join(DRAWERS)}")
    if not isinstance(view, dict) or view.get("game", name) != name:
        raise ValueError(f"view must be a {name} view (Game.view(state, seat)), not {type(view).__name__}")
    return drawer(view, names)


def rgb_array(svg_text: str, width: int = 800) -> np.ndarray:
    """``svg_text`` rasterised at ``width`` pixels wide: a uint8 array of shape (height, width, 3).

    Needs ``resvg-py`` (the renderer) and Pillow (to decode its PNG): ``pip install
    'tablezoo[render]'``. The height follows the drawing's proportions.
    """
    import io

    import numpy as np

    try:
        import resvg_py
        from PIL import Image
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            f"rgb_array needs the render extra: pip install 'tablezoo[render]' ({err})"
        ) from err
    if not isinstance(width, int) or isinstance(width, bool) or not 16 <= width <= 4096:
        raise ValueError(f"width must be a whole number of pixels from 16 to 4096, not {width!r}")
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg_text, width=width, background="white"))
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


__all__ = ["DRAWERS", "rgb_array", "svg"]
