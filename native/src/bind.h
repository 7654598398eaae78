// The Python face of a native game, written once for every game (pybind11).
//
// bind_game<G>(module, "Heckmeck") adds two classes: `Heckmeck` (the rules under one
// configuration) and `HeckmeckState` (a state, its fields readable under the Python
// dataclass's names). The thin Python class tablezoo.games.native.NativeGame puts the
// engine contract's names and messages on top.
//
// Every value that comes from Python is checked here or by the game before the rules see
// it: a state of another configuration, an action outside the legal ones, a seat out of
// range, an array of the wrong shape or dtype, a malformed outcome or state. Each is a
// Python exception that names it; the state is left as it was.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "batched.h"
#include "net.h"
#include "search.h"
#include "tablezoo/core.h"

namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- values <-> Python
// Reading is strict (a bool is not a number, a number is not a bool): a state read from
// JSON must have the types the Python engine writes.

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(T::fields())>> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

template <class T>
struct is_array : std::false_type {};
template <class T, size_t N>
struct is_array<std::array<T, N>> : std::true_type {};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

[[noreturn]] inline void bad_value(const std::string& where, const char* expected, py::handle value) {
  throw BadState(where + " should be " + expected + ", not " + std::string(py::repr(value)));
}

template <class T>
void read_value(py::handle value, T& out, const std::string& where);

template <class T>
void read_value(py::handle value, T& out, const std::string& where) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Flag>) {
    if (!PyBool_Check(value.ptr())) bad_value(where, "true or false", value);
    out = static_cast<T>(value.ptr() == Py_True);
  } else if constexpr (std::is_same_v<T, int>) {
    if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) bad_value(where, "a whole number", value);
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow || v < -1000000000LL || v > 1000000000LL) bad_value(where, "a whole number of 9 digits at most", value);
    out = static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!PyUnicode_Check(value.ptr())) bad_value(where, "text", value);
    out = value.cast<std::string>();
  } else if constexpr (is_note<T>::value) {
    if (!PyUnicode_Check(value.ptr())) bad_value(where, "text", value);
    if (!out.assign(value.cast<std::string>()))
      bad_value(where, ("text of at most " + std::to_string(T::capacity) + " characters").c_str(), value);
  } else if constexpr (std::is_enum_v<T>) {  // one of a few words (a phase): names(T) lists them
    const auto& words = names(T{});
    if (PyUnicode_Check(value.ptr())) {
      const std::string word = value.cast<std::string>();
      for (size_t i = 0; i < words.size(); ++i)
        if (word == words[i]) {
          out = static_cast<T>(i);
          return;
        }
    }
    std::string all;
    for (const char* w : words) all += std::string(all.empty() ? "" : ", ") + "'" + w + "'";
    bad_value(where, ("one of " + all).c_str(), value);
  } else if constexpr (is_array<T>::value) {
    if (!PyList_Check(value.ptr()) && !PyTuple_Check(value.ptr())) bad_value(where, "a list", value);
    py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    if (seq.size() != out.size())
      bad_value(where, ("a list of " + std::to_string(out.size()) + " entries").c_str(), value);
    for (size_t i = 0; i < out.size(); ++i) read_value(seq[i], out[i], where + "[" + std::to_string(i) + "]");
  } else if constexpr (is_optional<T>::value) {
    if (value.is_none()) {
      out.reset();
    } else {
      typename T::value_type inner{};
      read_value(value, inner, where);
      out = std::move(inner);
    }
  } else if constexpr (is_vector<T>::value) {
    if (!PyList_Check(value.ptr()) && !PyTuple_Check(value.ptr())) bad_value(where, "a list", value);
    py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    const size_t n = seq.size();
    if (n > 100000) bad_value(where, "a list of at most 100000 entries", py::str("a longer list"));
    T items;
    items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      typename T::value_type item{};
      read_value(seq[i], item, where + "[" + std::to_string(i) + "]");
      items.push_back(std::move(item));
    }
    out = std::move(items);
  } else if constexpr (has_fields<T>::value) {
    if (!PyDict_Check(value.ptr())) bad_value(where, "a dict", value);
    py::dict d = py::reinterpret_borrow<py::dict>(value);
    size_t known = 0;
    for_each_field(out, [&](const char* name, auto& member) {
      if (!d.contains(name)) throw BadState(where + " has no field '" + name + "'");
      read_value(d[name], member, where.empty() ? std::string(name) : where + "." + name);
      ++known;
    });
    if (d.size() != known) throw BadState(where + " has fields the game does not know: " + std::string(py::repr(d)));
  } else {
    static_assert(sizeof(T) == 0, "no reader for this field type");
  }
}

template <class T>
py::object to_python(const T& value) {
  if constexpr (has_fields<T>::value) {
    py::dict d;
    for_each_field(value, [&](const char* name, const auto& member) { d[name] = to_python(member); });
    return std::move(d);
  } else if constexpr (is_optional<T>::value) {
    return value ? to_python(*value) : py::none();
  } else if constexpr (std::is_same_v<T, Flag>) {
    return py::bool_(value == kYes);
  } else if constexpr (std::is_enum_v<T>) {
    return py::str(names(T{})[static_cast<size_t>(value)]);
  } else if constexpr (is_note<T>::value) {
    return py::str(value.str());
  } else if constexpr (is_vector<T>::value || is_array<T>::value) {
    py::list items(value.size());
    for (size_t i = 0; i < value.size(); ++i) {
      if constexpr (std::is_same_v<T, std::vector<bool>>)
        items[i] = py::bool_(static_cast<bool>(value[i]));
      else
        items[i] = to_python(value[i]);
    }
    return std::move(items);
  } else {
    return py::cast(value);
  }
}

// ----------------------------------------------------------------------------- numpy's random bits

// numpy's C interface to a bit generator (numpy/random/bitgen.h), as its capsule holds it.
struct NumpyBitgen {
  void* state;
  uint64_t (*next_uint64)(void* st);
  uint32_t (*next_uint32)(void* st);
  double (*next_double)(void* st);
  uint64_t (*next_raw)(void* st);
};

// The bits of a numpy Generator, as a source for the draws of core.h: a game sampled from it
// draws exactly what the Python reference draws from the same generator. The GIL is held
// throughout, as numpy's own methods hold the generator's lock.
struct NumpyBits {
  NumpyBitgen* g;

  explicit NumpyBits(py::handle generator) {
    py::object bit_generator = py::getattr(generator, "bit_generator", py::none());
    if (bit_generator.is_none())
      throw py::type_error("a numpy random Generator is needed (numpy.random.default_rng), not " +
                           std::string(py::str(generator.get_type().attr("__name__"))));
    py::object capsule = bit_generator.attr("capsule");
    g = static_cast<NumpyBitgen*>(PyCapsule_GetPointer(capsule.ptr(), "BitGenerator"));
    if (g == nullptr) throw py::error_already_set();
  }
  uint32_t next_uint32() { return g->next_uint32(g->state); }
  uint64_t next_uint64() { return g->next_uint64(g->state); }
  uint64_t next_raw() { return g->next_raw(g->state); }
};

