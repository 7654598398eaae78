// To Court the King (Um Krone und Kragen): the C++ twin of tablezoo/games/court.py.
//
// The module docstring of court.py is the spec; this file follows its Python twin
// function by function (the card table, the cost checks, legal_actions, _apply and the
// card steps _use/_die/_value/_pips/_done, _result_final, _take, _end_turn, chance,
// observe) so that the two read side by side. The lockstep tests hold them to the same
// games. What is for people (view, render, command aliases, the card table's texts)
// stays in the reference.
//
// The rules are defined in court.cc (with rules.h, their helpers the bot uses too); the
// heuristic bot declared here with the game's class in bots.cc, as its twin in bots/court.py.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo::court {

// --------------------------------------------------------------------------- cards

enum Kind : int {
  kFool,
  kCharlatan,
  kFarmer,
  kMaid,
  kPhilosopher,
  kLaborer,
  kGuard,
  kHunter,
  kMerchant,
  kAstronomer,
  kPawnbroker,
  kNoblewoman,
  kMagician,
  kKnight,
  kBishop,
  kAlchemist,
  kNobleman,
  kGeneral,
  kKing,
  kQueen,
  kNumKinds
};

// What using a card's ability does to the active dice (Card.effect).
enum class Effect {
  kNone,        // nothing to use: extra dice every turn, or the King
  kReroll,      // roll the chosen dice again (Fool, Merchant)
  kAddPips,     // raise each chosen die by its pips (Maid, Noblewoman, Nobleman)
  kMovePips,    // pips from the chosen die to a target die (Philosopher)
  kSetValue,    // the chosen die shows the chosen value (Astronomer, Magician)
  kSharePips,   // the chosen dice share their pip total out anew (Alchemist)
  kBringInDie,  // a new active die (Laborer ... Bishop; Queen: any value)
};

constexpr int kLastFace = 5;  // the face (index) of a 6: no die shows more

// A Python range, of faces (indices 0..5, as in dice counts) or of pips: start .. stop - 1.
struct Range {
  int start = 0, stop = 0;
  constexpr bool contains(int face) const { return start <= face && face < stop; }
  constexpr bool empty() const { return stop <= start; }
  constexpr int size() const { return empty() ? 0 : stop - start; }
  constexpr int first() const { return start; }
  constexpr int last() const { return stop - 1; }
};

// The faces of the die values low to high (faces(1, 6) is every face).
constexpr Range faces(int low, int high) { return {low - 1, high}; }
constexpr Range kAllFaces = faces(1, 6);
constexpr Range kNoFaces = {0, 0};

// What a result (counts of 1s..6s) must include for a card to be taken; every condition
// given must hold, and a cost with none is met by anything. Groups count each die in one
// group only: pairs are sum(count / 2), triplets sum(count / 3).
struct Cost {
  int of_a_kind = 0;       // a group of at least this many equal dice
  int pairs = 0;           // at least this many pairs
  int triplets = 0;        // at least this many triplets
  bool full_house = false; // a triplet and a pair
  int pip_total = 0;       // the pips of all dice add up to at least this
  int only_faces = 0;      // bits of faces: every die shows one of them (and there is one); 0: none
  std::array<Range, 2> straights = {kNoFaces, kNoFaces};  // a die of every face of one run
  bool bought = true;      // false: no result takes the card (the Queen comes with the King)

  bool met_by(const Counts& counts) const;
};

// One kind of card: what it costs, the extra dice it gives and its ability. A use
// chooses fewest_dice to most_dice active dice among `faces` (one die: `die V`;
// several: `die V` each, then `done`), and then, by `effect`, pips from `pips`, a value,
// or a target die among `targets`; a card that brings in a die adds an active die of a
// face in `brings_in`.
struct Card {
  static constexpr int kAnyNumber = 0;  // most_dice: any number (Python's None)

