// 6 nimmt!'s Python face: the one binding every game has (game.h), and its rollouts for the tests.
#include "../sechs_nimmt.h"
#include "game.h"

namespace tablezoo {

void bind_sechs_nimmt(py::module_& m) {
  bind_game<sechs_nimmt::SechsNimmt>(m, "SechsNimmt");
  {
    // 6 nimmt!'s rollouts, the pieces its Monte Carlo ports plan with (beside the game's
    // determinize, bound for every game that has one), for the tests that hold them to the
    // Python bots' own
    using G = sechs_nimmt::SechsNimmt;
    auto game_class = py::reinterpret_borrow<py::class_<Bound<G>>>(m.attr("SechsNimmt"));
    game_class
        .def("rollout", [](const Bound<G>& b, Boxed<G>& box, Rng& rng, std::optional<double> greedy) {
          G::State& s = b.check(box);
          if (greedy && !(*greedy >= 0.0 && *greedy <= 1.0))
            throw py::value_error("greedy is a probability, 0 to 1, not " + std::to_string(*greedy));
          if (greedy)
            b.game.mixed_rollout(s, rng, *greedy);
          else
            b.game.random_rollout(s, rng);
        }, py::arg("state"), py::arg("rng"), py::arg("greedy") = py::none(),
           "Play the state to the end of its round: every move at random (random_rollout), or, given "
           "greedy, each the heuristic's with that chance (mixed_rollout).");
  }
}

}  // namespace tablezoo
