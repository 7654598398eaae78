// tablezoo.games._native: the native core's Python module. Each game is bound by the one
// template of bind.h; the C++ errors become the engine's own Python exceptions.
#include <pybind11/pybind11.h>

#include "bind.h"
#include "court.h"
// #include "diamant.h"  // TODO port
#include "heckmeck.h"
// #include "sechs_nimmt.h"  // TODO port

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
      .def("next", &Rng::next)
      .def("below", [](Rng& r, uint64_t n) {
        if (n == 0) throw py::value_error("below(n) needs n > 0");
        return r.below(n);
      });

  bind_game<heckmeck::Heckmeck>(m, "Heckmeck");
  // bind_game<sechs_nimmt::SechsNimmt>(m, "SechsNimmt");
  // bind_game<diamant::Diamant>(m, "Diamant");
  bind_game<court::Court>(m, "Court");
}
