// Heckmeck's Python face: the one binding every game has (game.h).
#include "../heckmeck.h"
#include "game.h"

namespace tablezoo {

void bind_heckmeck(py::module_& m) {
  bind_game<heckmeck::Heckmeck>(m, "Heckmeck");
}

}  // namespace tablezoo
