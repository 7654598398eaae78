// Diamant (Incan Gold without artifacts): the C++ twin of tablezoo/games/diamant.py.
//
// The module docstring of diamant.py is the spec; this file follows its Python twin
// function by function (_apply, _reveal_choices, _end_cave, chance, _double, observe)
// so that the two read side by side. The lockstep tests hold them to the same games.
//
// The rules are defined in diamant.cc; the bots declared here with the game's class (its
// heuristic, the search port and its simulator) in bots.cc, as their twins in bots/diamant.py.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
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


// ----------------------------------------------------------------------------- the search bot's simulator
// bots/diamant.py's simulator, piece for piece (Table, threshold_camps, one_card_camps,
// Rollout): the search bot plays its futures on a small table of the public state, not on
// the engine, for speed. A future's cards come from a source of uniform doubles in [0, 1),
// `random()`, one per card, as the Python rollouts draw them from a random.Random: given the
// same doubles, the two simulators turn the same cards and end with the same banked gems.

// The public state of a game at a decision, as the rollouts keep it (Table).
struct Table {
  int cave = 1;                                 // 1..5
  std::array<int, kKinds> deck{};               // cards left per kind
  std::array<int, kHazards> seen{};             // per hazard type: seen in this cave
  std::array<int, kHazards> removed{};          // per hazard type: cards removed from the game
  std::vector<Flag> inside;
  std::vector<int> hauls;
  std::vector<int> banked;
  int pool = 0;

  // The table every seat sees (Table.of_view): no seat's pending choice is read.
  static Table of_state(const State& s);

  static constexpr auto fields() {
    return std::make_tuple(field("cave", &Table::cave), field("deck", &Table::deck), field("seen", &Table::seen),
                           field("removed", &Table::removed), field("inside", &Table::inside),
                           field("hauls", &Table::hauls), field("banked", &Table::banked),
                           field("pool", &Table::pool));
  }
};

// The threshold rule (threshold_camps, the heuristic bot's) on `table`: does `seat` camp?
bool threshold_camps(const Table& table, int seat, int haul, int hazards);

// The one-card rule (one_card_camps): camp unless the next card's expected gain beats the
// risk, `staying` seats expected to go on (this one included) and `leaving` to camp besides it.
bool one_card_camps(const Table& table, int seat, int staying, int leaving);

// Plays a Table to the end of the game (Rollout): `me` by the one-card rule, the others by
// the threshold rule, the cards from a source of uniform doubles (one per card).
class Rollout {
 public:
  Rollout(int me, int others_haul, int others_hazards)
      : me_(me), others_haul_(others_haul), others_hazards_(others_hazards) {}

  // Per seat: camps now (seats out: no), into `camps` (choices). `mine` forces this seat's choice.
  void choices(const Table& table, std::optional<bool> mine, std::vector<Flag>& camps) const;
  // The returners bank; whether anyone is still in (resolve).
  static bool resolve(Table& table, const std::vector<Flag>& camps);
  // Close the cave; whether another one follows (next_cave).
  static bool next_cave(Table& table);

  // From a decision of the seats in (this seat choosing `mine`: camp) to the game's end (play).
  template <class Random>
  void play(Table& table, bool mine, Random& rnd) {
    std::optional<bool> forced = mine;
    while (true) {
      choices(table, forced, camps_);
      const bool alive = resolve(table, camps_);
      forced.reset();
      if (!alive && !next_cave(table)) return;
      while (!reveal(table, rnd))  // a second hazard: the next cave, if any
        if (!next_cave(table)) return;
    }
  }

  // Turn a card; whether the cave goes on (false: a second hazard ended it) (reveal). A cave
  // just opened gets its first card here too; then the seats decide.
  template <class Random>
  static bool reveal(Table& table, Random& rnd) {
    auto& deck = table.deck;
    int total = 0;
    for (int count : deck) total += count;
    // the deck never runs out while someone is in (diamant.py); a table that says otherwise
    // is refused rather than read past its end
    if (!total) throw BadState("no card is left in the table's deck to turn");
    int x = static_cast<int>(rnd.random() * total);
    int k = 0;
    while (x >= deck[k]) {
      x -= deck[k];
      ++k;
    }
    deck[k] -= 1;
    if (k < kTreasureKinds) {
      int in = 0;
      for (Flag f : table.inside) in += f;
      const int each = kKindValue[k] / in, rest = kKindValue[k] % in;
      if (each)
        for (size_t s = 0; s < table.inside.size(); ++s)
          if (table.inside[s]) table.hauls[s] += each;
      table.pool += rest;
      return true;
    }
    const int t = k - kTreasureKinds;
    if (table.seen[t]) {
      table.removed[t] += 1;
      return false;
    }
    table.seen[t] = 1;
    return true;
  }

 private:
  int me_, others_haul_, others_hazards_;
  std::vector<Flag> camps_;  // scratch
};

// The uniform doubles of a future, as random.Random(seed).random() makes them from its bits
// (53 of them), here from the core's Rng seeded with the future's seed.
struct Uniforms {
  Rng rng;
  double random() { return uniform(rng); }
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
  // The part of the game the chance now due belongs to (Game.chance_context): the cave: its path is drawn card by card.
  int chance_context(const State& s) const { return s.cave; }
  void legal_actions(const State& s, std::vector<int>& out) const;
  void apply(State& s, int action) const;
  // The go/camp choice is made in secret and revealed together (diamant.py: secret_decision).
  bool secret_decision(const State& s) const { return s.phase == kChoose; }

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
    int act(const Diamant& game, const State& s, int seat, Rng& rng) const;
  };

  // The search bot (bots/diamant.py, DiamantSearchBot with its defaults): go or camp by the
  // mean score of `samples` futures of each, played out by Rollout. Common random numbers as
  // its twin's: each sample's seed (from the bot's Rng) seeds one stream of cards that both
  // actions are played on. It reads only the public Table, as its twin reads the seat's view.
  class Search {
   public:
    static constexpr const char* name = "search";
    int samples = 96, others_haul = 10, others_hazards = 2;
    double margin_weight = 0.01;
    void reset() {}
    int act(const Diamant& game, const State& s, int seat, Rng& rng);
    void action_values(const Diamant& game, const State& s, int seat, Rng& rng, std::vector<double>& out);

    // The mean score of go and of camp (evaluate).
    std::array<double, 2> evaluate(const State& s, int seat, Rng& rng);
    // The win credit at the end of the game plus margin_weight times the lead (score).
    double score(const std::vector<int>& banked, int me) const;

   private:
    Table future_;  // scratch: the table a future is played on
  };
  // The native ports of this game's Python bots (bind/ports.h binds each for Python).
  using Ports = std::tuple<Search>;

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
