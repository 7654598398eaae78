// tablezoo.games._native: the native core's Python module. Each game is bound by the one
// template of bind/game.h, one translation unit a game (bind/<game>.cc); the C++ errors become the engine's own Python exceptions.
#include <pybind11/pybind11.h>

#include "bind/fast.h"
#include "bind/batch.h"
#include "bind/net_search.h"

namespace py = pybind11;
using namespace tablezoo;

namespace tablezoo {
// One translation unit a game (bind/<game>.cc), so that the games compile side by side.
void bind_heckmeck(py::module_& m);
void bind_sechs_nimmt(py::module_& m);
void bind_diamant(py::module_& m);
void bind_court(py::module_& m);
}  // namespace tablezoo

PYBIND11_MODULE(_native, m) {
  m.doc() = "The native core of tablezoo's engine: the four games in C++ (see tablezoo.games.native).";

  // The Python engine's exception classes, so that both cores raise the same ones.
  py::module_ core = py::module_::import("tablezoo.games.core");
  // kept for the life of the process (released: never destroyed after the interpreter)
  PyErrors::illegal = py::object(core.attr("IllegalActionError")).release().ptr();
  PyErrors::outcome = py::object(core.attr("OutcomeError")).release().ptr();
  PyErrors::state = py::object(core.attr("StateError")).release().ptr();
  PyErrors::config = py::object(core.attr("ConfigError")).release().ptr();
  py::register_exception_translator(translate_error);
  guard_instance_base();

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

  bind_net(m);
  bind_heckmeck(m);
  bind_sechs_nimmt(m);
  bind_diamant(m);
  bind_court(m);
}