// ----------------------------------------------------------------------------- the bound classes

// A state together with the configuration it belongs to, so that a state of a 3-seat
// game is refused by a 4-seat one instead of read out of bounds.
template <class G>
struct Boxed {
  typename G::State s;
  uint64_t key;
  int num_seats = 0;  // the configuration, for pickling
  Options options;
};

template <class G>
struct Bound {
  G game;
  uint64_t key;
  std::vector<int> legal;              // scratch for legal actions
  std::vector<std::string> action_names;  // the command words, for messages
  std::vector<py::ssize_t> pad_index;  // observe_padded: where each entry goes
  py::ssize_t pad_size = 0;
  int pad_seats_at = -1;                // observe_padded: the one-hot seat count's entry

  Options options;  // as built (pickling rebuilds the game from them)
  Bound(int num_seats, const Options& options)
      : game(num_seats, options), key(config_key(num_seats, options)), options(options) {}

  // The bits of the numpy Generator last used, kept with a reference to it (so that its
  // address cannot be reused by another while it is cached): a game loop passes the same one.
  py::object cached_generator;
  std::optional<NumpyBits> cached_bits;
  NumpyBits& numpy_bits(py::handle generator) {
    if (!cached_bits || !cached_generator.is(generator)) {
      cached_bits.emplace(generator);
      cached_generator = py::reinterpret_borrow<py::object>(generator);
    }
    return *cached_bits;
  }

  Boxed<G> box(typename G::State s) const { return Boxed<G>{std::move(s), key, game.num_seats(), options}; }

  static uint64_t config_key(int num_seats, const Options& options) {
    uint64_t k = static_cast<uint64_t>(num_seats);
    int bit = 8;
    for (const auto& [name, on] : options) k |= static_cast<uint64_t>(on) << bit++;  // std::map: sorted names
    return k;
  }

  const typename G::State& check(const Boxed<G>& b) const {
    if (b.key != key) throw py::value_error("this state belongs to another configuration of the game");
    return b.s;
  }
  typename G::State& check(Boxed<G>& b) const {
    if (b.key != key) throw py::value_error("this state belongs to another configuration of the game");
    return b.s;
  }
  int check_seat(int seat) const {
    if (seat < 0 || seat >= game.num_seats())
      throw py::value_error("seat " + std::to_string(seat) + " is out of range 0.." +
                            std::to_string(game.num_seats() - 1));
    return seat;
  }

  // Apply a legal action; anything else raises IllegalAction (the reference's message, naming
  // the legal moves) and changes nothing. `action` is a Python object: a whole number that is
  // not a bool, as the reference takes.
  void apply_checked(typename G::State& s, py::handle action) {
    const int mover = game.to_move(s);
    legal.clear();
    if (mover >= 0) game.legal_actions(s, legal);
    if (PyLong_Check(action.ptr()) && !PyBool_Check(action.ptr())) {
      int overflow = 0;
      const long long a = PyLong_AsLongLongAndOverflow(action.ptr(), &overflow);
      if (!overflow)
        for (int l : legal)
          if (l == a) {
            game.apply(s, l);
            return;
          }
    } else if (!PyBool_Check(action.ptr()) && PyIndex_Check(action.ptr())) {  // numpy's integers
      return apply_checked(s, py::reinterpret_steal<py::object>(PyNumber_Index(action.ptr())));
    }
    throw IllegalAction(illegal_message(mover, action));
  }

  std::string illegal_message(int mover, py::handle action) const {
    if (mover == kTerminal) return "the game is over: no move is legal";
    if (mover == kChance) return "a chance outcome is due, not a move";
    std::string what = "action " + std::string(py::repr(action));
    if (PyLong_Check(action.ptr()) && !PyBool_Check(action.ptr())) {
      int overflow = 0;
      const long long a = PyLong_AsLongLongAndOverflow(action.ptr(), &overflow);
      if (!overflow && a >= 0 && a < static_cast<long long>(action_names.size()))
        what = "'" + action_names[a] + "'";
    }
    std::string moves;
    for (int l : legal) {
      if (!moves.empty()) moves += ", ";
      moves += (l < static_cast<int>(action_names.size()) ? action_names[l] : std::to_string(l)) + " (" +
               std::to_string(l) + ")";
    }
    return what + " is not legal for seat " + std::to_string(mover) + " now; legal moves: " + moves;
  }

  // Resolve chance from `bits` until a seat is to move or the game ends.
  template <class Bits>
  int advance(typename G::State& s, Bits& bits) const {
    int mover = game.to_move(s);
    while (mover == kChance) {
      game.apply_chance(s, game.sample_chance(s, bits));
      mover = game.to_move(s);
    }
    return mover;
  }

  // Play s to the end with uniformly random legal moves; the decisions made. `moves` is the
  // caller's scratch (not the game's: this runs without the GIL, perhaps in several threads).
  long long playout(typename G::State& s, Rng& rng, std::vector<int>& moves) const {
    long long decisions = 0;
    for (int mover = advance(s, rng); mover >= 0; mover = advance(s, rng)) {
      moves.clear();
      game.legal_actions(s, moves);
      if (moves.empty()) throw BadState("seat " + std::to_string(mover) + " is to move but has no legal action");
      game.apply(s, moves[rng.below(moves.size())]);
      ++decisions;
    }
    return decisions;
  }
};

inline py::array_t<float> float_array(py::ssize_t size) { return py::array_t<float>(size); }

// ----------------------------------------------------------------------------- the hot path
// The calls a game loop makes at every decision (to_move, legal_actions, apply, advance,
// observe) as plain CPython fastcall functions bound to one game object. pybind11's general
// dispatcher spends about 90 ns on a call (overload resolution, type casters); these take
// about a quarter of that (benchmarks/throughput.py), and check the same things: the argument
// count, the state's type and configuration, the seat. They raise the engine's exceptions.

struct PyErrors {  // the engine's exception classes (module.cpp sets them)
  static inline PyObject* illegal = nullptr;
  static inline PyObject* outcome = nullptr;
  static inline PyObject* state = nullptr;
};

