// The bound classes every game shares: a state boxed with its configuration, and the game
// with its scratch, its action check and its game loop.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <optional>
#include <string>
#include <vector>

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

}  // namespace tablezoo
