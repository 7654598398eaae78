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

// Options from Python: a dict of option names (text) to True or False, nothing else.
inline Options read_options(py::handle value) {
  if (!PyDict_Check(value.ptr()))
    throw BadConfig("options are a dict of names to True or False, not " + Reader::shown(value));
  if (PyDict_Size(value.ptr()) > 64) throw BadConfig("options are a few names, not " + Reader::shown(value));
  Options options;
  for (auto item : py::reinterpret_borrow<py::dict>(value)) {
    if (!PyUnicode_Check(item.first.ptr()))
      throw BadConfig("an option's name is text, not " + Reader::shown(item.first));
    const char* name = PyUnicode_AsUTF8(item.first.ptr());
    if (!name) {
      PyErr_Clear();
      throw BadConfig("an option's name is text that UTF-8 can hold, not " + Reader::shown(item.first));
    }
    if (!PyBool_Check(item.second.ptr()))
      throw BadConfig("option '" + std::string(name) + "' is True or False, not " + Reader::shown(item.second));
    options[name] = item.second.ptr() == Py_True;
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
  // the legal moves) and changes nothing.
  void apply_checked(typename G::State& s, py::handle action) {
    const int mover = game.to_move(s);
    legal.clear();
    if (mover >= 0) game.legal_actions(s, legal);
    long long a = kNoAction;
    try {
      a = action_number(action);
    } catch (const IllegalAction& e) {  // not a number at all: said so, with the legal moves
      throw IllegalAction(mover >= 0 ? std::string(e.what()) + "; legal moves: " + legal_text() : e.what());
    }
    for (int l : legal)
      if (l == a) {
        game.apply(s, l);
        return;
      }
    throw IllegalAction(illegal_message(mover, a, action));
  }

  std::string legal_text() const {
    std::string moves;
    for (int l : legal) {
      if (!moves.empty()) moves += ", ";
      moves += (l < static_cast<int>(action_names.size()) ? action_names[l] : std::to_string(l)) + " (" +
               std::to_string(l) + ")";
    }
    return moves;
  }

  std::string illegal_message(int mover, long long a, py::handle action) const {
    if (mover == kTerminal) return "the game is over: no move is legal";
    if (mover == kChance) return "a chance outcome is due, not a move";
    std::string what = "action " + (a == kNoAction ? Reader::shown(action) : std::to_string(a));
    if (a >= 0 && a < static_cast<long long>(action_names.size())) what = "'" + action_names[a] + "'";
    return what + " is not legal for seat " + std::to_string(mover) + " now; legal moves: " + legal_text();
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
