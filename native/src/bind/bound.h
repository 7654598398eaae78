// The bound classes every game shares: a state boxed with its configuration, and the game
// with its scratch, its action check and its game loop.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <climits>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checked.h"
#include "numpy_bits.h"
#include "values.h"
#include "tablezoo/core.h"

namespace tablezoo {
namespace py = pybind11;

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

// The refusal of an option name with a NUL character, in the words of the Python reference
// (tablezoo.games.core.Game.__init__): C strings would end the name there.
inline std::string nul_in_option_name(py::handle name) {
  return "option name " + Reader::shown(name) + " holds a NUL character: an option is named by plain text";
}

// Options from Python: a dict of option names (text) to True or False, nothing else.
inline Options read_options(py::handle value) {
  if (!PyDict_Check(value.ptr()))
    throw BadConfig("options are a dict of names to True or False, not " + Reader::shown(value));
  if (PyDict_Size(value.ptr()) > 64) throw BadConfig("options are a few names, not " + Reader::shown(value));
  Options options;
  for (auto item : py::reinterpret_borrow<py::dict>(value)) {
    if (!PyUnicode_Check(item.first.ptr()))
      throw BadConfig("an option's name is text, not " + Reader::shown(item.first));
    Py_ssize_t size = 0;
    const char* name = PyUnicode_AsUTF8AndSize(item.first.ptr(), &size);
    if (!name) {
      PyErr_Clear();
      throw BadConfig("an option's name is text that UTF-8 can hold, not " + Reader::shown(item.first));
    }
    if (std::strlen(name) != static_cast<size_t>(size)) throw BadConfig(nul_in_option_name(item.first));
    if (!PyBool_Check(item.second.ptr()))
      throw BadConfig("option '" + std::string(name) + "' is True or False, not " + Reader::shown(item.second));
    options[std::string(name, static_cast<size_t>(size))] = item.second.ptr() == Py_True;
  }
  return options;
}

// A seat count from Python: a whole number (not a bool), its range the game's to check.
inline int read_seats(py::handle value) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr()))
    throw BadConfig("a seat count is a whole number, not " + Reader::shown(value));
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow || n < INT_MIN || n > INT_MAX) throw BadConfig("a seat count of " + Reader::shown(value) + " players");
  return static_cast<int>(n);
}

// The action a Python object stands for: a whole number given as an int, a numpy integer or a
// 0-d integer array (anything with __index__ that is not a bool). Anything else raises
// IllegalAction naming what it is, as the Python reference does (tablezoo.games.core.action_number).
constexpr long long kNoAction = LLONG_MIN;  // a whole number too large for any action

inline long long action_number(py::handle action) {
  PyObject* o = action.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    int overflow = 0;
    const long long a = PyLong_AsLongLongAndOverflow(o, &overflow);
    return overflow ? kNoAction : a;  // too large to be any action: not legal
  }
  const std::string shown = Reader::shown(action);
  if (PyBool_Check(o) || std::strcmp(Py_TYPE(o)->tp_name, "numpy.bool") == 0 ||
      std::strcmp(Py_TYPE(o)->tp_name, "numpy.bool_") == 0)
    throw IllegalAction("action " + shown + " is a bool, not an action number");
  if (py::isinstance<py::array>(action)) {
    const py::array a = py::reinterpret_borrow<py::array>(action);
    const char kind = a.dtype().kind();
    if (a.ndim() != 0 || (kind != 'i' && kind != 'u'))
      throw IllegalAction("action " + shown + " is a numpy array of shape " + std::string(py::str(a.attr("shape"))) +
                          " and dtype " + std::string(py::str(a.dtype())) +
                          ", not one action: an action is one whole number (an int, a numpy integer or a 0-d integer "
                          "array; a.item() gives it)");
  }
  if (PyIndex_Check(o)) {
    PyObject* index = PyNumber_Index(o);
    if (!index) {
      PyErr_Clear();
      throw IllegalAction("action " + shown + " (a " + type_name(action) + ") cannot be read as a whole number");
    }
    py::object held = py::reinterpret_steal<py::object>(index);
    int overflow = 0;
    const long long a = PyLong_AsLongLongAndOverflow(index, &overflow);
    return overflow ? kNoAction : a;
  }
  throw IllegalAction("action " + shown + " is a " + type_name(action) + ", not a whole number");
}

