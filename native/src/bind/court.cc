// To Court the King's Python face: the one binding every game has (game.h).
#include "games/court/court.h"
#include "game.h"

namespace tablezoo {

namespace {

void bind(py::module_& m) {
  bind_game<court::Court>(m, "Court");
}

const RegisterGame registered("Court", bind);

}  // namespace
}  // namespace tablezoo