  int kind = 0;
  const char* command = "";  // its name in commands and views
  const char* title = "";    // its name for people (in `last`)
  int row = 0;               // 0 = the Fool/Charlatan card, 1..5 = rows I..V of the supply
  Cost cost;
  int extra_rolled = 0;      // extra dice rolled at the start of every turn
  Effect effect = Effect::kNone;
  Range faces = kAllFaces;   // the faces of the active dice the ability may choose
  int fewest_dice = 1;       // dice to choose before `done` is offered
  int most_dice = 1;         // dice it may choose (kAnyNumber: any)
  Range pips = kNoFaces;     // pips added to or moved between dice
  Range targets = kNoFaces;  // faces of the die receiving moved pips
  bool copies_aside = false; // the new value must be one a set-aside die shows
  Range brings_in = kNoFaces;  // faces the die it brings in may show

  // Extra dice per turn the card gives, rolled at the start or brought in.
  int extra_dice() const { return extra_rolled + (brings_in.empty() ? 0 : 1); }
  // Whether its use brings in a die of its one value without a step to choose.
  bool brings_in_at_once() const { return brings_in.size() == 1; }
  // Whether its use picks dice one by one and ends with `done`.
  bool picks_dice() const { return most_dice != 1; }
};

// The card table, in kind order (CARDS of court.py).
extern const std::array<Card, kNumKinds> kCards;

constexpr int kNumAbility = 16;   // kinds with an ability to use (ABILITY)
constexpr int kNumTakeable = 19;  // kinds a `take` names: all but the Queen (TAKEABLE)
constexpr int kBaseDice = 3;
constexpr int kKingPoints = 10;   // score of holding the King card
constexpr int kMaxEnumerated = 8; // rolls of up to this many dice are enumerated exactly

// The most dice a turn can have: 3 + every card's extra dice + a Charlatan per row-0 card.
int max_dice(int num_seats);
// Counts per kind of card (a seat's cards, the supply).
using Cards = std::array<int, kNumKinds>;
// Copies of each kind in the supply at the start; Charlatans are never in it.
Cards initial_supply(int num_seats);
// Whether a result meets the cost of a kind (the conditions on cards held not included).
bool meets_cost(int kind, const Counts& counts);
// A final-round result's strength {size, face}: the largest group and its (higher) face.
using Strength = std::array<int, 2>;
Strength strength(const Counts& counts);

// --------------------------------------------------------------------------- actions

constexpr int kAside = 0;                     // 0..5: aside one die of value 1..6
constexpr int kAsideAll = 6;                  // 6..11: aside every die showing it
constexpr int kRoll = 12;
constexpr int kUse = 13;                      // 13..28: use ABILITY[i]
constexpr int kDie = kUse + kNumAbility;      // 29..34
constexpr int kValue = kDie + 6;              // 35..40
constexpr int kPips = kValue + 6;             // 41..45: pips 1..5
constexpr int kDone = kPips + 5;              // 46
constexpr int kTake = kDone + 1;              // 47..65: take kind i
constexpr int kPass = kTake + kNumTakeable;   // 66
constexpr int kNumActions = kPass + 1;
static_assert(kNumActions == 67, "the action ids of court.py");

// --------------------------------------------------------------------------- phases
// The first seven are the decisions, in the order of the observation's phase field. A
// phase is kept as a number and read and written as its word (names).

enum class Phase : uint8_t {
  kPlay,          // set aside, roll or use a card
  kTake,          // the result is final: take a card or pass
  kChooseDie,     // choose one active die for the card in use
  kChooseTarget,  // the Philosopher's second die
  kChoosePips,    // the Maid's or the Philosopher's pips
  kChooseValue,   // the Astronomer's, Magician's, Queen's or Alchemist's value
  kPick,          // pick dice one by one (Merchant, Noblewoman, Nobleman, Alchemist), then done
  kStart,         // chance: the turn's first roll (3 dice + the extra dice of the cards)
  kRolling,       // chance: roll to_roll dice into the active dice
  kOver,
};
constexpr int kNumDecisionPhases = 7;
inline const std::array<const char*, 10>& names(Phase) {
  static constexpr std::array<const char*, 10> words = {"play", "take",  "die",   "target", "pips",
                                                         "value", "pick", "start", "roll",   "over"};
  return words;
}

// --------------------------------------------------------------------------- state