// The one id of a configuration (seat count and options, by name) of game G: configurations
// are numbered as they are first built, so two differ exactly when their ids do. Called with the
// GIL held.
template <class G>
uint64_t configuration_id(int num_seats, const Options& options) {
  static std::map<std::pair<int, Options>, uint64_t> ids;
  return ids.emplace(std::make_pair(num_seats, options), ids.size() + 1).first->second;
}

// The game G of a configuration from Python; a seat count out of range or an unknown option
// raises ConfigError with the game's own message (its constructor throws BadConfig, which passes
// through; std::invalid_argument and std::out_of_range are taken as the same).
template <class G>
G make_game(int num_seats, const Options& options) {
  try {
    return G(num_seats, options);
  } catch (const std::invalid_argument& e) {
    throw BadConfig(e.what());
  } catch (const std::out_of_range& e) {  // options.at(name) of an option not given
    std::string given;
    for (const auto& [name, on] : options) given += (given.empty() ? "'" : ", '") + name + "'";
    throw BadConfig("an option of the game is missing from the options given (" + (given.empty() ? "none" : given) + ")");
  }
}

// A scratch vector taken for one call and handed back after it: a call that runs Python (a
// garbage collector's __del__, an argument's __index__) and so re-enters the same object takes
// a vector of its own instead of the one being read (it finds the slot empty). No allocation in
// the common case; never shared across a call that can run Python.
struct ScratchLease {
  std::vector<int>& slot;
  std::vector<int> v;
  explicit ScratchLease(std::vector<int>& s) : slot(s), v(std::exchange(s, {})) { v.clear(); }
  ~ScratchLease() {
    if (slot.capacity() < v.capacity()) slot = std::move(v);
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
};

// A 64-bit size or index from Python narrowed to int, checked: a value beyond [lo, hi] raises
// ValueError naming `what` instead of wrapping.
inline int narrowed(long long value, long long lo, long long hi, const std::string& what) {
  if (value < lo || value > hi)
    throw py::value_error(what + " is " + std::to_string(lo) + ".." + std::to_string(hi) + ", not " + std::to_string(value));
  return static_cast<int>(value);
}

// value as a C-contiguous numpy array of T (any array of numbers is converted), or a TypeError
// naming `what` and what it should be. A MemoryError stays a MemoryError (an array too large to
// convert is not an array of the wrong kind).
template <class T>
py::array_t<T, py::array::c_style | py::array::forcecast> array_of(py::handle value, const std::string& what,
                                                                   const std::string& expected) {
  using A = py::array_t<T, py::array::c_style | py::array::forcecast>;
  try {
    return A(py::reinterpret_borrow<py::object>(value));
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_MemoryError)) throw;
    throw py::type_error(what + " should be " + expected + ", not " + type_name(value));
  }
}

// The entries of a sequence as held objects: a list or tuple read from its storage (a
// subclass's __len__ and __getitem__ are not consulted), any other iterable copied into a list
// first. What the caller's object does later changes nothing read.
inline std::vector<py::object> sequence_entries(py::handle value, const std::string& what) {
  if (PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()) || PyDict_Check(value.ptr()))
    throw py::type_error(what + " should be a list, not " + type_name(value));
  PyObject* fast = PySequence_Fast(value.ptr(), "");
  if (!fast) {
    if (PyErr_ExceptionMatches(PyExc_MemoryError)) throw py::error_already_set();
    PyErr_Clear();
    throw py::type_error(what + " should be a list, not " + type_name(value));
  }
  py::object held = py::reinterpret_steal<py::object>(fast);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  std::vector<py::object> out;
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) out.push_back(py::reinterpret_borrow<py::object>(PySequence_Fast_GET_ITEM(fast, i)));
  return out;
}

