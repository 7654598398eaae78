// To Court the King's Python face: the one binding every game has (game.h).
#include "../court.h"
#include "game.h"

namespace tablezoo {

void bind_court(py::module_& m) {
  bind_game<court::Court>(m, "Court");
}

}  // namespace tablezoo
