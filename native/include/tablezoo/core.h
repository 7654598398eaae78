// The engine contract of the native core: what every game's C++ twin provides.
//
// This is the C++ side of tablezoo.games.core. A game is a class built from a seat
// count and its options that never changes after construction, and a state: a plain
// struct whose fields are those of the Python dataclass, with the same names and the
// same values, declared once in a `fields()` table. Copying a state is the struct's copy;
// turning it into the Python engine's dict (and back) is generic over that table
// (bind/values.h), so a state passes between the two cores through JSON unchanged.
//
// A game class G provides (see games/heckmeck/heckmeck.h for one that reads like its Python twin):
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
//   template <class Bits> Outcome sample_chance(const State&, Bits&) const;
//                                                          // numpy's draws, as the reference
//                                                          // makes them (see random numbers)
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
// reads outside an array. Everything else may assume a valid state. The compiler holds every
// bound game to this list (tablezoo/contract.h).
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
struct BadConfig : Error {  // ConfigError: a seat count out of range, an unknown or malformed option
  using Error::Error;
};
struct NotEnumerable : Error {  // NotImplementedError: a chance node too large to list
  using Error::Error;
};

// ----------------------------------------------------------------------------- fields
// A state's (or an outcome's) field table: its Python name and the member it is. A field is
// a whole number, a bool, text, a list (std::vector, or std::array for a fixed length) of
// those, or an enum whose Python value is a word: `names(E)`, found by argument-dependent
// lookup, lists the words in the enum's order (a phase is kept as a number, compared as one,
// and read and written as its word).

// A yes/no kept in a byte, read and written as a Python bool: a list of them scans fast,
// where std::vector<bool> packs bits behind proxies.
enum Flag : uint8_t { kNo = 0, kYes = 1 };

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

// ----------------------------------------------------------------------------- notes
// A short text kept inside the state (what happened last, for people): a fixed buffer, so
// that writing one and copying a state allocate nothing. Read and written as a Python str.

template <size_t Capacity>
class Note {
 public:
  static constexpr size_t capacity = Capacity;
  Note() = default;
  Note(const char* text) { *this += text; }  // NOLINT: implicit, as a string's

  Note& operator+=(const char* text) {
    while (*text && size_ < Capacity) buf_[size_++] = *text++;
    return *this;
  }
  Note& operator+=(const std::string& text) { return *this += text.c_str(); }
  template <size_t M>
  Note& operator+=(const Note<M>& text) {
    for (size_t i = 0; i < text.size(); ++i) *this += text.data()[i];
    return *this;
  }
  const char* data() const { return buf_.data(); }
  Note& operator+=(char c) {
    if (size_ < Capacity) buf_[size_++] = c;
    return *this;
  }
  Note& operator+=(int value) {
    char digits[12];
    int n = 0;
    unsigned u = value < 0 ? 0u - static_cast<unsigned>(value) : static_cast<unsigned>(value);
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u);
    if (value < 0) *this += '-';
    while (n) *this += digits[--n];
    return *this;
  }
  template <class T>
  Note operator+(const T& more) const {
    Note out = *this;
    out += more;
    return out;
  }
  void clear() { size_ = 0; }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  std::string str() const { return std::string(buf_.data(), size_); }
  // Set from outside (a state read from JSON): false when the text is too long to keep.
  bool assign(const std::string& text) {
    if (text.size() > Capacity) return false;
    std::copy(text.begin(), text.end(), buf_.begin());
    size_ = text.size();
    return true;
  }

 private:
  std::array<char, Capacity> buf_{};
  size_t size_ = 0;
};

template <class T>
struct is_note : std::false_type {};
template <size_t N>
struct is_note<Note<N>> : std::true_type {};