// Run f, turning a C++ exception into the Python one (nullptr then), as pybind11 would.
template <class F>
PyObject* guarded(F&& f) {
  try {
    return f();
  } catch (const IllegalAction& e) {
    PyErr_SetString(PyErrors::illegal, e.what());
  } catch (const BadOutcome& e) {
    PyErr_SetString(PyErrors::outcome, e.what());
  } catch (const BadState& e) {
    PyErr_SetString(PyErrors::state, e.what());
  } catch (const NotEnumerable& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

template <class G>
struct Fast {
  using B = Bound<G>;
  using Box = Boxed<G>;
  static inline PyTypeObject* state_type = nullptr;  // set by bind_game

  static B& game(PyObject* self) {  // self: the game object the functions were made from
    return *static_cast<B*>(reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder().value_ptr());
  }

  // The native state in obj, checked against the game's configuration; nullptr with a
  // Python error set when it is not one.
  static Box* state(PyObject* self, PyObject* obj) {
    if (!PyObject_TypeCheck(obj, state_type)) {
      PyErr_Format(PyExc_TypeError, "%s is not a native state of this game", Py_TYPE(obj)->tp_name);
      return nullptr;
    }
    auto vh = reinterpret_cast<py::detail::instance*>(obj)->get_value_and_holder();
    if (!vh.holder_constructed()) {
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
    b.legal.clear();
    if (b.game.to_move(box->s) >= 0) b.game.legal_actions(box->s, b.legal);
    PyObject* out = PyList_New(static_cast<Py_ssize_t>(b.legal.size()));
    if (!out) return nullptr;
    for (size_t i = 0; i < b.legal.size(); ++i) PyList_SET_ITEM(out, i, PyLong_FromLong(b.legal[i]));
    return out;
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
    const long seat = PyLong_AsLong(args[1]);
    if (seat == -1 && PyErr_Occurred()) return nullptr;
    if (seat < 0 || seat >= b.game.num_seats()) {
      PyErr_Format(PyExc_ValueError, "seat %ld is out of range 0..%d", seat, b.game.num_seats() - 1);
      return nullptr;
    }
    const py::ssize_t size = b.game.observation_size();
    return guarded([&]() -> PyObject* {
      auto out = float_array(size);
      b.game.observe(box->s, static_cast<int>(seat), out.mutable_data());
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
        {"apply", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(apply)), METH_FASTCALL | METH_KEYWORDS,
         "Apply a legal action (checked; an illegal one raises IllegalActionError naming the legal moves)."},
        {"advance", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(advance)), METH_FASTCALL,
         "Resolve chance from a numpy Generator (as the reference draws) or an Rng until a seat is to move."},
        {"observe", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(observe)), METH_FASTCALL,
         "The seat's observation, float32."},
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

// ----------------------------------------------------------------------------- the batched env

// A Batch with the numpy buffers it writes into, kept alive with it.
template <class G>
struct BoundBatch {
  py::object game_object;  // the Bound<G> the batch plays (kept alive)
  uint64_t key;
  std::unique_ptr<Batch<G>> batch;
  py::array_t<float> obs, rewards;
  py::array_t<int8_t> mask;
  py::array_t<int32_t> to_move;
  py::array_t<bool> terminated, truncated, illegal;
  std::vector<std::string> action_names;
  std::mutex stepping;  // one step or reset at a time (they run without the GIL)

  // The batch to itself (waiting, without the GIL, for a step of another thread to end).
  std::unique_lock<std::mutex> lock() {
    std::unique_lock<std::mutex> held(stepping, std::defer_lock);
    py::gil_scoped_release release;
    held.lock();
    return held;
  }

  BatchBuffers buffers() {
    return {obs.mutable_data(), mask.mutable_data(), rewards.mutable_data(), to_move.mutable_data(),
            reinterpret_cast<uint8_t*>(terminated.mutable_data()), reinterpret_cast<uint8_t*>(truncated.mutable_data()),
            reinterpret_cast<uint8_t*>(illegal.mutable_data())};
  }
};

template <class G>
void bind_batch(py::module_& m, const std::string& name) {
  using BB = BoundBatch<G>;
  using B = Bound<G>;
  py::class_<BB>(m, (name + "Batch").c_str(), "Many games of one configuration stepped in the core (tablezoo.envs.batched).")
      .def(py::init([](py::object game_object, int num_envs, uint64_t seed, int num_threads, bool padded,
                       bool score_reward, int max_cycles, int learner, std::vector<int> bots, bool forfeit,
                       float illegal_reward) {
             B& b = game_object.cast<B&>();
             const int n = b.game.num_seats();
             if (num_envs < 1 || num_envs > 1000000) throw py::value_error("num_envs must be 1..1000000");
             if (num_threads < 1 || num_threads > 256) throw py::value_error("num_threads must be 1..256");
             if (max_cycles < 0) throw py::value_error("max_cycles must be 0 (no cap) or positive");
             if (learner < -2 || learner >= n) throw py::value_error("learner must be a seat, -1 (self-play) or -2 (drawn)");
             if (learner != -1) {
               if (static_cast<int>(bots.size()) != n) throw py::value_error("one bot per seat");
               for (int k : bots) {
                 if (k != static_cast<int>(BotKind::kRandom) && k != static_cast<int>(BotKind::kHeuristic))
                   throw py::value_error("a bot is 0 (random) or 1 (heuristic)");
                 if (k == static_cast<int>(BotKind::kHeuristic) && !HeuristicOf<G>::exists)
                   throw py::value_error("this game has no native heuristic bot yet");
               }
             }
             if (padded && b.pad_size == 0) throw py::value_error("set_padding first");
             BatchConfig config{num_envs, seed, num_threads, padded, score_reward, max_cycles, learner, bots, forfeit, illegal_reward};
             std::vector<int> pad(b.pad_index.begin(), b.pad_index.end());
             auto bb = std::make_unique<BB>();
             bb->game_object = game_object;
             bb->key = b.key;
             bb->action_names = b.action_names;
             bb->batch = std::make_unique<Batch<G>>(b.game, config, pad, static_cast<int>(b.pad_size), b.pad_seats_at);
             const py::ssize_t N = num_envs;
             bb->obs = py::array_t<float>({N, static_cast<py::ssize_t>(bb->batch->obs_size())});
             bb->mask = py::array_t<int8_t>({N, static_cast<py::ssize_t>(b.game.num_actions())});
             if (learner == -1)
               bb->rewards = py::array_t<float>({N, static_cast<py::ssize_t>(n)});
             else
               bb->rewards = py::array_t<float>(N);
             bb->to_move = py::array_t<int32_t>(N);
             bb->terminated = py::array_t<bool>(N);
             bb->truncated = py::array_t<bool>(N);
             bb->illegal = py::array_t<bool>(N);
             return bb;
           }),
           py::arg("game"), py::arg("num_envs"), py::arg("seed"), py::arg("num_threads"), py::arg("padded"),
           py::arg("score_reward"), py::arg("max_cycles"), py::arg("learner"), py::arg("bots"), py::arg("forfeit"),
           py::arg("illegal_reward"))
      .def_readonly("obs", &BB::obs)
      .def_readonly("mask", &BB::mask)
      .def_readonly("rewards", &BB::rewards)
      .def_readonly("to_move", &BB::to_move)
      .def_readonly("terminated", &BB::terminated)
      .def_readonly("truncated", &BB::truncated)
      .def_readonly("illegal", &BB::illegal)
      .def("reset", [](BB& bb) {
        auto one_at_a_time = bb.lock();
        auto buffers = bb.buffers();
        py::gil_scoped_release release;
        bb.batch->reset(buffers);
      }, "Start every game anew from the seed; writes the first decisions into the buffers.")
      .def("step", [](BB& bb, py::array actions_in) {
        const py::ssize_t N = bb.batch->num_envs();
        if (actions_in.ndim() != 1 || actions_in.shape(0) != N)
          throw py::value_error("actions must be a 1-d array of " + std::to_string(N) + " whole numbers, not shape " +
                                std::string(py::str(actions_in.attr("shape"))));
        if (actions_in.dtype().kind() != 'i' && actions_in.dtype().kind() != 'u')
          throw py::type_error("actions must be whole numbers, not dtype " + std::string(py::str(actions_in.dtype())));
        auto actions = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(actions_in);
        if (!actions) throw py::type_error("actions cannot be read as int64");
        auto one_at_a_time = bb.lock();
        const int bad = bb.batch->first_illegal(actions.data());
        if (bad >= 0) {
          const int mover = bb.batch->mover(bad);
          std::string moves;
          for (int l : bb.batch->legal_actions(bad)) {
            if (!moves.empty()) moves += ", ";
            moves += bb.action_names[l] + " (" + std::to_string(l) + ")";
          }
          throw IllegalAction("game " + std::to_string(bad) + ": action " + std::to_string(actions.data()[bad]) +
                              " is not legal for seat " + std::to_string(mover) + " now; legal moves: " + moves +
                              " (nothing was applied)");
        }
        auto buffers = bb.buffers();
        const int64_t* data = actions.data();
        py::gil_scoped_release release;
        bb.batch->step(data, buffers);
      }, py::arg("actions"), "Apply one action per game (the seat to move's) and write the next decisions.")
      .def("state", [](BB& bb, int i) {
        if (i < 0 || i >= bb.batch->num_envs()) throw py::value_error("no game " + std::to_string(i));
        auto lock = bb.lock();
        return bb.game_object.template cast<const Bound<G>&>().box(bb.batch->state(i));
      }, "A copy of game i's state (a native state of the game).")
      .def("learner", [](BB& bb, int i) {
        if (i < 0 || i >= bb.batch->num_envs()) throw py::value_error("no game " + std::to_string(i));
        auto lock = bb.lock();
        return bb.batch->learner_of(i);
      }, "The learner's seat in game i's current episode.")
      .def_property_readonly("has_heuristic", [](const BB&) { return HeuristicOf<G>::exists; });
}

// ----------------------------------------------------------------------------- native ports of bots

// A game's native ports of its Python bots are its heuristic (HeuristicPort, where the game
// has a native Heuristic) and the types its nested `Ports` lists (a std::tuple). A port P
// reads like its Python twin, which stays the reference, and has:
//
//   static constexpr const char* name;  // the Python bot's name (make_bot's)
//   void reset();                       // a new game: forget what was kept
//   int act(const G&, const State&, int seat, Rng&);  // the move of the seat to move
//
// and, where its twin values moves (search and solver bots, for expert iteration's targets):
//
//   void action_values(const G&, const State&, int seat, Rng&, std::vector<double>& out);
//                                       // the value of each legal move, in legal_actions' order
//
// A port is given the whole state and reads only what `seat` may know (a hidden-information
// bot plans on the game's determinize(s, seat, rng)), as its twin reads only a Seat. Its
// randomness is the Rng it is passed, the bot's own. bind_ports binds each as the Python class
// `<Game><Name>` (HeckmeckSolver), built from the native game and a seed; the game class's
// `ports` maps each name to its class.
template <class G, class = void>
struct ports_of {
  using type = std::tuple<>;
};
template <class G>
struct ports_of<G, std::void_t<typename G::Ports>> {
  using type = typename G::Ports;
};

// The game's native heuristic as a port (one fresh memory per bot).
template <class G>
struct HeuristicPort {
  static constexpr const char* name = "heuristic";
  HeuristicOf<G> bot;
  void reset() { bot.reset(); }
  int act(const G& game, const typename G::State& s, int seat, Rng& rng) { return bot.act(game, s, seat, rng); }
};

template <class G>
using PortsOf = decltype(std::tuple_cat(
    std::conditional_t<HeuristicOf<G>::exists, std::tuple<HeuristicPort<G>>, std::tuple<>>{},
    typename ports_of<G>::type{}));

// Whether port P values moves (has action_values).
template <class P, class = void>
struct values_moves : std::false_type {};
template <class P>
struct values_moves<P, std::void_t<decltype(&P::action_values)>> : std::true_type {};

// A port with the game it plays (kept alive), its randomness and its scratch.
template <class G, class P>
struct BoundPort {
  py::object game_object;  // the Bound<G>
  P port;
  Rng rng;
  std::vector<double> values;

  Bound<G>& bound() const { return game_object.cast<Bound<G>&>(); }

  // The state of a decision of this game's configuration, or a Python error that says why not.
  const typename G::State& decision(py::handle state) const {
    if (!py::isinstance<Boxed<G>>(state))
      throw py::type_error(std::string(py::str(state.get_type().attr("__name__"))) +
                           " is not a native state of this game");
    const auto& s = bound().check(state.cast<const Boxed<G>&>());
    const int mover = bound().game.to_move(s);
    if (mover == kTerminal) throw py::value_error("the game is over: no seat is to move");
    if (mover == kChance) throw py::value_error("a chance outcome is due: no seat is to move");
    return s;
  }
};

template <class G, class P>
void bind_port(py::module_& m, const std::string& game_name, py::dict& classes) {
  using BP = BoundPort<G, P>;
  std::string title = P::name;
  title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  const std::string doc = "The native port of " + game_name + "'s Python bot '" + P::name + "'.";
  py::class_<BP> cls(m, (game_name + title).c_str(), doc.c_str());
  cls.def(py::init([](py::object game_object, uint64_t seed) {
           if (!py::isinstance<Bound<G>>(game_object))
             throw py::type_error("a native " + std::string(py::str(py::type::of<Bound<G>>().attr("__name__"))) +
                                  " game is needed, not " +
                                  std::string(py::str(game_object.get_type().attr("__name__"))));
           return BP{game_object, P{}, Rng(seed), {}};
         }),
         py::arg("game"), py::arg("seed") = 0)
      .def_property_readonly_static("name", [](py::handle) { return P::name; })
      .def_property_readonly_static("values_moves", [](py::handle) { return values_moves<P>::value; })
      .def("__copy__", [](const BP& bp) { return BP(bp); })
      .def("__deepcopy__", [](const BP& bp, py::handle) { return BP(bp); }, py::arg("memo"))
      .def("reset", [](BP& bp, std::optional<uint64_t> seed) {
        bp.port.reset();
        if (seed) bp.rng.reseed(*seed);
      }, py::arg("seed") = py::none(), "A new game: forget what was kept (and reseed the bot's randomness, given a seed).")
      .def("act", [](BP& bp, py::handle state) {
        const auto& s = bp.decision(state);
        return bp.port.act(bp.bound().game, s, bp.bound().game.to_move(s), bp.rng);
      }, py::arg("state"), "The move of the seat to move.");
  if constexpr (values_moves<P>::value)
    cls.def("action_values", [](BP& bp, py::handle state) {
      const auto& s = bp.decision(state);
      bp.port.action_values(bp.bound().game, s, bp.bound().game.to_move(s), bp.rng, bp.values);
      return bp.values;
    }, py::arg("state"), "The value of each legal move, in legal_actions' order.");
  classes[P::name] = cls;
}

template <class G, size_t... I>
py::dict bind_ports(py::module_& m, const std::string& game_name, std::index_sequence<I...>) {
  py::dict classes;
  (bind_port<G, std::tuple_element_t<I, PortsOf<G>>>(m, game_name, classes), ...);
  return classes;
}

// ----------------------------------------------------------------------------- the network and the search

// `value` as a float32 array of `ndim` dimensions (any array of numbers is converted), or a
// Python error naming `what` and what it should be.
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

inline std::string shape_text(const py::array& a) { return std::string(py::str(a.attr("shape"))); }

inline FloatArray float_input(py::handle value, int ndim, const std::string& what) {
  FloatArray a = FloatArray::ensure(value);
  if (!a)
    throw py::type_error(what + " should be an array of numbers, not " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  if (a.ndim() != ndim)
    throw py::value_error(what + " should have " + std::to_string(ndim) + " dimension" + (ndim > 1 ? "s" : "") +
                          ", not shape " + shape_text(a));
  return a;
}

inline void require_shape(const FloatArray& a, std::vector<py::ssize_t> shape, const std::string& what,
                          const std::string& why) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (a.shape(static_cast<py::ssize_t>(d)) != shape[d]) {
      std::string want = "(";
      for (size_t k = 0; k < shape.size(); ++k) want += (k ? ", " : "") + std::to_string(shape[k]);
      want += shape.size() == 1 ? ",)" : ")";
      throw py::value_error(what + " has shape " + shape_text(a) + ", not " + want + ": " + why);
    }
}

inline std::vector<float> floats(const FloatArray& a) { return std::vector<float>(a.data(), a.data() + a.size()); }

// tablezoo.bots.net.PolicyValueNet from its arrays (as the .npz holds them), every shape checked.
inline std::shared_ptr<PolicyValueNet> make_net(const py::sequence& weights, const py::sequence& biases,
                                                py::handle value_w, py::handle value_b, py::handle scale_in,
                                                py::handle head_in, const std::string& activation, bool padded) {
  if (activation != "relu" && activation != "tanh")
    throw py::value_error("activation is 'relu' or 'tanh', not '" + activation + "'");
  const FloatArray scale = float_input(scale_in, 1, "scale");
  if (scale.size() < 1) throw py::value_error("scale needs one entry per observation entry, not none");
  const size_t layers = weights.size();
  if (layers < 1 || biases.size() != layers)
    throw py::value_error("a network needs one bias per weight matrix and at least one layer: got " +
                          std::to_string(layers) + " weights and " + std::to_string(biases.size()) + " biases");
  std::vector<std::vector<float>> w, b;
  std::vector<std::pair<int, int>> shapes;
  py::ssize_t width = scale.size();  // what the next layer reads
  std::vector<py::ssize_t> widths;
  for (size_t l = 0; l < layers; ++l) {
    const std::string name = "w" + std::to_string(l), bias = "b" + std::to_string(l);
    const FloatArray wl = float_input(weights[l], 2, name);
    if (wl.shape(0) < 1) throw py::value_error(name + " has shape " + shape_text(wl) + ": a layer has an output");
    require_shape(wl, {wl.shape(0), width}, name, "it reads " + std::to_string(width) + " inputs");
    const FloatArray bl = float_input(biases[l], 1, bias);
    require_shape(bl, {wl.shape(0)}, bias, "one per output of " + name);
    w.push_back(floats(wl));
    b.push_back(floats(bl));
    shapes.emplace_back(static_cast<int>(wl.shape(0)), static_cast<int>(wl.shape(1)));
    width = wl.shape(0);
    widths.push_back(width);
  }
  std::optional<ActionHead> head;
  const int hidden = static_cast<int>(layers) - (head_in.is_none() ? 1 : 0);
  const py::ssize_t context = hidden > 0 ? widths[hidden - 1] : scale.size();  // what the heads read
  if (!head_in.is_none()) {
    if (!py::isinstance<py::dict>(head_in))
      throw py::type_error("head is None or a dict of the ActionHead's arrays and size");
    py::dict d = py::reinterpret_borrow<py::dict>(head_in);
    for (const char* key : {"offsets", "size", "card", "context", "bias", "out", "out_bias", "rest", "rest_bias"})
      if (!d.contains(key)) throw py::value_error(std::string("head has no '") + key + "'");
    ActionHead h;
    py::handle size_in = d["size"];
    if (!PyLong_Check(size_in.ptr()) && !PyIndex_Check(size_in.ptr()))
      throw py::type_error("head size is a whole number, not " + std::string(py::repr(size_in)));
    const long long size = PyNumber_AsSsize_t(size_in.ptr(), nullptr);
    if (size < 1 || size > scale.size())
      throw py::value_error("head size is 1.." + std::to_string(scale.size()) + ", not " + std::to_string(size));
    h.size = static_cast<int>(size);
    auto offsets = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(d["offsets"]);
    if (!offsets || offsets.ndim() != 1 || offsets.size() < 1)
      throw py::value_error("head offsets are a 1-d array of whole numbers, one per action field");
    for (py::ssize_t f = 0; f < offsets.size(); ++f) {
      const int64_t at = offsets.data()[f];
      if (at < 0 || at + size > scale.size())
        throw py::value_error("head offsets[" + std::to_string(f) + "] is " + std::to_string(at) + ": a field of " +
                              std::to_string(size) + " entries starts at 0.." + std::to_string(scale.size() - size));
      h.offsets.push_back(static_cast<int>(at));
    }
    const py::ssize_t fields = offsets.size();
    const FloatArray card = float_input(d["card"], 2, "head card");
    if (card.shape(0) < 1) throw py::value_error("head card has shape " + shape_text(card) + ": no hidden unit");
    const py::ssize_t units = card.shape(0);
    require_shape(card, {units, fields + 1}, "head card", "one weight per action field and the position");
    const FloatArray ctx = float_input(d["context"], 2, "head context");
    require_shape(ctx, {units, context}, "head context", "it reads the last hidden layer");
    const FloatArray hb = float_input(d["bias"], 1, "head bias");
    require_shape(hb, {units}, "head bias", "one per hidden unit");
    const FloatArray out = float_input(d["out"], 1, "head out");
    require_shape(out, {units}, "head out", "one per hidden unit");
    const FloatArray out_bias = float_input(d["out_bias"], 1, "head out_bias");
    require_shape(out_bias, {1}, "head out_bias", "one score's bias");
    const FloatArray rest = float_input(d["rest"], 2, "head rest");
    require_shape(rest, {rest.shape(0), context}, "head rest", "it reads the last hidden layer");
    const FloatArray rest_bias = float_input(d["rest_bias"], 1, "head rest_bias");
    require_shape(rest_bias, {rest.shape(0)}, "head rest_bias", "one per row of head rest");
    h.hidden = static_cast<int>(units);
    h.card = floats(card);
    h.bias = floats(hb);
    h.out = floats(out);
    h.out_bias = out_bias.data()[0];
    h.rest_bias = floats(rest_bias);
    h.context_t.resize(static_cast<size_t>(context) * units);
    for (py::ssize_t u = 0; u < units; ++u)
      for (py::ssize_t g = 0; g < context; ++g) h.context_t[g * units + u] = ctx.data()[u * context + g];
    const py::ssize_t others = rest.shape(0);
    h.rest_t.resize(static_cast<size_t>(context) * others);
    for (py::ssize_t a = 0; a < others; ++a)
      for (py::ssize_t g = 0; g < context; ++g) h.rest_t[g * others + a] = rest.data()[a * context + g];
    head = std::move(h);
  }
  if (value_w.is_none() != value_b.is_none()) throw py::value_error("a value head needs both value_w and value_b");
  const bool has_value = !value_w.is_none();
  if (has_value && !head && layers < 2)
    throw py::value_error("a network with a value head needs hidden layers and the policy layer");
  std::vector<float> vw;
  float vb = 0.0f;
  if (has_value) {
    const FloatArray v = float_input(value_w, 1, "value_w");
    require_shape(v, {context}, "value_w", "it reads the last hidden layer");
    vw = floats(v);
    const FloatArray c = float_input(value_b, 1, "value_b");
    require_shape(c, {1}, "value_b", "the value head's one bias");
    vb = c.data()[0];
  }
  return std::make_shared<PolicyValueNet>(w, shapes, b, std::move(vw), vb, has_value, floats(scale), std::move(head),
                                          activation == "relu" ? Activation::kRelu : Activation::kTanh, padded);
}

// The native network as the Python class tablezoo.games._native.PolicyValueNet (built by
// tablezoo.bots.native.native_net from a tablezoo.bots.net.PolicyValueNet).
inline void bind_net(py::module_& m) {
  py::class_<PolicyValueNet, std::shared_ptr<PolicyValueNet>>(
      m, "PolicyValueNet", "The forward pass of tablezoo.bots.net.PolicyValueNet in the core, from the same arrays.")
      .def(py::init(&make_net), py::arg("weights"), py::arg("biases"), py::arg("value_w"), py::arg("value_b"),
           py::arg("scale"), py::arg("head"), py::arg("activation"), py::arg("padded"))
      .def_property_readonly("observation_size", &PolicyValueNet::observation_size)
      .def_property_readonly("num_actions", &PolicyValueNet::num_actions)
      .def_property_readonly("has_value_head", &PolicyValueNet::has_value_head)
      .def_property_readonly("padded", &PolicyValueNet::padded)
      .def("evaluate", [](const PolicyValueNet& net, py::handle x_in) {
        const FloatArray x = float_input(x_in, 1, "the observation");
        require_shape(x, {net.observation_size()}, "the observation", "the network reads that many entries");
        py::array_t<float> logits(net.num_actions());
        PolicyValueNet::Work work;
        const double value = net.evaluate(x.data(), logits.mutable_data(), work);
        return py::make_tuple(logits, value);
      }, py::arg("x"), "Logits and win share of one observation (PolicyValueNet.evaluate; 0 without a value head).");
}

// AgentBot's search on this game, a port (BoundPort) built from the game, a native network and
// the search's settings: bound as `<Game>AgentSearch`, the game class's `agent_search` (None
// where the game does not determinise in the core).
template <class G>
py::object bind_search(py::module_& m, const std::string& game_name) {
  if constexpr (!determinizes<G>::value) {
    return py::none();
  } else {
    using BP = BoundPort<G, AgentSearch<G>>;
    const std::string doc = "The native search of " + game_name + " (tablezoo.bots.search.AgentBot's).";
    py::class_<BP> cls(m, (game_name + "AgentSearch").c_str(), doc.c_str());
    cls.def(py::init([](py::object game_object, std::shared_ptr<PolicyValueNet> net, int simulations, double c_puct,
                        int horizon, uint64_t seed) {
             if (!py::isinstance<Bound<G>>(game_object))
               throw py::type_error("a native " + std::string(py::str(py::type::of<Bound<G>>().attr("__name__"))) +
                                    " game is needed, not " +
                                    std::string(py::str(game_object.get_type().attr("__name__"))));
             if (!net) throw py::type_error("a native PolicyValueNet is needed, not None");
             const Bound<G>& b = game_object.cast<const Bound<G>&>();
             if (!net->has_value_head()) throw py::value_error("a policy without a value head cannot guide a search");
             if (simulations < 1 || simulations > 10000000)
               throw py::value_error("simulations are 1..10000000, not " + std::to_string(simulations));
             if (!(c_puct > 0 && c_puct < 1e9)) throw py::value_error("c_puct is above 0, not " + std::to_string(c_puct));
             if (horizon < 0 || horizon > 1000000)
               throw py::value_error("horizon is 0 (two rounds of the others) to 1000000, not " + std::to_string(horizon));
             Reading reading;
             if (net->padded()) {
               if (b.pad_size == 0) throw py::value_error("set_padding first: the network reads the padded observation");
               reading.index.assign(b.pad_index.begin(), b.pad_index.end());
               reading.size = static_cast<int>(b.pad_size);
               reading.seats_at = b.pad_seats_at;
             }
             const int size = net->padded() ? reading.size : b.game.observation_size();
             if (net->observation_size() != size || net->num_actions() != b.game.num_actions())
               throw py::value_error("the network reads observations of " + std::to_string(net->observation_size()) +
                                     " entries and gives " + std::to_string(net->num_actions()) + " logits; this game's " +
                                     (net->padded() ? "padded " : "") + "observation has " + std::to_string(size) +
                                     " entries and " + std::to_string(b.game.num_actions()) + " actions");
             return BP{game_object, AgentSearch<G>(std::move(net), std::move(reading), simulations, c_puct, horizon),
                       Rng(seed), {}};
           }),
           py::arg("game"), py::arg("net"), py::arg("simulations"), py::arg("c_puct") = 1.5, py::arg("horizon") = 0,
           py::arg("seed") = 0)
        .def("__copy__", [](const BP& bp) { return BP(bp); })
        .def("__deepcopy__", [](const BP& bp, py::handle) { return BP(bp); }, py::arg("memo"))
        .def("reset", [](BP& bp, std::optional<uint64_t> seed) {
          bp.port.reset();
          if (seed) bp.rng.reseed(*seed);
        }, py::arg("seed") = py::none(), "A new game (and reseed the search's randomness, given a seed).")
        .def("act", [](BP& bp, py::handle state) {
          const auto& s = bp.decision(state);
          return bp.port.act(bp.bound().game, s, bp.bound().game.to_move(s), bp.rng);
        }, py::arg("state"), "The search's move for the seat to move.")
        .def("root", [](BP& bp, py::handle state, double noise, double dirichlet_alpha) {
          if (!(noise >= 0.0 && noise <= 1.0)) throw py::value_error("noise is a weight, 0 to 1, not " + std::to_string(noise));
          if (!(dirichlet_alpha > 0.0 && dirichlet_alpha < 1e6))
            throw py::value_error("dirichlet_alpha is above 0, not " + std::to_string(dirichlet_alpha));
          const auto& s = bp.decision(state);
          const auto& root = bp.port.search(bp.bound().game, s, bp.bound().game.to_move(s), bp.rng, noise, dirichlet_alpha);
          return py::make_tuple(root.legal, root.prior, root.visits);
        }, py::arg("state"), py::arg("noise") = 0.0, py::arg("dirichlet_alpha") = 0.3,
        "The searched root of the seat to move: its legal moves, priors (noise mixed in) and visits.");
    return cls;
  }
}

template <class G>
void bind_game(py::module_& m, const char* name) {
  using State = typename G::State;
  using Box = Boxed<G>;
  using B = Bound<G>;
  const std::string state_name = std::string(name) + "State";

  auto state_class = py::class_<Box>(m, state_name.c_str(), "A native state; its fields read as the Python dataclass's.");
  std::apply([&](auto... ref) {
    (state_class.def_property_readonly(ref.name, [ref](const Box& b) { return to_python(b.s.*(ref.member)); }), ...);
  }, State::fields());
  state_class
      .def("to_fields", [](const Box& b) { return to_python(b.s); }, "The state's fields as a dict (the dataclass's __dict__).")
      .def(py::pickle(
          [](const Box& b) { return py::make_tuple(b.num_seats, b.options, to_python(b.s)); },
          [](const py::tuple& t) {  // rebuilt and checked as a state read from JSON
            if (t.size() != 3) throw BadState("a pickled state is (num_seats, options, fields)");
            const int n = t[0].cast<int>();
            const Options options = t[1].cast<Options>();
            Bound<G> game(n, options);
            Box box{State{}, game.key, n, options};
            read_value(t[2], box.s, "");
            game.game.validate(box.s);
            return box;
          }))
      .def("__copy__", [](const Box& b) { return Box(b); })
      .def("__deepcopy__", [](const Box& b, py::handle) { return Box(b); }, py::arg("memo"))
      .def("__eq__", [](const Box& a, py::handle other) {
        if (!py::isinstance<Box>(other)) return false;
        const Box& b = other.cast<const Box&>();
        return a.key == b.key && to_python(a.s).equal(to_python(b.s));
      })
      .def("__repr__", [state_name](const Box& b) { return state_name + "(" + std::string(py::repr(to_python(b.s))) + ")"; });
  state_class.attr("__hash__") = py::none();

  Fast<G>::state_type = reinterpret_cast<PyTypeObject*>(state_class.ptr());
  py::class_<B> game_class(m, name);
  game_class
      .def(py::init<int, const Options&>(), py::arg("num_seats"), py::arg("options"))
      .def(py::pickle([](const B& b) { return py::make_tuple(b.game.num_seats(), b.options); },
                      [](const py::tuple& t) { return B(t[0].cast<int>(), t[1].cast<Options>()); }))
      .def("fast_methods", [](py::handle self) { return Fast<G>::methods(self); },
           "to_move, legal_actions, apply, advance and observe as fastcall functions bound to this game.")
      .def_property_readonly("num_seats", [](const B& b) { return b.game.num_seats(); })
      .def_property_readonly("num_actions", [](const B& b) { return b.game.num_actions(); })
      .def_property_readonly("observation_size", [](const B& b) { return b.game.observation_size(); })
      .def("initial_state", [](const B& b) { return b.box(b.game.initial_state()); })
      .def("to_move", [](const B& b, const Box& s) { return b.game.to_move(b.check(s)); })
      .def("is_terminal", [](const B& b, const Box& s) { return b.game.to_move(b.check(s)) == kTerminal; })
      .def("legal_actions", [](B& b, const Box& box) {
        const State& s = b.check(box);
        b.legal.clear();
        if (b.game.to_move(s) >= 0) b.game.legal_actions(s, b.legal);
        py::list out(b.legal.size());
        for (size_t i = 0; i < b.legal.size(); ++i) out[i] = py::int_(b.legal[i]);
        return out;
      })
      .def("legal_mask", [](B& b, const Box& box) {
        const State& s = b.check(box);
        py::array_t<int8_t> mask(b.game.num_actions());
        std::memset(mask.mutable_data(), 0, b.game.num_actions());
        b.legal.clear();
        if (b.game.to_move(s) >= 0) b.game.legal_actions(s, b.legal);
        for (int a : b.legal) mask.mutable_data()[a] = 1;
        return mask;
      })
      .def("apply", [](B& b, Box& box, py::handle action, bool, py::handle) { b.apply_checked(b.check(box), action); },
           py::arg("state"), py::arg("action"), py::kw_only(), py::arg("check") = true, py::arg("legal") = py::none(),
           "Apply a legal action; an illegal one raises IllegalActionError naming the legal moves and changes "
           "nothing. The core checks every action (check and legal are taken for the contract's sake).")
      .def("set_action_names", [](B& b, std::vector<std::string> names) {
        if (static_cast<int>(names.size()) != b.game.num_actions()) throw py::value_error("one name per action");
        b.action_names = std::move(names);
      })
      .def("chance_outcomes", [](const B& b, const Box& box) {
        const State& s = b.check(box);
        if (b.game.to_move(s) != kChance) throw BadOutcome("no chance outcome is due: a seat is to move or the game is over");
        py::list out;
        for (const auto& [outcome, p] : b.game.chance_outcomes(s)) out.append(py::make_tuple(to_python(outcome), p));
        return out;
      })
      .def("apply_chance", [](const B& b, Box& box, py::handle outcome) {
        State& s = b.check(box);
        if (b.game.to_move(s) != kChance) throw BadOutcome("no chance outcome is due: a seat is to move or the game is over");
        typename G::Outcome o{};
        try {
          read_value(outcome, o, "the outcome");
        } catch (const BadState& e) {
          throw BadOutcome(e.what());
        }
        b.game.check_outcome(s, o);
        b.game.apply_chance(s, o);
      }, "Apply a chance outcome (in the Python engine's normalised form), checked.")
      .def("sample_chance", [](const B& b, const Box& box, py::handle rng) {
        const State& s = b.check(box);
        if (b.game.to_move(s) != kChance) throw BadOutcome("no chance outcome is due: a seat is to move or the game is over");
        if (py::isinstance<Rng>(rng)) return to_python(b.game.sample_chance(s, rng.cast<Rng&>()));
        NumpyBits bits(rng);
        return to_python(b.game.sample_chance(s, bits));
      }, "Draw the chance node's outcome from a numpy Generator (as the reference draws it) or an Rng.")
      .def("advance", [](B& b, Box& box, py::handle rng) {
        State& s = b.check(box);
        if (py::isinstance<Rng>(rng)) return b.advance(s, rng.cast<Rng&>());
        return b.advance(s, b.numpy_bits(rng));
      }, "Resolve chance from a numpy Generator (as the reference) or an Rng until a seat is to move or the game ends.")
      .def("playout", [](B& b, Box& box, Rng& rng) {
        std::vector<int> moves;
        return b.playout(b.check(box), rng, moves);
      }, "Play the state to its end with random legal moves; the decisions made.")
      .def("random_games", [](const B& b, long long games, Rng& shared) {
        // Without the GIL: everything written here is this call's own (the generator too,
        // copied in and back), so calls from several threads at once are safe.
        Rng rng = shared;
        long long decisions = 0;
        {
          py::gil_scoped_release release;
          const State start = b.game.initial_state();
          State s = start;
          std::vector<int> moves;
          for (long long g = 0; g < games; ++g) {
            s = start;  // a copy into the same state: its lists keep their room, nothing is allocated
            decisions += b.playout(s, rng, moves);
          }
        }
        shared = rng;
        return decisions;
      }, "Play whole games with random legal moves inside the core; the decisions made.")
      .def("observe", [](const B& b, const Box& box, int seat) {
        const State& s = b.check(box);
        auto out = float_array(b.game.observation_size());
        b.game.observe(s, b.check_seat(seat), out.mutable_data());
        return out;
      })
      .def("observe_into", [](const B& b, const Box& box, int seat, py::array_t<float, 0> out) {
        const State& s = b.check(box);
        b.check_seat(seat);
        if (out.ndim() != 1 || out.shape(0) != b.game.observation_size() || !(out.flags() & py::array::c_style) ||
            !out.writeable())
          throw py::value_error("out must be a writable C-contiguous float32 array of shape (" +
                                std::to_string(b.game.observation_size()) + ",)");
        b.game.observe(s, seat, out.mutable_data());
      }, py::arg("state"), py::arg("seat"), py::arg("out").noconvert())
      .def("observe_batch", [](const B& b, const py::sequence& states, const py::sequence& seats) {
        const py::ssize_t n = static_cast<py::ssize_t>(states.size());
        if (static_cast<py::ssize_t>(seats.size()) != n)
          throw py::value_error("observe_batch needs one seat per state: got " + std::to_string(n) + " states and " +
                                std::to_string(seats.size()) + " seats");
        const py::ssize_t size = b.game.observation_size();
        py::array_t<float> out({n, size});
        float* data = out.mutable_data();
        for (py::ssize_t i = 0; i < n; ++i) {
          py::handle seat_obj = seats[i];
          if (PyBool_Check(seat_obj.ptr()) || !PyIndex_Check(seat_obj.ptr()))
            throw py::value_error("seat " + std::string(py::repr(seat_obj)) + " is not a seat number 0.." +
                                  std::to_string(b.game.num_seats() - 1));
          const long long seat = PyNumber_AsSsize_t(seat_obj.ptr(), nullptr);
          if (seat < 0 || seat >= b.game.num_seats())
            throw py::value_error("seat " + std::to_string(seat) + " is out of range 0.." + std::to_string(b.game.num_seats() - 1));
          py::handle state = states[i];
          if (!py::isinstance<Box>(state))
            throw py::type_error("states[" + std::to_string(i) + "] is a " + std::string(py::str(state.get_type().attr("__name__"))) +
                                 ", not a native state of this game");
          const Box& box = state.template cast<const Box&>();
          b.game.observe(b.check(box), static_cast<int>(seat), data + i * size);
        }
        return out;
      })
      .def("set_padding", [](B& b, py::array_t<py::ssize_t, py::array::c_style | py::array::forcecast> index,
                             py::ssize_t size, int seats_at) {
        if (index.ndim() != 1 || index.shape(0) != b.game.observation_size())
          throw py::value_error("the padding index needs one entry per observation entry");
        for (py::ssize_t i = 0; i < index.shape(0); ++i)
          if (index.data()[i] < 0 || index.data()[i] >= size) throw py::value_error("padding index out of range");
        if (seats_at < 0 || seats_at >= size) throw py::value_error("seat-count entry out of range");
        b.pad_index.assign(index.data(), index.data() + index.shape(0));
        b.pad_size = size;
        b.pad_seats_at = seats_at;
      }, "Where each entry of observe goes in observe_padded (Game._padded_index).")
      .def("observe_padded", [](const B& b, const Box& box, int seat) {
        const State& s = b.check(box);
        if (b.pad_size == 0) throw py::value_error("set_padding first");
        std::vector<float> plain(b.game.observation_size());
        b.game.observe(s, b.check_seat(seat), plain.data());
        py::array_t<float> out(b.pad_size);
        float* data = out.mutable_data();
        std::fill(data, data + b.pad_size, 0.0f);
        for (size_t i = 0; i < plain.size(); ++i) data[b.pad_index[i]] = plain[i];
        data[b.pad_seats_at] = 1.0f;
        return out;
      })
      .def("scores", [](const B& b, const Box& box) { return b.game.scores(b.check(box)); })
      .def("winners", [](const B& b, const Box& box) {
        const State& s = b.check(box);
        if (b.game.to_move(s) != kTerminal) throw py::value_error("winners are known only when the game is over");
        return b.game.winners(s);
      })
      .def("clone", [](const B& b, const Box& box) { return b.box(b.check(box)); })
      .def_property_readonly_static("has_heuristic", [](py::handle) { return HeuristicOf<G>::exists; })
      .def("heuristic", [](B& b, const Box& box, Rng& rng) {
        const State& s = b.check(box);
        if (!HeuristicOf<G>::exists) throw py::value_error("this game has no native heuristic bot yet");
        const int mover = b.game.to_move(s);
        if (mover < 0) throw py::value_error("no seat is to move");
        HeuristicOf<G> bot;
        return bot.act(b.game, s, mover, rng);
      }, "The native heuristic bot's move for the seat to move (a fresh bot: no memory of earlier moves).")
      .def("state_from_fields", [](const B& b, py::handle fields) {
        Box box = b.box(State{});
        read_value(fields, box.s, "");
        b.game.validate(box.s);
        return box;
      }, "A state from its fields (the dataclass's __dict__), checked; a malformed one raises StateError.");
  game_class.attr("ports") = bind_ports<G>(m, name, std::make_index_sequence<std::tuple_size_v<PortsOf<G>>>{});
  if constexpr (determinizes<G>::value)
    game_class.def("determinize", [](const B& b, const Box& box, int seat, py::handle rng) {
      const State& s = b.check(box);
      Box out = b.box(State{});
      if (py::isinstance<Rng>(rng)) {
        b.game.determinize(s, b.check_seat(seat), rng.cast<Rng&>(), out.s);
      } else {
        NumpyBits bits(rng);
        b.game.determinize(s, b.check_seat(seat), bits, out.s);
      }
      return out;
    }, py::arg("state"), py::arg("seat"), py::arg("rng"),
       "A state consistent with what the seat knows, the rest drawn anew: from a numpy Generator as the "
       "Python game's determinize draws it, or from an Rng as the native search draws its own.");
  game_class.attr("agent_search") = bind_search<G>(m, name);
  bind_batch<G>(m, name);
}

}  // namespace tablezoo