// A whole number from Python (an int or a numpy integer, not a bool) as 64 bits; a value beyond
// them raises ValueError naming `what`.
inline long long read_whole(py::handle value, const std::string& what) {
  PyObject* o = value.ptr();
  if (PyBool_Check(o) || !PyIndex_Check(o)) throw py::type_error(what + " is a whole number, not " + Reader::shown(value));
  PyObject* index = PyNumber_Index(o);
  if (!index) throw py::error_already_set();
  py::object held = py::reinterpret_steal<py::object>(index);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (overflow) throw py::value_error(what + " is " + Reader::shown(held) + ", beyond 64 bits");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// Exactly n entries of a sequence, or a ValueError naming `what` and its shape.
inline std::vector<py::object> tuple_entries(py::handle value, size_t n, const std::string& what, const std::string& shape) {
  std::vector<py::object> out = sequence_entries(value, what);
  if (out.size() != n) throw py::value_error(what + " is " + shape + ", not " + Reader::shown(value));
  return out;
}

// Action names from Python: a list of text, one per action.
inline std::vector<std::string> read_names(py::handle value) {
  std::vector<std::string> names;
  for (const py::object& name : sequence_entries(value, "action_names")) {
    if (!PyUnicode_Check(name.ptr())) throw py::type_error("an action name is text, not " + Reader::shown(name));
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(name.ptr(), &size);
    if (!utf8) throw py::error_already_set();
    names.emplace_back(utf8, static_cast<size_t>(size));
  }
  return names;
}

// A padding index from Python: a 1-d array of whole numbers, as 64-bit values (checked when narrowed).
inline std::vector<long long> read_index(py::handle value) {
  const auto a = array_of<int64_t>(value, "the padding index", "a 1-d array of whole numbers");
  if (a.ndim() != 1) throw py::value_error("the padding index is a 1-d array, not of " + std::to_string(a.ndim()) + " dimensions");
  return std::vector<long long>(a.data(), a.data() + a.size());
}

// The largest padded observation a game may be given (set_padding): far above any game's.
constexpr long long kMaxPaddedSize = 1 << 20;

template <class G>
struct Bound {
  G game;
  uint64_t key;
  std::vector<int> legal;              // scratch for legal actions (taken per call: ScratchLease)
  std::vector<int> round;              // scratch for the parallel env's decision round (Fast::Round)
  std::vector<std::string> action_names;  // the command words, for messages (pickled with the game)
  std::vector<int> pad_index;          // observe_padded: where each entry goes (pickled with the game)
  int pad_size = 0;                    // 0: no padding set; else 1..kMaxPaddedSize
  int pad_seats_at = -1;                // observe_padded: the one-hot seat count's entry

  // The name of action a for a message: its command word where the game has them, else its number.
  std::string action_name(long long a) const {
    if (a >= 0 && a < static_cast<long long>(action_names.size())) return action_names[static_cast<size_t>(a)];
    return std::to_string(a);
  }

  // One command word per action, checked (no NUL: a C string would end the word there).
  void set_action_names(std::vector<std::string> names) {
    if (static_cast<long long>(names.size()) != game.num_actions())
      throw py::value_error("one name per action: " + std::to_string(game.num_actions()) + " names, not " +
                            std::to_string(names.size()));
    for (const auto& name : names)
      if (name.find('\0') != std::string::npos) throw py::value_error("an action name holds no NUL character");
    action_names = std::move(names);
  }

  // Where each entry of observe goes in observe_padded, the padded size and the seat count's
  // entry, checked in 64 bits before anything is narrowed.
  void set_padding(const std::vector<long long>& index, long long size, long long seats_at) {
    if (static_cast<long long>(index.size()) != game.observation_size())
      throw py::value_error("the padding index needs one entry per observation entry (" +
                            std::to_string(game.observation_size()) + "), not " + std::to_string(index.size()));
    const int padded = narrowed(size, game.observation_size(), kMaxPaddedSize, "the padded size");
    std::vector<int> where(index.size());
    for (size_t i = 0; i < index.size(); ++i)
      where[i] = narrowed(index[i], 0, padded - 1, "padding index entry " + std::to_string(i));
    const int at = narrowed(seats_at, 0, padded - 1, "the seat-count entry");
    pad_index = std::move(where);
    pad_size = padded;
    pad_seats_at = at;
  }

  Options options;  // as built (pickling rebuilds the game from them)
  Bound(int num_seats, const Options& options)
      : game(make_game<G>(num_seats, options)), key(configuration_id<G>(num_seats, options)), options(options) {}

  // The bits of the numpy Generator last used, kept with it (so that its address cannot be
  // reused by another while it is cached): a game loop passes the same one.
  std::optional<NumpyBits> cached_bits;
  NumpyBits& numpy_bits(py::handle generator) {
    if (!cached_bits || !cached_bits->generator.is(generator)) {
      cached_bits.reset();
      cached_bits.emplace(generator);
    }
    return *cached_bits;
  }

  Boxed<G> box(typename G::State s) const { return Boxed<G>{std::move(s), key, game.num_seats(), options}; }

  const typename G::State& check(const Boxed<G>& b) const {
    if (b.key != key) throw py::value_error("this state belongs to another configuration of the game");
    return b.s;
  }
  typename G::State& check(Boxed<G>& b) const {
    if (b.key != key) throw py::value_error("this state belongs to another configuration of the game");
    return b.s;
  }
  int check_seat(long long seat) const {
    if (seat < 0 || seat >= game.num_seats())
      throw py::value_error("seat " + std::to_string(seat) + " is out of range 0.." +
                            std::to_string(game.num_seats() - 1));
    return static_cast<int>(seat);
  }
  // A seat from Python: a whole number (an int or a numpy integer, not a bool) in range.
  int read_seat(py::handle value) const {
    PyObject* o = value.ptr();
    Py_ssize_t seat = -1;
    if (!PyBool_Check(o) && PyIndex_Check(o)) {
      seat = PyNumber_AsSsize_t(o, nullptr);  // clipped: out of range all the same
      if (seat == -1 && PyErr_Occurred()) PyErr_Clear();
      else return check_seat(seat);
    }
    throw py::value_error("seat " + Reader::shown(value) + " is not a seat number 0.." +
                          std::to_string(game.num_seats() - 1));
  }

  // Apply a legal action; anything else raises IllegalAction (the reference's message, naming
  // the legal moves) and changes nothing. The action is read first (reading it may run Python,
  // which may use this game or this state); then the legal moves of the state as it is now are
  // found and checked, and the action applied, with no Python in between.
  void apply_checked(typename G::State& s, py::handle action) {
    long long a = kNoAction;
    std::string not_a_number;
    try {
      a = action_number(action);
    } catch (const IllegalAction& e) {
      not_a_number = e.what();
    }
    const int mover = game.to_move(s);
    ScratchLease moves(legal);
    if (mover >= 0) game.legal_actions(s, moves.v);
    if (not_a_number.empty())
      for (int l : moves.v)
        if (l == a) {
          game.apply(s, l);
          return;
        }
    // a refusal: the message may run Python (a repr), on copies
    const std::vector<int> legal_now = moves.v;
    if (!not_a_number.empty())  // not a number at all: said so, with the legal moves
      throw IllegalAction(mover >= 0 ? not_a_number + "; legal moves: " + legal_text(legal_now) : not_a_number);
    throw IllegalAction(illegal_message(mover, a, action, legal_now));
  }

  std::string legal_text(const std::vector<int>& moves_now) const {
    std::string moves;
    for (int l : moves_now) {
      if (!moves.empty()) moves += ", ";
      moves += action_name(l) + " (" + std::to_string(l) + ")";
    }
    return moves;
  }

  std::string illegal_message(int mover, long long a, py::handle action, const std::vector<int>& moves_now) const {
    if (mover == kTerminal) return "the game is over: no move is legal";
    if (mover == kChance) return "a chance outcome is due, not a move";
    std::string what = "action " + (a == kNoAction ? Reader::shown(action) : std::to_string(a));
    if (a >= 0 && a < static_cast<long long>(action_names.size())) what = "'" + action_names[a] + "'";
    return what + " is not legal for seat " + std::to_string(mover) + " now; legal moves: " + legal_text(moves_now);
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

}  // namespace tablezoo
