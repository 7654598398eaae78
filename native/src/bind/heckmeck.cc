// Heckmeck's Python face: the one binding every game has (game.h).
#include "games/heckmeck/heckmeck.h"
#include "game.h"

namespace tablezoo {

namespace {

void bind(py::module_& m) {
  bind_game<heckmeck::Heckmeck>(m, "Heckmeck");
}

const RegisterGame registered("Heckmeck", bind);

}  // namespace
}  // namespace tablezoo
