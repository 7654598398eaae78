// The hot path: the calls a game loop makes at every decision, as plain CPython fastcall functions.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <cstring>

#include "bound.h"
#include "errors.h"

namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- the hot path
// The calls a game loop makes at every decision (to_move, legal_actions, apply, advance,
// observe) as plain CPython fastcall functions bound to one game object. pybind11's general
// dispatcher spends about 90 ns on a call (overload resolution, type casters); these take
// about a quarter of that (benchmarks/throughput.py), and check the same things: the argument
// count, the state's type and configuration, the seat. They raise the engine's exceptions.

template <class G>
struct Fast {
  using B = Bound<G>;
  using Box = Boxed<G>;
  static inline PyTypeObject* state_type = nullptr;  // set by bind_game
  static inline py::detail::type_info* game_info = nullptr;   // pybind11's record of Bound<G> (bind_game)
  static inline py::detail::type_info* state_info = nullptr;  // and of Boxed<G>

  // self: the game object the functions were made from (fast_methods checked it is a built
  // Bound<G>): its Bound<G> part, found by type (an object of a class that inherits two native
  // games holds two, and the first is not necessarily this game's)
  static B& game(PyObject* self) {
    return *static_cast<B*>(reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder(game_info, false).value_ptr());
  }

  // The native state in obj, checked against the game's configuration; nullptr with a
  // Python error set when it is not one. Its Boxed<G> part is found by type, as the game's.
  static Box* state(PyObject* self, PyObject* obj) {
    if (!PyObject_TypeCheck(obj, state_type)) {
      PyErr_Format(PyExc_TypeError, "%s is not a native state of this game", Py_TYPE(obj)->tp_name);
      return nullptr;
    }
    auto vh = reinterpret_cast<py::detail::instance*>(obj)->get_value_and_holder(state_info, false);
    if (!vh || !vh.holder_constructed()) {
      PyErr_SetString(PyExc_TypeError, "an empty state object (states come from the game)");
      return nullptr;
    }
    Box* box = static_cast<Box*>(vh.value_ptr());
    if (box->key != game(self).key) {
      PyErr_SetString(PyExc_ValueError, "this state belongs to another configuration of the game");
      return nullptr;
    }
    return box;
  }

  static bool arity(const char* signature, Py_ssize_t nargs, Py_ssize_t expected) {
    if (nargs == expected) return true;
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments, not %zd", signature, expected, nargs);
    return false;
  }

  static PyObject* to_move(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (!arity("to_move(state)", nargs, 1)) return nullptr;
    Box* box = state(self, args[0]);
    return box ? PyLong_FromLong(game(self).game.to_move(box->s)) : nullptr;
  }