// `last` holds the longest message: "seat 4 took the King with " + 18 dice + " and the Queen"
// (75 characters; 18 dice, max_dice(5), are "6 6 ... 6", 35 characters).
using Last = Note<96>;

struct State {
  Cards supply{};                        // copies left per kind
  std::vector<Cards> held;               // per seat, per kind
  std::vector<int> order;                // seats of this round, in turn order
  int pos = 0;                           // index in `order` of the seat to play
  int turn = 0;                          // the seat to play (order[pos])
  int round = 1;                         // rounds begun, the final round included
  Phase phase = Phase::kStart;
  int to_roll = 0;                       // dice a pending roll (phase "roll") throws
  Counts active{};                       // active dice per face
  Counts aside{};                        // set-aside dice per face
  bool fresh = false;                    // a die was set aside since the last roll
  int ready = 0;                         // bits of the mover's ability cards not used yet
  int card = -1;                         // the ability card being used
  int die = -1;                          // the face (index) of the die chosen for it
  int target = -1;                       // the face of the Philosopher's target die
  Counts picked{};                       // dice picked for the card
  int pool = 0;                          // Alchemist: pips still to share out
  int pool_dice = 0;                     // Alchemist: dice still to get a value
  bool final = false;                    // the final round is being played
  int claimer = -1;                      // the seat that claimed the King (holds the Queen)
  int holder = -1;                       // the seat holding the King card
  Strength best = {0, 0};                // best {size, face} in the end
  std::vector<Strength> results;         // per seat: claim/final {size, face}
  Last last;                             // what happened last, for people

  static constexpr auto fields() {
    return std::make_tuple(
        field("supply", &State::supply), field("held", &State::held), field("order", &State::order),
        field("pos", &State::pos), field("turn", &State::turn), field("round", &State::round),
        field("phase", &State::phase), field("to_roll", &State::to_roll), field("active", &State::active),
        field("aside", &State::aside), field("fresh", &State::fresh), field("ready", &State::ready),
        field("card", &State::card), field("die", &State::die), field("target", &State::target),
        field("picked", &State::picked), field("pool", &State::pool), field("pool_dice", &State::pool_dice),
        field("final", &State::final), field("claimer", &State::claimer), field("holder", &State::holder),
        field("best", &State::best), field("results", &State::results), field("last", &State::last));
  }
};

// --------------------------------------------------------------------------- the heuristic bot

// How much the bot wants each card it can take (CARD_VALUE of bots/court.py; the Queen, which
// comes with the King, is never taken).
constexpr std::array<double, kNumKinds> kCardValue = {
    1.0 /* fool */,       4.0 /* charlatan */, 4.0 /* farmer */,   2.5 /* maid */,     2.0 /* philosopher */,
    5.0 /* laborer */,    5.0 /* guard */,     6.5 /* hunter */,   3.0 /* merchant */, 5.5 /* astronomer */,
    6.5 /* pawnbroker */, 4.0 /* noblewoman */, 6.5 /* magician */, 7.5 /* knight */,  7.5 /* bishop */,
    4.8 /* alchemist */,  4.0 /* nobleman */,  8.0 /* general */,  10.0 /* king */,   0.0 /* queen */};

// The heuristic bot's settings: CourtGreedyBot's arguments, with its defaults.
struct HeuristicSettings {
  double stop_margin = 0.0;  // set everything aside early only when that buys a card worth this much more
                             // than the rollouts' mean
  int samples = 24;          // rollouts per stopping decision (0: stop on the quick estimate alone)
  int king_behind = 3;       // pass up a bare seven of a kind's King for a General when some opponent has
                             // at least this many more extra dice
  std::array<double, kNumKinds> values = kCardValue;
};

// The steps still to play of one decision of the bot (a card use, or every die set aside at
// once). The longest is the Merchant's: its use, a step per re-rolled die (18 dice at most,
// max_dice(5)) and done.
class Steps {
 public:
  static constexpr int kCapacity = 24;
  bool empty() const { return next_ == size_; }
  int front() const { return steps_[next_]; }
  int pop() { return steps_[next_++]; }
  void clear() { size_ = next_ = 0; }
  void push(int action);  // throws std::logic_error beyond kCapacity (no turn has the dice for it)
  const int* begin() const { return steps_.data() + next_; }
  const int* end() const { return steps_.data() + size_; }

