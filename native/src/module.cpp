// tablezoo.games._native: the native core's Python module. Each game is bound by the one
// template of bind.h; the C++ errors become the engine's own Python exceptions.
#include <pybind11/pybind11.h>

#include "bind.h"
#include "court.h"
#include "diamant.h"
#include "heckmeck.h"
#include "sechs_nimmt.h"

namespace py = pybind11;
using namespace tablezoo;

PYBIND11_MODULE(_native, m) {
  m.doc() = "The native core of tablezoo's engine: the four games in C++ (see tablezoo.games.native).";

  // The Python engine's exception classes, so that both cores raise the same ones.
  py::module_ core = py::module_::import("tablezoo.games.core");
  // kept for the life of the process (released: never destroyed after the interpreter)
  static PyObject* illegal = py::object(core.attr("IllegalActionError")).release().ptr();
  static PyObject* bad_outcome = py::object(core.attr("OutcomeError")).release().ptr();
  static PyObject* bad_state = py::object(core.attr("StateError")).release().ptr();
  PyErrors::illegal = illegal;
  PyErrors::outcome = bad_outcome;
  PyErrors::state = bad_state;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const IllegalAction& e) {
      PyErr_SetString(illegal, e.what());
    } catch (const BadOutcome& e) {
      PyErr_SetString(bad_outcome, e.what());
    } catch (const BadState& e) {
      PyErr_SetString(bad_state, e.what());
    } catch (const NotEnumerable& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(bad_state, e.what());
    }
  });

  py::class_<Rng>(m, "Rng", "The core's random generator (xoshiro256**), for its own loops.")
      .def(py::init<uint64_t>(), py::arg("seed") = 0)
      .def("reseed", &Rng::reseed)
      .def("next", &Rng::next_uint64)
      .def("below", [](Rng& r, uint64_t n) {
        if (n == 0) throw py::value_error("below(n) needs n > 0");
        return r.below(n);
      });

  m.def("game_seed", &game_seed, py::arg("seed"), py::arg("index"),
        "The seed of game `index`'s random stream in a batch seeded with `seed`.");

  // numpy's draws, as core.h makes them from a numpy Generator's bits (for the tests)
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

  bind_game<heckmeck::Heckmeck>(m, "Heckmeck");
  bind_game<sechs_nimmt::SechsNimmt>(m, "SechsNimmt");
  {
    // 6 nimmt!'s determinisation and rollouts, the pieces its Monte Carlo ports plan with, for
    // the tests that hold them to the Python game's and bots' own
    using G = sechs_nimmt::SechsNimmt;
    auto game_class = py::reinterpret_borrow<py::class_<Bound<G>>>(m.attr("SechsNimmt"));
    game_class
        .def("determinize", [](const Bound<G>& b, const Boxed<G>& box, int seat, py::handle rng) {
          const G::State& s = b.check(box);
          Boxed<G> out = b.box(G::State{});
          if (py::isinstance<Rng>(rng)) {
            b.game.determinize(s, b.check_seat(seat), rng.cast<Rng&>(), out.s);
          } else {
            NumpyBits bits(rng);
            b.game.determinize(s, b.check_seat(seat), bits, out.s);
          }
          return out;
        }, py::arg("state"), py::arg("seat"), py::arg("rng"),
           "A state consistent with what the seat knows, the rest drawn anew: from a numpy Generator "
           "as SechsNimmt.determinize draws it, or from an Rng as the ports draw theirs.")
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
  bind_game<diamant::Diamant>(m, "Diamant");
  bind_game<court::Court>(m, "Court");
}
