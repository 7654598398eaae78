// tablezoo.games._native: the native core's Python module. Each game is bound by the one
// template of bind/game.h from its own translation unit (bind/<game>.cc, which registers it);
// the C++ errors become the engine's own Python exceptions (bind/errors.h).
#include <pybind11/pybind11.h>

#include <algorithm>

#include "batch.h"
#include "fast.h"
#include "game.h"
#include "net_search.h"

namespace py = pybind11;
using namespace tablezoo;


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

  bind_net(m);
  // every game, each from its own translation unit (bind/<game>.cc registers it), by name
  auto games = game_binders();
  std::sort(games.begin(), games.end());
  for (const auto& [name, bind] : games) bind(m);

  // no live object of the module is initialised again (__init__ or __setstate__ called twice)
  for (auto item : m.attr("__dict__").cast<py::dict>())
    if (PyType_Check(item.second.ptr())) refuse_second_init(item.second);
}
