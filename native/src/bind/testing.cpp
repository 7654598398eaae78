// tablezoo.games._native_testing: pieces of the native core that only the tests call, kept out
// of the production module (tablezoo.games._native). They hold the core's parts to the Python
// reference's: numpy's draws from a numpy Generator's bits, 6 nimmt!'s rollouts, Diamant's
// search bot's simulator. Its functions take the production module's objects (its states, games
// and Rng): pybind11 shares their classes between the two modules.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bound.h"
#include "games/diamant/diamant.h"
#include "games/sechs_nimmt/sechs_nimmt.h"

namespace py = pybind11;
using namespace tablezoo;

PYBIND11_MODULE(_native_testing, m) {
  m.doc() = "Pieces of the native core for the tests that hold them to the Python reference's.";
  py::module_::import("tablezoo.games._native");  // its classes, which these functions take

  // numpy's draws, as core.h makes them from a numpy Generator's bits
  m.def("numpy_integers", [](py::handle generator, uint64_t high) {
    if (high == 0) throw py::value_error("high must be positive");
    NumpyBits bits(generator);
    return numpy_integers(bits, high);
  });
  m.def("numpy_permutation", [](py::handle generator, int n) {
    if (n < 0 || n > 1000000) throw py::value_error("n must be 0..1000000");
    NumpyBits bits(generator);
    std::vector<int> out;
    numpy_permutation(bits, n, out);
    return out;
  });
  m.def("raw_below", [](py::handle generator, uint64_t total) {
    if (total == 0) throw py::value_error("total must be positive");
    NumpyBits bits(generator);
    return raw_below(bits, total);
  });

  // 6 nimmt!'s rollouts, the pieces its Monte Carlo ports plan with (beside the game's
  // determinize, bound for every game that has one), held to the Python bots' own
  using G = sechs_nimmt::SechsNimmt;
  m.def("sechs_nimmt_rollout", [](const Bound<G>& b, Boxed<G>& box, Rng& rng, std::optional<double> greedy) {
        G::State& s = b.check(box);
        if (greedy && !(*greedy >= 0.0 && *greedy <= 1.0))
          throw py::value_error("greedy is a probability, 0 to 1, not " + std::to_string(*greedy));
        if (greedy)
          b.game.mixed_rollout(s, rng, *greedy);
        else
          b.game.random_rollout(s, rng);
      }, py::arg("game"), py::arg("state"), py::arg("rng"), py::arg("greedy") = py::none(),
         "Play the state to the end of its round: every move at random (random_rollout), or, given "
         "greedy, each the heuristic's with that chance (mixed_rollout).");

  // Diamant's search bot's simulator (games/diamant/diamant.h: Table, threshold_camps, one_card_camps,
  // Rollout) on the table of a native state, for the tests that hold it to bots/diamant.py's.
  using diamant::Table;
  using DiamantState = Boxed<diamant::Diamant>;
  py::module_ search = m.def_submodule("diamant_search", "Diamant's search bot's simulator.");
  auto table_of = [](const DiamantState& b, int seat) {
    const int n = b.num_seats;
    if (seat < 0 || seat >= n)
      throw py::value_error("seat " + std::to_string(seat) + " is out of range 0.." + std::to_string(n - 1));
    return Table::of_state(b.s);
  };
  search.def("table", [](const DiamantState& b) { return to_python(Table::of_state(b.s)); }, py::arg("state"),
             "The table of a state (Table.of_view of any seat's view), as a dict.");
  search.def("threshold_camps", [table_of](const DiamantState& b, int seat, int haul, int hazards) {
    return diamant::threshold_camps(table_of(b, seat), seat, haul, hazards);
  }, py::arg("state"), py::arg("seat"), py::arg("haul"), py::arg("hazards"), "threshold_camps on the state's table.");
  search.def("one_card_camps", [table_of](const DiamantState& b, int seat, int staying, int leaving) {
    const Table table = table_of(b, seat);
    if (staying < 0 || staying > b.num_seats || leaving < 0 || leaving > b.num_seats)
      throw py::value_error("staying and leaving are counts of seats, 0.." + std::to_string(b.num_seats));
    return diamant::one_card_camps(table, seat, staying, leaving);
  }, py::arg("state"), py::arg("seat"), py::arg("staying"), py::arg("leaving"), "one_card_camps on the state's table.");
  search.def("score", [](const std::vector<int>& banked, int me, double margin_weight) {
    if (banked.size() < 2) throw py::value_error("a score needs the banked gems of two seats at least");
    if (me < 0 || me >= static_cast<int>(banked.size())) throw py::value_error("me is not a seat of banked");
    for (int gems : banked)
      if (gems < 0 || gems > diamant::kCaves * diamant::kTotalTreasure)
        throw py::value_error("banked gems are 0.." + std::to_string(diamant::kCaves * diamant::kTotalTreasure) +
                              ", not " + std::to_string(gems));
    diamant::Diamant::Search bot;
    bot.margin_weight = margin_weight;
    return bot.score(banked, me);
  }, py::arg("banked"), py::arg("me"), py::arg("margin_weight") = 0.01, "DiamantSearchBot.score.");
  // The cards of a rollout from a list of uniform doubles, as a scripted random.Random gives them.
  struct Draws {
    const std::vector<double>& u;
    size_t used = 0;
    double random() {
      if (used == u.size()) throw py::value_error("the draws ran out after " + std::to_string(used) + " cards");
      const double x = u[used++];
      if (!(x >= 0.0 && x < 1.0)) throw py::value_error("a draw is a double in [0, 1), not " + std::to_string(x));
      return x;
    }
  };
  search.def("rollout", [table_of](const DiamantState& b, int me, bool mine, const std::vector<double>& draws,
                                   int others_haul, int others_hazards) {
    Table table = table_of(b, me);
    diamant::Rollout rollout(me, others_haul, others_hazards);
    Draws rnd{draws};
    rollout.play(table, mine, rnd);
    return py::make_tuple(to_python(table), rnd.used);
  }, py::arg("state"), py::arg("me"), py::arg("mine"), py::arg("draws"), py::arg("others_haul") = 10,
     py::arg("others_hazards") = 2,
     "Rollout(me, ...).play on the state's table (me choosing `mine`: camp), the cards from `draws`: "
     "the table at the end and the draws used.");
}