  static PyObject* legal_actions(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (!arity("legal_actions(state)", nargs, 1)) return nullptr;
    Box* box = state(self, args[0]);
    if (!box) return nullptr;
    B& b = game(self);
    // the moves are this call's own: making the list may run a collector's __del__, which may
    // ask this game again
    ScratchLease moves(b.legal);
    if (b.game.to_move(box->s) >= 0) b.game.legal_actions(box->s, moves.v);
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(moves.v.size()));
    if (!out) return nullptr;
    for (size_t i = 0; i < moves.v.size(); ++i) {
      PyObject* a = PyLong_FromLong(moves.v[i]);
      if (!a) {
        Py_DECREF(out);
        return nullptr;
      }
      PyList_SET_ITEM(out, static_cast<Py_ssize_t>(i), a);
    }
    return out;
  }

  // legal_mask(state): the legal moves of the seat to move as a read-only int8 array (all 0
  // where no seat is to move): what the AEC env hands out, made and frozen in one call
  static PyObject* legal_mask(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (!arity("legal_mask(state)", nargs, 1)) return nullptr;
    Box* box = state(self, args[0]);
    if (!box) return nullptr;
    return guarded([&]() -> PyObject* {
      B& b = game(self);
      const int n = b.game.num_actions();
      py::array_t<int8_t> mask(n);  // made first: no Python runs after the moves are found
      int8_t* data = mask.mutable_data();
      std::memset(data, 0, static_cast<size_t>(n));
      ScratchLease moves(b.legal);
      if (b.game.to_move(box->s) >= 0) b.game.legal_actions(box->s, moves.v);
      for (int a : moves.v) data[a] = 1;
      py::detail::array_proxy(mask.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
      return mask.release().ptr();
    });
  }

  // apply(state, action, *, check=True, legal=None)
  static PyObject* apply(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
      if (!name || (std::strcmp(name, "check") != 0 && std::strcmp(name, "legal") != 0)) {
        PyErr_Format(PyExc_TypeError, "apply() got an unexpected keyword argument %R", PyTuple_GET_ITEM(kwnames, k));
        return nullptr;
      }
    }
    if (!arity("apply(state, action)", nargs, 2)) return nullptr;
    Box* box = state(self, args[0]);
    if (!box) return nullptr;
    return guarded([&] {
      game(self).apply_checked(box->s, args[1]);
      Py_RETURN_NONE;
    });
  }

  // advance(state, rng): rng a numpy Generator (the reference's draws) or an Rng
  static PyObject* advance(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (!arity("advance(state, rng)", nargs, 2)) return nullptr;
    Box* box = state(self, args[0]);
    if (!box) return nullptr;
    return guarded([&]() -> PyObject* {
      B& b = game(self);
      py::handle rng(args[1]);
      if (py::isinstance<Rng>(rng)) return PyLong_FromLong(b.advance(box->s, rng.cast<Rng&>()));
      NumpyBits& bits = b.numpy_bits(rng);
      return PyLong_FromLong(b.advance(box->s, bits));
    });
  }

  static PyObject* observe(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (!arity("observe(state, seat)", nargs, 2)) return nullptr;
    Box* box = state(self, args[0]);
    if (!box) return nullptr;
    B& b = game(self);
    const py::ssize_t size = b.game.observation_size();
    return guarded([&]() -> PyObject* {
      const int seat = b.read_seat(args[1]);  // may run Python: before the array, before the rules
      auto out = float_array(size);
      b.game.observe(box->s, seat, out.mutable_data());
      return out.release().ptr();
    });
  }

  // observe_all(state): every seat's observation, one row per seat, (num_seats, observation_size)
  // float32, in one call (the parallel env's observations of a step)
  static PyObject* observe_all(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (!arity("observe_all(state)", nargs, 1)) return nullptr;
    Box* box = state(self, args[0]);
    if (!box) return nullptr;
    B& b = game(self);
    return guarded([&]() -> PyObject* {
      const py::ssize_t n = b.game.num_seats(), size = b.game.observation_size();
      py::array_t<float> out({n, size});
      float* data = out.mutable_data();
      for (py::ssize_t seat = 0; seat < n; ++seat) b.game.observe(box->s, static_cast<int>(seat), data + seat * size);
      return out.release().ptr();
    });
  }

  // The functions above bound to the game object `self`, by name.
  static py::dict methods(py::handle self) {
    static PyMethodDef defs[] = {
        {"to_move", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(to_move)), METH_FASTCALL,
         "The seat to decide, CHANCE (-1) or TERMINAL (-2)."},
        {"legal_actions", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(legal_actions)), METH_FASTCALL,
         "The legal action ids, ascending."},
        {"legal_mask", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(legal_mask)), METH_FASTCALL,
         "The legal moves of the seat to move as a read-only int8 mask."},
        {"apply", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(apply)), METH_FASTCALL | METH_KEYWORDS,
         "Apply a legal action (checked; an illegal one raises IllegalActionError naming the legal moves)."},
        {"advance", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(advance)), METH_FASTCALL,
         "Resolve chance from a numpy Generator (as the reference draws) or an Rng until a seat is to move."},
        {"observe", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(observe)), METH_FASTCALL,
         "The seat's observation, float32."},
        {"observe_all", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(observe_all)), METH_FASTCALL,
         "Every seat's observation, (num_seats, observation_size) float32."},
    };
    py::dict out;
    for (auto& def : defs) {
      PyObject* f = PyCFunction_NewEx(&def, self.ptr(), nullptr);
      if (!f) throw py::error_already_set();
      out[def.ml_name] = py::reinterpret_steal<py::object>(f);
    }
    return out;
  }
};

}  // namespace tablezoo
