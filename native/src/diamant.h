// Diamant (Incan Gold without artifacts): the C++ twin of tablezoo/games/diamant.py.
//
// The module docstring of diamant.py is the spec; this file follows its Python twin
// function by function (_apply, _reveal_choices, _end_cave, chance, _double, observe)
// so that the two read side by side. The lockstep tests hold them to the same games.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo::diamant {

constexpr int kCaves = 5;
constexpr int kTreasureKinds = 12;  // the treasure values 1, 2, 3, 4, 5, 7, 9, 11, 13, 14, 15, 17
constexpr int kHazards = 5;         // snake, spider, fire, rockfall, mummy
constexpr int kKinds = kTreasureKinds + kHazards;
constexpr int kHazardCopies = 3;
constexpr int kTotalTreasure = 124;  // gems on the 15 treasure cards
constexpr int kMaxPath = 21;         // cards in one cave at most (the module docstring says why)
constexpr int kGo = 0, kCamp = 1;

// Card kinds, as the outcome words: the treasure values, then the hazards (KINDS).
constexpr std::array<const char*, kKinds> kKindNames = {"1",  "2",  "3",  "4",  "5",  "7",  "9",
                                                        "11", "13", "14", "15", "17", "snake", "spider",
                                                        "fire", "rockfall", "mummy"};
enum Kind : uint8_t {};  // a card kind: 0..16 in the order of kKindNames
inline const std::array<const char*, kKinds>& names(Kind) { return kKindNames; }
constexpr int kKindValue[kKinds] = {1, 2, 3, 4, 5, 7, 9, 11, 13, 14, 15, 17};  // gems; 0 on a hazard
constexpr int kFullDeck[kKinds] = {1, 1, 1, 1, 2, 2, 1, 2, 1, 1, 1, 1, 3, 3, 3, 3, 3};
// A seat's go / camp (the action ids kGo, kCamp), kept until all have chosen.
enum Choice : uint8_t { kGoes = kGo, kCamps = kCamp };
inline const std::array<const char*, 2>& names(Choice) {
  static constexpr std::array<const char*, 2> words = {"go", "camp"};
  return words;
}

// Phases: a card is to be revealed (chance), the seats IN choose go / camp one by one, over.
enum Phase : uint8_t { kReveal, kChoose, kOver };
inline const std::array<const char*, 3>& names(Phase) {
  static constexpr std::array<const char*, 3> words = {"reveal", "choose", "over"};
  return words;
}

struct State {
  int cave = 1;                                           // 1..5
  Phase phase = kReveal;
  int turn = -1;                                          // the seat to choose (phase choose), else -1
  std::vector<int> deck = std::vector<int>(kFullDeck, kFullDeck + kKinds);  // cards left, per kind
  std::vector<Kind> path;                                 // cards revealed in this cave, in order
  std::vector<int> seen = std::vector<int>(kHazards, 0);  // hazard types seen here
  std::vector<int> removed = std::vector<int>(kHazards, 0);  // removed for good
  std::vector<Flag> inside;                               // per seat: IN this cave
  std::vector<int> hauls;                                 // per seat: gems held in this cave
  std::vector<int> banked;                                // per seat: gems banked (score)
  int pool = 0;                                           // the remainder pool
  std::vector<std::optional<Choice>> choices;             // per seat: pending go/camp
  int treasure_revealed = 0;                              // gems on every treasure card revealed so far
  int lost = 0;                                           // hauls caught by a double, pools left at a cave's end
  // Public records of what happened last, for people and front ends:
  std::vector<std::optional<Choice>> revealed;            // the choices revealed last
  std::vector<int> gains;                                 // gems each seat banked at that reveal
  std::vector<Kind> last_path;                            // the cards of the cave that ended last
  std::vector<int> last_losses;                           // hauls lost at its end (a double)
  int last_pool = 0;                                      // gems left in its pool at its end (lost)

  static constexpr auto fields() {
    return std::make_tuple(
        field("cave", &State::cave), field("phase", &State::phase), field("turn", &State::turn),
        field("deck", &State::deck), field("path", &State::path), field("seen", &State::seen),
        field("removed", &State::removed), field("inside", &State::inside), field("hauls", &State::hauls),
        field("banked", &State::banked), field("pool", &State::pool), field("choices", &State::choices),
        field("treasure_revealed", &State::treasure_revealed), field("lost", &State::lost),
        field("revealed", &State::revealed), field("gains", &State::gains), field("last_path", &State::last_path),
        field("last_losses", &State::last_losses), field("last_pool", &State::last_pool));
  }
};

class Diamant {
 public:
  using State = diamant::State;
  using Outcome = Kind;  // a card kind, read and written as its name, as check_outcome returns it: "15", "snake"

  Diamant(int num_seats, const Options& options);
  int num_seats() const { return n_; }
  int num_actions() const { return 2; }
  int observation_size() const { return 48 + 4 * n_; }

  State initial_state() const;
  int to_move(const State& s) const;
  void legal_actions(const State& s, std::vector<int>& out) const;
  void apply(State& s, int action) const;

  // One card drawn uniformly from those left (the lazy shuffle of the module docstring), by
  // the reference's draw: one raw 64-bit word below the count of cards left.
  template <class Bits>
  Outcome sample_chance(const State& s, Bits& bits) const {
    int total = 0;
    for (int count : s.deck) total += count;
    if (!total) throw BadOutcome("no card is left in the deck to reveal");  // validate makes it unreachable
    int x = static_cast<int>(raw_below(bits, static_cast<uint64_t>(total)));
    for (int k = 0; k < kKinds; ++k) {
      if (x < s.deck[k]) return static_cast<Kind>(k);
      x -= s.deck[k];
    }
    throw std::logic_error("unreachable: x < total");
  }
  std::vector<std::pair<Outcome, double>> chance_outcomes(const State& s) const;
  void check_outcome(const State& s, const Outcome& o) const;
  void apply_chance(State& s, const Outcome& o) const;

  void observe(const State& s, int seat, float* out) const;
  // Diamant.determinize, draw for draw: a copy with the other seats' pending choices drawn
  // anew, go or camp alike (rng.integers(2)); nothing else is hidden (the deck has no order).
  template <class Bits>
  void determinize(const State& s, int seat, Bits& bits, State& out) const {
    out = s;  // a copy into the caller's state: its lists keep their room
    for (int other = 0; other < n_; ++other)
      if (other != seat && out.choices[other]) out.choices[other] = static_cast<Choice>(numpy_integers(bits, 2));
  }

  // The heuristic bot (bots/diamant.py, DiamantThresholdBot with its defaults): back to camp
  // once two hazard types are out, or once its haul and its share of the pool reach 10 gems.
  // It reads only what every seat sees.
  struct Heuristic {
    static constexpr bool exists = true;
    int haul = 10, hazards = 2;
    void reset() {}
    int act(const Diamant&, const State& s, int seat, Rng&) const {
      int seen = 0, inside = 0;
      for (int h : s.seen) seen += h != 0;
      for (Flag in : s.inside) inside += in;
      const bool risky = seen >= hazards;
      const bool rich = s.hauls[seat] + s.pool / std::max(1, inside) >= haul;
      return risky || rich ? kCamp : kGo;
    }
  };
  std::vector<double> scores(const State& s) const;
  std::vector<int> winners(const State& s) const;
  void validate(const State& s) const;

 private:
  void reveal_choices(State& s) const;
  void end_cave(State& s, std::vector<int> losses) const;
  void double_hazard(State& s, int hazard) const;

  int n_;
};

}  // namespace tablezoo::diamant
