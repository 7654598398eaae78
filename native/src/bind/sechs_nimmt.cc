// 6 nimmt!'s Python face: the one binding every game has (game.h).
#include "games/sechs_nimmt/sechs_nimmt.h"
#include "game.h"

namespace tablezoo {

namespace {

void bind(py::module_& m) {
  bind_game<sechs_nimmt::SechsNimmt>(m, "SechsNimmt");
}

const RegisterGame registered("SechsNimmt", bind);

}  // namespace
}  // namespace tablezoo
