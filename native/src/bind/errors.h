// The core's errors as the engine's Python exceptions (tablezoo.games.core), in one place for
// both the pybind11 functions (module.cpp registers translate_error) and the fastcall ones.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>

#include "tablezoo/core.h"

namespace tablezoo {
namespace py = pybind11;

struct PyErrors {  // the engine's exception classes (module.cpp sets them)
  static inline PyObject* illegal = nullptr;
  static inline PyObject* outcome = nullptr;
  static inline PyObject* state = nullptr;
  static inline PyObject* config = nullptr;
};

// Set the Python error of the core's exception p (an error of core.h). Other exceptions are
// rethrown, for pybind11's own translation (error_already_set, value_error, ...).
inline void translate_error(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const IllegalAction& e) {
    PyErr_SetString(PyErrors::illegal, e.what());
  } catch (const BadOutcome& e) {
    PyErr_SetString(PyErrors::outcome, e.what());
  } catch (const BadState& e) {
    PyErr_SetString(PyErrors::state, e.what());
  } catch (const BadConfig& e) {
    PyErr_SetString(PyErrors::config, e.what());
  } catch (const NotEnumerable& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  }
}

// Run f, turning a C++ exception into the Python one (nullptr then), as pybind11 would.
template <class F>
PyObject* guarded(F&& f) {
  try {
    return f();
  } catch (const Error&) {
    translate_error(std::current_exception());
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

}  // namespace tablezoo