 private:
  std::array<int, kCapacity> steps_{};
  int size_ = 0, next_ = 0;
};

// --------------------------------------------------------------------------- the game

class Court {
 public:
  using State = court::State;
  using Outcome = Counts;

  Court(int num_seats, const Options& options);
  int num_seats() const { return n_; }
  int num_actions() const { return kNumActions; }
  int observation_size() const { return 23 * n_ + 94; }

  State initial_state() const;
  int to_move(const State& s) const;
  // The part of the game the chance now due belongs to (Game.chance_context): the seat to play: its rolls are its turn's chance.
  int chance_context(const State& s) const { return s.turn; }
  void legal_actions(const State& s, std::vector<int>& out) const;
  void apply(State& s, int action) const;

  // How many dice the pending roll throws.
  int roll_size(const State& s) const;
  // The roll as the reference draws it (roll_counts: one draw below 6**k, as base-6 digits).
  template <class Bits>
  Outcome sample_chance(const State& s, Bits& bits) const {
    return roll_counts(bits, roll_size(s));
  }
  std::vector<std::pair<Outcome, double>> chance_outcomes(const State& s) const;
  void check_outcome(const State& s, const Outcome& o) const { check_roll(o, roll_size(s)); }
  void apply_chance(State& s, const Outcome& o) const;

  void observe(const State& s, int seat, float* out) const;
  // Game.determinize: everything is public (the dice to come are chance), so a plain copy.
  template <class Bits>
  void determinize(const State& s, int, Bits&, State& out) const {
    out = s;
  }
  std::vector<double> scores(const State& s) const;
  std::vector<int> winners(const State& s) const;
  void validate(const State& s) const;

  // The heuristic bot (bots/court.py, CourtGreedyBot; its docstring says how it plays): the
  // most valuable card it may take; in the play phase, a plan of steps for the largest group
  // of equal dice, kept across the steps of one decision (as _plan and _plan_key, keyed by
  // round and place in the round). Where the quick estimate says setting every die aside now
  // buys a better card, `samples` rollouts of the rest of the turn decide, their dice drawn
  // from the Rng passed to act (so only there it may decide otherwise than its Python twin,
  // whose rollouts draw their own dice). The whole game is public: it reads the state.
  class Heuristic {
   public:
    static constexpr bool exists = true;
    void reset() { plan_.clear(); }
    int act(const Court& game, const State& s, int seat, Rng& rng);

   private:
    Steps play(const Court& game, const State& s, bool may_stop, Rng& rng);
    Steps stop(const Court& game, const State& s, int target, const std::array<int, 6>& bring, Rng& rng);
    double rollouts(const Court& game, const State& s, Rng& rng);

    Steps plan_;                          // the steps still to play of the current decision
    std::pair<int, int> plan_key_{0, 0};  // (round, pos) of the turn it belongs to
    std::vector<int> legal_;              // the legal moves of the position to decide
    State rollout_;                       // scratch: the state a rollout plays on
    std::vector<int> rollout_legal_;      // scratch: its legal moves
  };
  // The settings the bot plays with: CourtGreedyBot's defaults, but for a game built with the
  // option heuristic_rollouts = false (no rule: a knob for the tests, which compare the bot with
  // CourtGreedyBot(samples=0) move for move): no rollouts.
  const HeuristicSettings& heuristic_settings() const { return heuristic_; }

 private:
  void use(State& s, int kind) const;
  void card_done(State& s) const;
  void die(State& s, int face) const;
  void value(State& s, int face) const;
  void pips(State& s, int pips) const;
  void done(State& s) const;
  void result_final(State& s) const;
  void give_king(State& s, int seat) const;
  void take(State& s, int kind) const;
  void end_turn(State& s) const;
  void validate_card_step(const State& s, Phase phase) const;

  int n_;
  int max_dice_;
  Cards supply0_{};
  HeuristicSettings heuristic_;
};

}  // namespace tablezoo::court
