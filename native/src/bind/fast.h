// The hot path: the calls a game loop makes at every decision, as plain CPython fastcall functions.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

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

// Whether G has secret_decision(state): the games whose choices are made in secret and revealed
// together (Diamant's go/camp, 6 nimmt!'s card); the others never decide together.
template <class G, class = void>
struct HasSecretDecision : std::false_type {};
template <class G>
struct HasSecretDecision<G, std::void_t<decltype(std::declval<const G&>().secret_decision(
                                std::declval<const typename G::State&>()))>> : std::true_type {};

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

  // ---------------------------------------------------------------- the parallel env's step
  // The seats that decide now, each with its legal moves (TablezooParallelEnv._due_now): the
  // seat to move, and in a secret choice every other seat that chooses in the same round, found
  // on a copy with a legal choice in each seat's place (the choices of a round do not change
  // each other's legal moves). Seat k's moves are moves[start[k]..start[k + 1]).
  struct Round {
    static constexpr int kMaxSeats = 16;
    std::vector<int>& moves;  // leased (ScratchLease): every seat's moves, one after the other
    int size = 0;
    int seats[kMaxSeats] = {};
    int start[kMaxSeats + 1] = {};
    explicit Round(std::vector<int>& m) : moves(m) {}
    bool has(int k, int action) const {
      const auto first = moves.begin() + start[k], last = moves.begin() + start[k + 1];
      return std::find(first, last, action) != last;
    }
  };
  static bool secret(const G& g, const typename G::State& s) {
    if constexpr (HasSecretDecision<G>::value) return g.secret_decision(s);
    return false;
  }
  // legal_actions appending to `moves` (the contract's fills a vector of its own)
  static void add_round_seat(const G& g, const typename G::State& s, int seat, Round& r, std::vector<int>& scratch) {
    if (r.size == Round::kMaxSeats) throw std::logic_error("a decision round of more than 16 seats");
    scratch.clear();
    g.legal_actions(s, scratch);
    if (scratch.empty()) throw BadState("seat " + std::to_string(seat) + " is to move but has no legal action");
    r.moves.insert(r.moves.end(), scratch.begin(), scratch.end());
    r.seats[r.size++] = seat;
    r.start[r.size] = static_cast<int>(r.moves.size());
  }
  static void decision_round(const G& g, const typename G::State& s, int mover, Round& r, std::vector<int>& scratch) {
    r.moves.clear();
    r.size = 0;
    add_round_seat(g, s, mover, r, scratch);
    if (!secret(g, s)) return;
    // the copy goes into this thread's own probe, whose storage stays from one step to the
    // next (a state of fresh vectors a step cost a tenth of Diamant's step); no Python runs
    // from here to the return, so no other call can reach it meanwhile
    static thread_local typename G::State probe;
    probe = s;
    while (true) {
      g.apply(probe, r.moves[r.start[r.size - 1]]);  // the last seat's first legal choice
      const int next = g.to_move(probe);
      if (next < 0 || !secret(g, probe)) return;
      for (int k = 0; k < r.size; ++k)
        if (r.seats[k] == next) return;
      add_round_seat(g, probe, next, r, scratch);
    }
  }

  // A new numpy array of numpy type `typenum`, 1-d of `size` entries or of `ndim` dimensions
  // (numpy's own constructor: a fraction of py::array_t's cost, which counts at every step).
  static py::object new_array(int typenum, Py_intptr_t size) { return new_array(typenum, 1, &size); }
  static py::object new_array(int typenum, int ndim, Py_intptr_t* shape) {
    auto& api = py::detail::npy_api::get();
    PyObject* descr = api.PyArray_DescrFromType_(typenum);
    if (!descr) throw py::error_already_set();
    PyObject* out = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, ndim, shape, nullptr, nullptr, 0, nullptr);
    if (!out) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(out);
  }
  static void* array_data(const py::object& array) { return py::detail::array_proxy(array.ptr())->data; }

  // Row `row` of the C-contiguous 2-d float32 array `table` as a 1-d array of its own whose
  // base is `table`: the rows share one buffer (one allocation a step for every seat's
  // observation), each writeable and of its own agent.
  static py::object row_of(const py::object& table, Py_intptr_t row, Py_intptr_t size) {
    auto& api = py::detail::npy_api::get();
    PyObject* descr = api.PyArray_DescrFromType_(py::detail::npy_api::NPY_FLOAT_);
    if (!descr) throw py::error_already_set();
    auto* data = static_cast<float*>(array_data(table)) + row * size;
    PyObject* out = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, 1, &size, nullptr, data,
                                              py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                                                  py::detail::npy_api::NPY_ARRAY_WRITEABLE_,
                                              nullptr);
    if (!out) throw py::error_already_set();
    auto view = py::reinterpret_steal<py::object>(out);
    if (api.PyArray_SetBaseObject_(out, table.inc_ref().ptr()) < 0) throw py::error_already_set();
    return view;
  }

  // parallel_step(state, rng, actions, forms): TablezooParallelEnv.step in one call, for its
  // common case (observations as dicts, rewards zero-sum, the game going on): every due seat's
  // action applied, chance resolved from rng (a numpy Generator, drawn as the reference draws,
  // or an Rng), each due agent's count in `decisions` raised by one, and the step's
  // (observations, rewards, terminations, truncations, infos) made for every agent. `forms` is
  // the env's (agents, decisions, no_moves, zeros, falses, masks, mask_cache_size): the seats'
  // names in order, the decisions dict, the mask of a seat with nothing to decide,
  // {agent: 0.0} and {agent: False} in seat order (the dicts are copies of them: a copy costs a
  // fraction of filling one), and the env's cache of masks by legal moves (a tuple), emptied
  // when it holds mask_cache_size (TablezooEnvBase._mask_of's). The game over after the step: the mover (below 0) instead, the rest the
  // caller's. None, with nothing applied, where the reference path must decide (`actions` not
  // a dict of str keys, a due seat's action missing, not an int or illegal).
  //
  // Every Python value is read before the state is touched: a lookup in a dict whose keys are
  // all str runs no Python, nor does reading an exact int.
  static PyObject* parallel_step(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (!arity("parallel_step(state, rng, actions, forms)", nargs, 4)) return nullptr;
    Box* box = state(self, args[0]);
    if (!box) return nullptr;
    PyObject *rng = args[1], *actions = args[2], *forms = args[3];
    B& b = game(self);
    const int n = b.game.num_seats();
    if (!PyTuple_CheckExact(forms) || PyTuple_GET_SIZE(forms) != 7) {
      PyErr_SetString(PyExc_TypeError,
                      "parallel_step's forms are (agents, decisions, no_moves, zeros, falses, masks, mask_cache_size)");
      return nullptr;
    }
    PyObject *agents = PyTuple_GET_ITEM(forms, 0), *decisions = PyTuple_GET_ITEM(forms, 1);
    PyObject *no_moves = PyTuple_GET_ITEM(forms, 2), *zeros = PyTuple_GET_ITEM(forms, 3);
    PyObject *falses = PyTuple_GET_ITEM(forms, 4), *masks = PyTuple_GET_ITEM(forms, 5);
    const Py_ssize_t cache_size = PyLong_CheckExact(PyTuple_GET_ITEM(forms, 6)) ? PyLong_AsSsize_t(PyTuple_GET_ITEM(forms, 6)) : -1;
    if (!PyList_CheckExact(agents) || PyList_GET_SIZE(agents) != n || !PyDict_CheckExact(decisions) ||
        !PyDict_CheckExact(zeros) || PyDict_GET_SIZE(zeros) != n || !PyDict_CheckExact(falses) ||
        PyDict_GET_SIZE(falses) != n || !PyDict_CheckExact(masks) || cache_size < 1) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError,
                   "parallel_step needs the %d agents' names as a list, their decisions, {agent: 0.0}, "
                   "{agent: False} and the masks as dicts, and the cache's size as a positive int",
                   n);
      return nullptr;
    }
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!PyUnicode_CheckExact(PyList_GET_ITEM(agents, i))) {
        PyErr_SetString(PyExc_TypeError, "parallel_step needs each agent's name as a str");
        return nullptr;
      }
    return guarded([&]() -> PyObject* {
      if (!PyDict_CheckExact(actions)) Py_RETURN_NONE;
      {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(actions, &pos, &key, &value))
          if (!PyUnicode_CheckExact(key)) Py_RETURN_NONE;
      }
      auto& s = box->s;
      const int mover = b.game.to_move(s);
      if (mover < 0) Py_RETURN_NONE;
      // the generator first: a wrong one is refused before anything is applied
      Rng* core_rng = nullptr;
      NumpyBits* bits = nullptr;
      if (b.cached_bits && b.cached_bits->generator.ptr() == rng) bits = &*b.cached_bits;  // the last step's
      else if (py::isinstance<Rng>(rng)) core_rng = &py::handle(rng).cast<Rng&>();
      else bits = &b.numpy_bits(rng);
      ScratchLease scratch(b.legal), round_moves(b.round);
      Round due(round_moves.v);
      decision_round(b.game, s, mover, due, scratch.v);
      int chosen[Round::kMaxSeats];
      long counts[Round::kMaxSeats];
      for (int k = 0; k < due.size; ++k) {
        PyObject* agent = PyList_GET_ITEM(agents, due.seats[k]);
        PyObject* action = PyDict_GetItemWithError(actions, agent);  // borrowed; str keys: no Python
        if (!action) {
          if (PyErr_Occurred()) throw py::error_already_set();
          Py_RETURN_NONE;
        }
        if (!PyLong_CheckExact(action)) Py_RETURN_NONE;
        int overflow = 0;
        const long a = PyLong_AsLongAndOverflow(action, &overflow);
        if (overflow || a < 0 || a > 0x7fffffffL || !due.has(k, static_cast<int>(a))) Py_RETURN_NONE;
        chosen[k] = static_cast<int>(a);
        PyObject* count = PyDict_GetItemWithError(decisions, agent);
        if (!count || !PyLong_CheckExact(count)) {
          if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "parallel_step needs each agent's decisions as an int");
          throw py::error_already_set();
        }
        counts[k] = PyLong_AsLong(count);
        if (counts[k] == -1 && PyErr_Occurred()) throw py::error_already_set();
      }
      // the next round's observations go into this table, made now: making an object may run
      // a collector, and so Python, which must not run from here until they are written
      const Py_intptr_t size = b.game.observation_size();
      Py_intptr_t shape[2] = {n, size};
      const py::object table = new_array(py::detail::npy_api::NPY_FLOAT_, 2, shape);
      // No Python from here until the next round is found and observed: each choice checked
      // against the state as it is (the round's assumption), then applied; chance resolved.
      for (int k = 0; k < due.size; ++k) {
        const int now = b.game.to_move(s);
        scratch.v.clear();
        if (now >= 0) b.game.legal_actions(s, scratch.v);
        if (now != due.seats[k] || std::find(scratch.v.begin(), scratch.v.end(), chosen[k]) == scratch.v.end())
          throw IllegalAction(b.illegal_message(now, chosen[k], py::none(), scratch.v));
        b.game.apply(s, chosen[k]);
      }
      const int next = core_rng ? b.advance(s, *core_rng) : b.advance(s, *bits);
      int decided[Round::kMaxSeats];  // the seats whose choices were applied
      const int num_decided = due.size;
      std::copy(due.seats, due.seats + num_decided, decided);
      if (next >= 0) {
        decision_round(b.game, s, next, due, scratch.v);
        auto* rows = static_cast<float*>(array_data(table));
        for (int seat = 0; seat < n; ++seat) b.game.observe(s, seat, rows + seat * size);
      }
      // Python may run again from here (a dict's keys compared, a collector): everything of
      // the state this step hands out has been read
      for (int k = 0; k < num_decided; ++k) {
        py::object raised = py::reinterpret_steal<py::object>(PyLong_FromLong(counts[k] + 1));
        if (!raised || PyDict_SetItem(decisions, PyList_GET_ITEM(agents, decided[k]), raised.ptr()) < 0)
          throw py::error_already_set();
      }
      if (next < 0) return PyLong_FromLong(next);
      return step_result(b, table, due, agents, no_moves, zeros, falses, masks, cache_size).release().ptr();
    });
  }

  // The step's five dicts for a game that goes on (see parallel_step): every agent's
  // observation a row of `table` (written by the caller), the due ones with the mask of their
  // legal moves (read-only), the others `no_moves`; rewards 0.0, no agent done, infos empty.
  // Nothing here reads the state: the Python this may run (a collector, a key's __eq__) cannot
  // make the result describe another state than the one observed.
  static py::tuple step_result(B& b, const py::object& table, const Round& due, PyObject* agents,
                               PyObject* no_moves, PyObject* zeros, PyObject* falses, PyObject* masks,
                               Py_ssize_t cache_size) {
    static PyObject* const observation_key = PyUnicode_InternFromString("observation");
    static PyObject* const mask_key = PyUnicode_InternFromString("action_mask");
    // {"observation": None, "action_mask": None}: each agent's entry is a copy, its values set
    static PyObject* const entry_form = [] {
      PyObject* form = PyDict_New();
      if (form && (PyDict_SetItem(form, observation_key, Py_None) < 0 || PyDict_SetItem(form, mask_key, Py_None) < 0))
        Py_CLEAR(form);
      return form;
    }();
    if (!observation_key || !mask_key || !entry_form) throw py::error_already_set();
    using api = py::detail::npy_api;
    const int n = b.game.num_seats(), num_actions = b.game.num_actions();
    const Py_intptr_t size = b.game.observation_size();
    py::object vectors[Round::kMaxSeats], due_masks[Round::kMaxSeats];
    if (n > Round::kMaxSeats) throw std::logic_error("more than 16 seats");
    for (int seat = 0; seat < n; ++seat) vectors[seat] = row_of(table, seat, size);
    // each due seat's mask: the env's for these legal moves, else made (read-only) and kept
    for (int k = 0; k < due.size; ++k) {
      py::tuple key(due.start[k + 1] - due.start[k]);
      for (int i = due.start[k]; i < due.start[k + 1]; ++i) {
        PyObject* action = PyLong_FromLong(due.moves[static_cast<size_t>(i)]);
        if (!action) throw py::error_already_set();
        PyTuple_SET_ITEM(key.ptr(), i - due.start[k], action);
      }
      PyObject* known = PyDict_GetItemWithError(masks, key.ptr());
      if (known) {
        due_masks[k] = py::reinterpret_borrow<py::object>(known);
        continue;
      }
      if (PyErr_Occurred()) throw py::error_already_set();
      py::object mask = new_array(api::NPY_INT8_, num_actions);
      auto* data = static_cast<int8_t*>(array_data(mask));
      std::memset(data, 0, static_cast<size_t>(num_actions));
      for (int i = due.start[k]; i < due.start[k + 1]; ++i) data[due.moves[static_cast<size_t>(i)]] = 1;
      py::detail::array_proxy(mask.ptr())->flags &= ~api::NPY_ARRAY_WRITEABLE_;
      if (PyDict_GET_SIZE(masks) >= cache_size) PyDict_Clear(masks);
      if (PyDict_SetItem(masks, key.ptr(), mask.ptr()) < 0) throw py::error_already_set();
      due_masks[k] = std::move(mask);
    }
    auto copy = [](PyObject* form) {
      PyObject* out = PyDict_Copy(form);
      if (!out) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(out);
    };
    auto set = [](const py::object& d, PyObject* key, PyObject* value) {
      if (PyDict_SetItem(d.ptr(), key, value) < 0) throw py::error_already_set();
    };
    py::object observations = copy(falses), rewards = copy(zeros), terminations = copy(falses),
               truncations = copy(falses), infos = copy(falses);
    for (int seat = 0; seat < n; ++seat) {
      PyObject* agent = PyList_GET_ITEM(agents, seat);
      PyObject* mask = no_moves;
      for (int k = 0; k < due.size; ++k)
        if (due.seats[k] == seat) mask = due_masks[k].ptr();
      py::object entry = copy(entry_form);
      set(entry, observation_key, vectors[seat].ptr());
      set(entry, mask_key, mask);
      set(observations, agent, entry.ptr());
      set(infos, agent, py::dict().ptr());
    }
    return py::make_tuple(observations, rewards, terminations, truncations, infos);
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
        {"parallel_step", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(parallel_step)), METH_FASTCALL,
         "The parallel env's step in one call: (state, rng, actions, forms) -> the "
         "five dicts, the mover when the game is over, or None with nothing applied."},
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