// ----------------------------------------------------------------------------- random numbers
// Chance is drawn from a source of random bits with three calls, as numpy's bit generators
// give them: next_uint32(), next_uint64() and next_raw(). The draws below are numpy's own
// algorithms (Generator.integers, the interval draw of Generator.permutation), so a game's
// sample_chance, written once over any source, draws exactly what the Python reference draws
// from a numpy Generator when the source is that generator's bits (bind/numpy_bits.h: NumpyBits). The
// core's own loops (random playouts, the batched env) use Rng, a fast source of its own.

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (auto& word : s_) word = splitmix(seed);
  }

  // xoshiro256**
  uint64_t next_uint64() {
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
  uint32_t next_uint32() { return static_cast<uint32_t>(next_uint64() >> 32); }
  uint64_t next_raw() { return next_uint64(); }

  // A uniform integer in [0, n), exact; n > 0 (Lemire's multiply and shift: a division
  // only in the rare case that may need a second draw).
  uint64_t below(uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>(next_uint64()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>(next_uint64()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
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

// A uniform double in [0, 1) from the top 53 bits of one 64-bit draw (Python's random.random()
// and numpy's random() make theirs so), for the core's own loops: rollouts, searches, futures.
inline double uniform(Rng& rng) { return static_cast<double>(rng.next_uint64() >> 11) * 0x1.0p-53; }

// numpy's Generator.integers(high) for 0 < high (Lemire's method, as numpy draws it).
template <class Bits>
uint64_t numpy_integers(Bits& bits, uint64_t high) {
  const uint64_t rng = high - 1;  // numpy's name: the largest value
  if (rng == 0) return 0;
  if (rng <= 0xFFFFFFFFULL) {
    if (rng == 0xFFFFFFFFULL) return bits.next_uint32();
    const uint32_t excl = static_cast<uint32_t>(rng) + 1;
    uint64_t m = static_cast<uint64_t>(bits.next_uint32()) * excl;
    uint32_t leftover = static_cast<uint32_t>(m);
    if (leftover < excl) {
      const uint32_t threshold = (UINT32_MAX - static_cast<uint32_t>(rng)) % excl;
      while (leftover < threshold) {
        m = static_cast<uint64_t>(bits.next_uint32()) * excl;
        leftover = static_cast<uint32_t>(m);
      }
    }
    return m >> 32;
  }
  const uint64_t excl = high;
  __uint128_t m = static_cast<__uint128_t>(bits.next_uint64()) * excl;
  uint64_t leftover = static_cast<uint64_t>(m);
  if (leftover < excl) {
    const uint64_t threshold = (UINT64_MAX - rng) % excl;
    while (leftover < threshold) {
      m = static_cast<__uint128_t>(bits.next_uint64()) * excl;
      leftover = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

// numpy's interval draw: a uniform integer in [0, max] by masked rejection.
template <class Bits>
uint64_t numpy_interval(Bits& bits, uint64_t max) {
  if (max == 0) return 0;
  uint64_t mask = max;
  for (int shift = 1; shift <= 32; shift *= 2) mask |= mask >> shift;
  uint64_t value;
  if (max <= 0xFFFFFFFFULL) {
    while ((value = (bits.next_uint32() & mask)) > max) {
    }
  } else {
    while ((value = (bits.next_uint64() & mask)) > max) {
    }
  }
  return value;
}

// numpy's Generator.permutation(n): 0..n-1 shuffled (Fisher-Yates from the last entry down).
template <class Bits>
void numpy_permutation(Bits& bits, int n, std::vector<int>& out) {
  out.resize(n);
  for (int i = 0; i < n; ++i) out[i] = i;
  for (int i = n - 1; i >= 1; --i) std::swap(out[i], out[numpy_interval(bits, static_cast<uint64_t>(i))]);
}

// Generator.bit_generator.random_raw() below `total`, as Diamant's reference draws a card:
// reject the raw words at or above the largest multiple of `total`, then take the remainder.
template <class Bits>
uint64_t raw_below(Bits& bits, uint64_t total) {
  const uint64_t short_part = (UINT64_MAX % total + 1) % total;  // 2**64 % total
  uint64_t x = bits.next_raw();
  if (short_part)  // else every word is accepted (the limit is 2**64)
    while (x >= 0 - short_part) x = bits.next_raw();  // 0 - r is 2**64 - r
  return x % total;
}

// ----------------------------------------------------------------------------- dice
// Six-sided dice as chance nodes (tablezoo.games.dice): a roll of k dice is its face counts.

using Counts = std::array<int, 6>;

// Every roll of k dice as face counts with its exact probability, in the Python
// reference's order (the count of the first face ascending, then the next, ...).
std::vector<std::pair<Counts, double>> roll_distribution(int num_dice);

// Roll k fair dice; the face counts. As tablezoo.games.dice.roll_counts: one draw below 6**k,
// read as base-6 digits.
template <class Bits>
Counts roll_counts(Bits& bits, int num_dice) {
  uint64_t all = 1;
  for (int i = 0; i < num_dice; ++i) all *= 6;
  uint64_t x = numpy_integers(bits, all);
  Counts counts{};
  if (x <= UINT32_MAX) {  // up to 12 dice: 32-bit digits, several times cheaper to divide
    uint32_t y = static_cast<uint32_t>(x);
    for (int i = 0; i < num_dice; ++i) {
      ++counts[y % 6];
      y /= 6;
    }
    return counts;
  }
  for (int i = 0; i < num_dice; ++i) {
    ++counts[x % 6];
    x /= 6;
  }
  return counts;
}

// The faces of counts written out, as DiceFaces.text does (names: the six face names;
// highest_first: from the last face down), onto `out` (a std::string or a Note).
template <class Text>
void write_dice(Text& out, const Counts& counts, const std::array<const char*, 6>& names, bool highest_first = false) {
  bool first = true;
  for (int k = 0; k < 6; ++k) {
    const int face = highest_first ? 5 - k : k;
    for (int i = 0; i < counts[face]; ++i) {
      if (!first) out += ' ';
      out += names[face];
      first = false;
    }
  }
}

inline std::string dice_text(const Counts& counts, const std::array<const char*, 6>& names,
                             bool highest_first = false) {
  std::string text;
  write_dice(text, counts, names, highest_first);
  return text;
}

// A forced roll of num_dice dice: six non-negative counts adding up to num_dice.
void check_roll(const Counts& counts, int num_dice);

// ----------------------------------------------------------------------------- seats in notes

// A seat as a state's note names it ("seat 2"), as the Python games write it.
template <class Text>
Text seat_name(int seat) {
  return Text("seat ") + seat;
}

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
