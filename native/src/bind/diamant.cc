// Diamant's Python face: the one binding every game has (game.h).
#include "games/diamant/diamant.h"
#include "game.h"

namespace tablezoo {

namespace {

void bind(py::module_& m) {
  bind_game<diamant::Diamant>(m, "Diamant");
}

const RegisterGame registered("Diamant", bind);

}  // namespace
}  // namespace tablezoo
