// The engine contract of the native core: what every game's C++ twin provides.
//
// This is the C++ side of tablezoo.games.core. A game is a class built from a seat
// count and its options that never changes after construction, and a state: a plain
// struct whose fields are those of the Python dataclass, with the same names and the
// same values, declared once in a `fields()` table. Copying a state is the struct's copy;
// turning it into the Python engine's dict (and back) is generic over that table
// (bind.h), so a state passes between the two cores through JSON unchanged.
//
// A game class G provides (see heckmeck.h for one that reads like its Python twin):
//
//   using State = ...;    // a struct with `static constexpr auto fields()`
//   using Outcome = ...;  // a chance outcome: std::vector<int>, std::string, or a struct
//                         // with fields() (read and written as a dict)
//   G(int num_seats, const Options& options);
//   int num_seats() const;  int num_actions() const;  int observation_size() const;
//   State initial_state() const;
//   int to_move(const State&) const;                       // a seat, kChance or kTerminal
//   void legal_actions(const State&, std::vector<int>& out) const;  // ascending
//   void apply(State&, int action) const;                  // a legal action
//   Outcome sample_chance(const State&, Rng&) const;
//   std::vector<std::pair<Outcome, double>> chance_outcomes(const State&) const;
//                                                          // throws NotEnumerable where large
//   void check_outcome(const State&, const Outcome&) const;  // throws BadOutcome
//   void apply_chance(State&, const Outcome&) const;       // a checked outcome
//   void observe(const State&, int seat, float* out) const;  // writes observation_size()
//   std::vector<double> scores(const State&) const;
//   std::vector<int> winners(const State&) const;          // at kTerminal
//   void validate(const State&) const;                     // throws BadState
//
// `validate` is what makes a state read from outside safe: after it passes, no rule
// reads outside an array. Everything else may assume a valid state.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tablezoo {

constexpr int kChance = -1;    // to_move: the next step is a chance outcome
constexpr int kTerminal = -2;  // to_move: the game is over

using Options = std::map<std::string, bool>;

// ----------------------------------------------------------------------------- errors
// Each becomes the Python exception of the same meaning (tablezoo.games.core).

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct IllegalAction : Error {  // IllegalActionError
  using Error::Error;
};
struct BadOutcome : Error {  // OutcomeError
  using Error::Error;
};
struct BadState : Error {  // StateError: a state read from outside that no game reaches
  using Error::Error;
};
struct NotEnumerable : Error {  // NotImplementedError: a chance node too large to list
  using Error::Error;
};

// ----------------------------------------------------------------------------- fields
// A state's (or an outcome's) field table: its Python name and the member it is.

template <class S, class T>
struct FieldRef {
  const char* name;
  T S::*member;
};

template <class S, class T>
constexpr FieldRef<S, T> field(const char* name, T S::*member) {
  return {name, member};
}

// Call f(name, value) for every field of s, in declaration order.
template <class S, class F>
void for_each_field(S& s, F&& f) {
  std::apply([&](auto... ref) { (f(ref.name, s.*(ref.member)), ...); }, std::remove_const_t<S>::fields());
}

// ----------------------------------------------------------------------------- random numbers
// The core's own generator for its loops (random playouts, the batched env): xoshiro256**,
// seeded by splitmix64. Python code samples chance from numpy generators instead, through
// the Python reference, so a seeded game is the same on both cores.

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (auto& word : s_) word = splitmix(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // A uniform integer in [0, n), exact (rejection of the short last interval); n > 0.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x = next();
    while (x >= limit) x = next();
    return x % n;
  }

  // Shuffle v in place (Fisher-Yates).
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::array<uint64_t, 4> s_{};
};

// ----------------------------------------------------------------------------- dice
// Six-sided dice as chance nodes (tablezoo.games.dice): a roll of k dice is its face counts.

using Counts = std::vector<int>;

// Every roll of k dice as face counts with its exact probability, in the Python
// reference's order (the count of the first face ascending, then the next, ...).
std::vector<std::pair<Counts, double>> roll_distribution(int num_dice);

// Roll k fair dice; the face counts.
Counts roll_counts(Rng& rng, int num_dice);

// The faces of counts written out, as DiceFaces.text does (names: the six face names;
// highest_first: from the last face down).
std::string dice_text(const Counts& counts, const std::array<const char*, 6>& names,
                      bool highest_first = false);

// A forced roll of num_dice dice: six non-negative counts adding up to num_dice.
void check_roll(const Counts& counts, int num_dice);

// ----------------------------------------------------------------------------- checks
// For validate(): a BadState naming the field when a value is out of its range.

inline void require(bool ok, const std::string& what) {
  if (!ok) throw BadState(what);
}

inline void require_range(int value, int low, int high, const char* name) {
  if (value < low || value > high)
    throw BadState(std::string(name) + " is " + std::to_string(value) + ", outside " +
                   std::to_string(low) + ".." + std::to_string(high));
}

inline void require_size(size_t size, size_t expected, const char* name) {
  if (size != expected)
    throw BadState(std::string(name) + " has " + std::to_string(size) + " entries, not " +
                   std::to_string(expected));
}

}  // namespace tablezoo
