// To Court the King: the C++ twin of tablezoo/games/court.py.
#include "court.h"
#include "rules.h"

#include "core/config.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <tuple>

namespace tablezoo::court {

using detail::astronomer_dice;
using detail::bit;
using detail::count_dice;
using detail::kAbility;
using detail::kAbilitySlot;
using detail::philosopher_sources;

namespace {

// ----------------------------------------------------------------------------- the card table
// Cost(...) and Card(...) of court.py with their keyword arguments: one call each, so
// that a row of the table reads like its Python twin. The texts of the table (cost and
// ability, for people) are the reference's.

Cost anything() { return Cost{}; }
Cost of_a_kind(int size) {
  Cost c;
  c.of_a_kind = size;
  return c;
}
Cost pairs(int count) {
  Cost c;
  c.pairs = count;
  return c;
}
Cost triplets(int count) {
  Cost c;
  c.triplets = count;
  return c;
}
Cost full_house() {
  Cost c;
  c.full_house = true;
  return c;
}
Cost pip_total(int total) {
  Cost c;
  c.pip_total = total;
  return c;
}
Cost only_faces(std::initializer_list<int> shown) {
  Cost c;
  for (int face : shown) c.only_faces |= 1 << face;
  return c;
}
Cost straights(Range run, Range other = kNoFaces) {
  Cost c;
  c.straights = {run, other};
  return c;
}
Cost not_bought() {
  Cost c;
  c.bought = false;
  return c;
}

constexpr int kAny = Card::kAnyNumber;

// Card(kind, command, title, row, cost) of court.py, its keyword arguments as calls:
// Make(...).effect(E::kReroll).most_dice(kAny); a Range in braces is a Python range.
struct Make {
  Card c;
  Make(int kind, const char* command, const char* title, int row, Cost cost) {
    c.kind = kind;
    c.command = command;
    c.title = title;
    c.row = row;
    c.cost = cost;
  }
  Make& extra_rolled(int dice) {
    c.extra_rolled = dice;
    return *this;
  }
  Make& effect(Effect effect) {
    c.effect = effect;
    return *this;
  }
  Make& faces(Range faces) {
    c.faces = faces;
    return *this;
  }
  Make& fewest_dice(int dice) {
    c.fewest_dice = dice;
    return *this;
  }
  Make& most_dice(int dice) {
    c.most_dice = dice;
    return *this;
  }
  Make& pips(Range pips) {
    c.pips = pips;
    return *this;
  }
  Make& targets(Range targets) {
    c.targets = targets;
    return *this;
  }
  Make& copies_aside() {
    c.copies_aside = true;
    return *this;
  }
  Make& brings_in(Range brings_in) {
    c.brings_in = brings_in;
    return *this;
  }
  operator Card() const { return c; }
};

using E = Effect;

}  // namespace

// clang-format off
const std::array<Card, kNumKinds> kCards = {
    Make(kFool, "fool", "Fool", 0, anything()).effect(E::kReroll),
    Make(kCharlatan, "charlatan", "Charlatan", 0, anything()).extra_rolled(1),
    Make(kFarmer, "farmer", "Farmer", 1, of_a_kind(2)).extra_rolled(1),
    Make(kMaid, "maid", "Serving Maid", 1, only_faces({0, 2, 4}))
        .effect(E::kAddPips).faces(faces(1, 5)).pips({1, 4}),
    Make(kPhilosopher, "philosopher", "Philosopher", 1, only_faces({1, 3, 5}))
        .effect(E::kMovePips).faces(faces(2, 6)).targets(faces(1, 5)).pips({1, 6}),
    Make(kLaborer, "laborer", "Laborer", 1, pip_total(15)).effect(E::kBringInDie).brings_in(faces(1, 1)),
    Make(kGuard, "guard", "Guard", 1, of_a_kind(3)).effect(E::kBringInDie).brings_in(faces(2, 2)),
    Make(kHunter, "hunter", "Hunter", 2, of_a_kind(4)).effect(E::kBringInDie).brings_in(faces(3, 3)),
    Make(kMerchant, "merchant", "Merchant", 2, pip_total(20)).effect(E::kReroll).most_dice(kAny),
    Make(kAstronomer, "astronomer", "Astronomer", 2, pairs(2)).effect(E::kSetValue).copies_aside(),
    Make(kPawnbroker, "pawnbroker", "Pawn Broker", 3, pip_total(30)).effect(E::kBringInDie).brings_in(faces(4, 4)),
    Make(kNoblewoman, "noblewoman", "Noblewoman", 3, full_house())
        .effect(E::kAddPips).faces(faces(1, 5)).most_dice(kAny).pips({1, 2}),
    Make(kMagician, "magician", "Magician", 3, straights(faces(1, 5), faces(2, 6))).effect(E::kSetValue),
    Make(kKnight, "knight", "Knight", 3, of_a_kind(5)).effect(E::kBringInDie).brings_in(faces(5, 5)),
    Make(kBishop, "bishop", "Bishop", 4, pairs(3)).effect(E::kBringInDie).brings_in(faces(6, 6)),
    Make(kAlchemist, "alchemist", "Alchemist", 4, straights(faces(1, 6)))
        .effect(E::kSharePips).fewest_dice(2).most_dice(3),
    Make(kNobleman, "nobleman", "Nobleman", 4, triplets(2))
        .effect(E::kAddPips).faces(faces(1, 4)).most_dice(kAny).pips({2, 3}),
    Make(kGeneral, "general", "General", 4, of_a_kind(6)).extra_rolled(2),
    Make(kKing, "king", "King", 5, of_a_kind(7)),
    Make(kQueen, "queen", "Queen", 5, not_bought()).effect(E::kBringInDie).brings_in(kAllFaces),
};
// clang-format on

namespace {

// Copies of each kind of rows I..V for 2, 3, 4, 5 seats (ROW_COPIES).
constexpr int kRowCopies[6][4] = {{0, 0, 0, 0}, {2, 2, 3, 4}, {1, 2, 3, 3}, {1, 2, 2, 3}, {1, 2, 2, 3}, {1, 1, 1, 1}};

}  // namespace

// ABILITY and each kind's index in it (declared in rules.h: the bot reads them too), made from
// the card table above (after it: a translation unit initialises its tables in order).
const std::array<int, kNumAbility> detail::kAbility = [] {
  std::array<int, kNumAbility> out{};
  int i = 0;
  for (const Card& card : kCards)
    if (card.effect != Effect::kNone) out.at(i++) = card.kind;
  if (i != kNumAbility) throw std::logic_error("the card table has not 16 ability cards");
  return out;
}();
const std::array<int, kNumKinds> detail::kAbilitySlot = [] {
  std::array<int, kNumKinds> out{};
  out.fill(-1);
  for (int i = 0; i < kNumAbility; ++i) out[kAbility[i]] = i;
  return out;
}();

namespace {

// The bits of the cards that need a set-aside die of another value to copy (the Astronomer).
const int kCopiesAsideBits = [] {
  int bits = 0;
  for (int kind : kAbility)
    if (kCards[kind].copies_aside) bits |= bit(kind);
  return bits;
}();

const std::array<const char*, 6> kFaceNames = {"1", "2", "3", "4", "5", "6"};
// Dice written out as court.py's DICE_FACES.text: highest first ("6 5 2").
void write_dice(Last& text, const Counts& counts) { tablezoo::write_dice(text, counts, kFaceNames, true); }


const char* phase_word(Phase phase) { return names(phase)[static_cast<int>(phase)]; }

bool any_dice(const Counts& counts) {
  for (int c : counts)
    if (c) return true;
  return false;
}

void clear(Counts& counts) { std::fill(counts.begin(), counts.end(), 0); }

int pips_of(const Counts& counts) {
  int total = 0;
  for (int face = 0; face < 6; ++face) total += (face + 1) * counts[face];
  return total;
}

// A triplet and a pair with different dice (five equal dice are one).
bool has_full_house(const Counts& counts) {
  for (int triplet = 0; triplet < 6; ++triplet)
    if (counts[triplet] >= 3)
      for (int pair = 0; pair < 6; ++pair)
        if (counts[pair] - (pair == triplet ? 3 : 0) >= 2) return true;
  return false;
}

// The phase a use of the card starts with (one that brings in a die at once has none).
Phase first_step(const Card& card) {
  if (card.picks_dice()) return Phase::kPick;
  if (card.effect == Effect::kBringInDie) return Phase::kChooseValue;
  return Phase::kChooseDie;
}

// The step after the die is chosen, by effect (STEP_AFTER_DIE; a re-roll of one die has none).
Phase step_after_die(Effect effect) {
  if (effect == Effect::kMovePips) return Phase::kChooseTarget;
  if (effect == Effect::kAddPips) return Phase::kChoosePips;
  return Phase::kChooseValue;  // kSetValue
}

// Whether the ability of `card` can be applied to these active dice (the Astronomer's
// need of a set-aside die of another value not included).
bool can_change(const Card& card, const Counts& active) {
  if (card.effect == Effect::kAddPips) {  // a die it may raise
    for (int face = card.faces.start; face < card.faces.stop; ++face)
      if (active[face]) return true;
    return false;
  }
  if (card.effect == Effect::kMovePips) return philosopher_sources(active) != 0;
  if (card.effect == Effect::kSharePips) return count_dice(active) >= card.fewest_dice;
  return true;  // re-rolls, new values and new dice apply to any dice
}

// The ability cards (as bits) whose use needs nothing but active dice of some faces (all but
// the Philosopher, the Alchemist and the Astronomer), for each set of faces (as bits).
const std::array<int, 64> kUsableByFaces = [] {
  std::array<int, 64> out{};
  for (int faces = 0; faces < 64; ++faces) {
    Counts one_each{};
    for (int face = 0; face < 6; ++face) one_each[face] = faces >> face & 1;
    for (int i = 0; i < kNumAbility; ++i) {
      const Card& card = kCards[kAbility[i]];
      const bool by_faces = card.effect != Effect::kMovePips && card.effect != Effect::kSharePips && !card.copies_aside;
      if (by_faces && can_change(card, one_each)) out[faces] |= 1 << i;
    }
  }
  return out;
}();

// The ability cards (as bits) that can change these active dice, the Astronomer (which needs
// a set-aside die too) left out: play_options' `usable`, read from a table where it can be.
int usable_cards(const Counts& active) {
  int faces = 0;
  for (int face = 0; face < 6; ++face)
    if (active[face]) faces |= 1 << face;
  int bits = kUsableByFaces[faces];
  for (int kind : {kPhilosopher, kAlchemist})
    if (can_change(kCards[kind], active)) bits |= bit(kind);
  return bits;
}

// Dice a seat with these cards (counts per kind) rolls at the start of its turn.
int rolled_dice(const Cards& held) {
  int dice = kBaseDice;
  for (int kind = 0; kind < kNumKinds; ++kind) dice += held[kind] * kCards[kind].extra_rolled;
  return dice;
}

// The bits of the ability cards in a seat's cards (counts per kind).
int held_bits(const Cards& held) {
  int bits = 0;
  for (int kind : kAbility)
    if (held[kind]) bits |= bit(kind);
  return bits;
}

// require_range with a field name made on the spot ("held[2][5]")
void in_range(int value, int low, int high, const std::string& name) { require_range(value, low, high, name.c_str()); }
std::string entry(const std::string& list, int i) { return list + "[" + std::to_string(i) + "]"; }

}  // namespace

// ----------------------------------------------------------------------------- module functions

bool Cost::met_by(const Counts& counts) const {
  if (!bought) return false;
  if (of_a_kind && *std::max_element(counts.begin(), counts.end()) < of_a_kind) return false;
  if (pairs || triplets) {
    int twos = 0, threes = 0;
    for (int c : counts) twos += c / 2, threes += c / 3;
    if (twos < pairs || threes < triplets) return false;
  }
  if (full_house && !has_full_house(counts)) return false;
  if (pip_total && pips_of(counts) < pip_total) return false;
  if (only_faces) {
    if (!any_dice(counts)) return false;
    for (int face = 0; face < 6; ++face)
      if (counts[face] && !(only_faces >> face & 1)) return false;
  }
  if (!straights[0].empty()) {
    bool any_run = false;
    for (const Range& run : straights) {
      if (run.empty()) continue;
      bool all = true;
      for (int face = run.start; face < run.stop; ++face) all = all && counts[face] > 0;
      any_run = any_run || all;
    }
    if (!any_run) return false;
  }
  return true;
}

int max_dice(int num_seats) {
  int dice = kBaseDice + (num_seats - 1) * kCards[kCharlatan].extra_rolled;
  for (const Card& card : kCards) dice += card.extra_dice();
  return dice;
}

Cards initial_supply(int num_seats) {
  Cards supply{};
  for (const Card& card : kCards)
    if (card.row) supply[card.kind] = kRowCopies[card.row][num_seats - 2];
  supply[kFool] = num_seats;  // Decision: as many row-0 cards as players
  return supply;
}

bool meets_cost(int kind, const Counts& counts) { return kCards[kind].cost.met_by(counts); }

Strength strength(const Counts& counts) {
  const int size = *std::max_element(counts.begin(), counts.end());
  int face = 5;
  while (face > 0 && counts[face] != size) --face;  // the higher face of two largest groups
  return {size, face + 1};
}

// ----------------------------------------------------------------------------- state machine

Court::Court(int num_seats, const Options& options) : n_(num_seats) {
  // the supply table has a column per seat count: no other count has a game
  // (heuristic_rollouts is no rule: the core's knob for the tests of its heuristic bot)
  check_config("To Court the King", num_seats, 2, 5, options, {"heuristic_rollouts"});
  max_dice_ = max_dice(num_seats);
  supply0_ = initial_supply(num_seats);
  const auto rollouts = options.find("heuristic_rollouts");  // not a rule: the heuristic bot's, for tests
  if (rollouts != options.end() && !rollouts->second) heuristic_.samples = 0;
}

State Court::initial_state() const {
  State s;
  s.supply = supply0_;
  s.held.assign(n_, Cards{});
  for (int seat = 0; seat < n_; ++seat) s.order.push_back(seat);
  s.results.assign(n_, Strength{0, 0});
  return s;
}

int Court::to_move(const State& s) const {
  const Phase phase = s.phase;
  if (phase == Phase::kRolling || phase == Phase::kStart) return kChance;
  if (phase == Phase::kOver) return kTerminal;
  return s.turn;
}

void Court::legal_actions(const State& s, std::vector<int>& out) const {
  const Phase phase = s.phase;
  const Counts& active = s.active;
  if (phase == Phase::kPlay) {
    for (int face = 0; face < 6; ++face)
      if (active[face]) out.push_back(kAside + face);
    for (int face = 0; face < 6; ++face)
      if (active[face] > 1) out.push_back(kAsideAll + face);
    if (s.fresh) out.push_back(kRoll);
    if (const int ready = s.ready) {
      int bits = ready & usable_cards(active);  // the ready cards that can change these dice
      if (ready & kCopiesAsideBits && astronomer_dice(active, s.aside)) bits |= ready & kCopiesAsideBits;
      for (; bits; bits &= bits - 1) out.push_back(kUse + __builtin_ctz(bits));
    }
    return;
  }
  if (phase == Phase::kTake) {
    const Cards& held = s.held[s.turn];
    const Cards& supply = s.supply;
    if (supply[kFool] && !held[kFool]) out.push_back(kTake + kFool);
    if (held[kFool]) out.push_back(kTake + kCharlatan);
    for (int kind = kFarmer; kind < kQueen; ++kind)  // kinds_met: the Farmer to the King
      if (supply[kind] && !held[kind] && meets_cost(kind, s.aside)) out.push_back(kTake + kind);
    out.push_back(kPass);
    return;
  }
  if (phase == Phase::kStart || phase == Phase::kRolling || phase == Phase::kOver) return;
  const Card& card = kCards[s.card];
  auto faces_with = [&](int bits) {
    for (int face = 0; face < 6; ++face)
      if (bits >> face & 1) out.push_back(kDie + face);
  };
  switch (phase) {
    case Phase::kChooseDie:
      if (card.effect == Effect::kMovePips) {
        faces_with(philosopher_sources(active));
      } else if (card.copies_aside) {
        faces_with(astronomer_dice(active, s.aside));
      } else {
        for (int face = card.faces.start; face < card.faces.stop; ++face)
          if (active[face]) out.push_back(kDie + face);
      }
      return;
    case Phase::kChooseTarget:
      for (int face = card.targets.start; face < card.targets.stop; ++face)
        if (active[face] - (face == s.die ? 1 : 0) > 0) out.push_back(kDie + face);
      return;
    case Phase::kChoosePips: {
      int most;
      if (card.effect == Effect::kAddPips)
        most = std::min(card.pips.last(), kLastFace - s.die);
      else  // moved pips: the chosen die keeps 1 at least, the target shows 6 at most
        most = std::min({card.pips.last(), s.die, kLastFace - s.target});
      for (int pips = card.pips.first(); pips <= most; ++pips) out.push_back(kPips + pips - 1);
      return;
    }
    case Phase::kChooseValue:
      if (card.copies_aside) {
        for (int face = 0; face < 6; ++face)
          if (s.aside[face] && face != s.die) out.push_back(kValue + face);
      } else if (card.effect == Effect::kSetValue) {
        for (int face = 0; face < 6; ++face)
          if (face != s.die) out.push_back(kValue + face);
      } else if (card.effect == Effect::kSharePips) {  // the dice after this one can still share out the rest
        const int rest = s.pool_dice - 1, pool = s.pool;
        for (int face = 0; face < 6; ++face)
          if (rest <= pool - face - 1 && pool - face - 1 <= 6 * rest) out.push_back(kValue + face);
      } else {
        for (int face = card.brings_in.start; face < card.brings_in.stop; ++face) out.push_back(kValue + face);
      }
      return;
    case Phase::kPick:
      for (int face = card.faces.start; face < card.faces.stop; ++face)
        if (active[face]) out.push_back(kDie + face);
      if (count_dice(s.picked) >= card.fewest_dice) out.push_back(kDone);
      return;
    default:
      return;
  }
}

void Court::apply(State& s, int action) const {
  if (action < kRoll) {  // aside one die, or all dice showing a value
    Counts& active = s.active;
    if (action < kAsideAll) {
      active[action] -= 1;
      s.aside[action] += 1;
    } else {
      const int face = action - kAsideAll;
      s.aside[face] += active[face];
      active[face] = 0;
    }
    s.fresh = true;
    if (!any_dice(active)) result_final(s);
  } else if (action == kRoll) {
    s.to_roll = count_dice(s.active);
    clear(s.active);
    s.fresh = false;
    s.phase = Phase::kRolling;
  } else if (action < kDie) {
    use(s, kAbility[action - kUse]);
  } else if (action < kValue) {
    die(s, action - kDie);
  } else if (action < kPips) {
    value(s, action - kValue);
  } else if (action < kDone) {
    pips(s, action - kPips + 1);
  } else if (action == kDone) {
    done(s);
  } else if (action < kPass) {
    take(s, action - kTake);
  } else {
    s.last = seat_name<Last>(s.turn) + " passed with ";
    write_dice(s.last, s.aside);
    end_turn(s);
  }
}

// ----------------------------------------------------------------------------- card uses

void Court::use(State& s, int kind) const {
  s.ready &= ~bit(kind);
  const Card& card = kCards[kind];
  if (card.brings_in_at_once()) {  // a die of the card's one value comes in at once
    s.active[card.brings_in.first()] += 1;
    return;
  }
  s.card = kind;
  s.phase = first_step(card);
}

void Court::card_done(State& s) const {
  s.card = -1;
  s.die = -1;
  s.target = -1;
  s.phase = Phase::kPlay;
}

void Court::die(State& s, int face) const {
  const Phase phase = s.phase;
  const Card& card = kCards[s.card];
  Counts& active = s.active;
  if (phase == Phase::kPick) {
    active[face] -= 1;
    s.picked[face] += 1;
    if (card.effect == Effect::kSharePips) {
      s.pool += face + 1;
      s.pool_dice += 1;
      if (s.pool_dice == card.most_dice) s.phase = Phase::kChooseValue;  // no more dice to pick: share out the pips
    }
  } else if (phase == Phase::kChooseTarget) {
    s.target = face;
    s.phase = Phase::kChoosePips;
  } else if (card.effect == Effect::kReroll) {  // one die, re-rolled at once
    active[face] -= 1;
    card_done(s);
    s.to_roll = 1;
    s.phase = Phase::kRolling;
  } else {
    s.die = face;
    s.phase = step_after_die(card.effect);
  }
}

void Court::value(State& s, int face) const {
  Counts& active = s.active;
  const Card& card = kCards[s.card];
  if (card.effect == Effect::kBringInDie) {
    active[face] += 1;
  } else if (card.effect == Effect::kSharePips) {
    active[face] += 1;
    s.pool -= face + 1;
    s.pool_dice -= 1;
    if (s.pool_dice > 1) return;
    active[s.pool - 1] += 1;  // the last die gets the rest of the sum (1..6: the legal values saw to it)
    s.pool = 0;
    s.pool_dice = 0;
    clear(s.picked);
  } else {  // a new value for the chosen die
    active[s.die] -= 1;
    active[face] += 1;
  }
  card_done(s);
}

void Court::pips(State& s, int pips) const {
  Counts& active = s.active;
  const int chosen = s.die;
  active[chosen] -= 1;
  if (kCards[s.card].effect == Effect::kAddPips) {
    active[chosen + pips] += 1;
  } else {  // moved from the chosen die to the target
    active[chosen - pips] += 1;
    active[s.target] -= 1;
    active[s.target + pips] += 1;
  }
  card_done(s);
}

void Court::done(State& s) const {
  const Card& card = kCards[s.card];
  Counts& picked = s.picked;
  if (card.effect == Effect::kSharePips) {
    s.phase = Phase::kChooseValue;
    return;
  }
  if (card.effect == Effect::kReroll) {
    s.to_roll = count_dice(picked);
    clear(picked);
    card_done(s);
    s.phase = Phase::kRolling;
    return;
  }
  const int raised = card.pips.first();  // every picked die gets the card's pips
  for (int face = 0; face < 6; ++face)
    if (picked[face]) s.active[face + raised] += picked[face];
  clear(picked);
  card_done(s);
}

// ----------------------------------------------------------------------------- results and turns

void Court::result_final(State& s) const {
  if (!s.final) {
    s.phase = Phase::kTake;
    return;
  }
  const int seat = s.turn;
  const Strength result = strength(s.aside);
  s.results[seat] = result;
  Last text = seat_name<Last>(s.turn) + " rolled ";
  write_dice(text, s.aside);
  if (result > s.best || (seat == s.claimer && result == s.best)) {
    s.best = result;
    give_king(s, seat);
    text += ", takes the King card";
  }
  s.last = text;
  end_turn(s);
}

void Court::give_king(State& s, int seat) const {
  if (s.holder != seat) {
    s.held[s.holder][kKing] -= 1;
    s.held[seat][kKing] += 1;
    s.holder = seat;
  }
}

void Court::take(State& s, int kind) const {
  const int seat = s.turn;
  Cards& held = s.held[seat];
  Last text = seat_name<Last>(seat) + " took the " + kCards[kind].title + " with ";
  write_dice(text, s.aside);
  if (kind == kCharlatan) {  // turn his Fool over: no card from the supply
    held[kFool] -= 1;
    held[kCharlatan] += 1;
  } else {
    s.supply[kind] -= 1;
    held[kind] += 1;
  }
  if (kind == kKing) {
    s.supply[kQueen] -= 1;
    held[kQueen] += 1;
    s.claimer = s.holder = seat;
    s.best = strength(s.aside);
    s.results[seat] = s.best;
    text += " and the Queen";
  }
  s.last = text;
  end_turn(s);
}

void Court::end_turn(State& s) const {
  clear(s.active);
  clear(s.aside);
  s.ready = 0;
  s.fresh = false;
  s.pos += 1;
  const int n = n_;
  if (s.pos == static_cast<int>(s.order.size())) {  // the round is over
    if (s.final) {
      s.phase = Phase::kOver;
      return;
    }
    const int start = s.order.back();  // the last player starts the next round
    int i = 0;
    for (int k = 0; k < n; ++k) {
      const int seat = (start + k) % n;
      if (seat != s.claimer) s.order[i++] = seat;
    }
    if (s.claimer >= 0) {  // final round: the claimer skips his place, plays last
      s.order[i] = s.claimer;
      s.final = true;
    }
    s.pos = 0;
    s.round += 1;
  }
  s.turn = s.order[s.pos];
  s.phase = Phase::kStart;
}

// ----------------------------------------------------------------------------- chance

int Court::roll_size(const State& s) const {
  if (s.phase == Phase::kStart) return rolled_dice(s.held[s.turn]);
  return s.to_roll;
}

std::vector<std::pair<Counts, double>> Court::chance_outcomes(const State& s) const {
  const int k = roll_size(s);
  if (k > kMaxEnumerated)
    throw NotEnumerable("To Court the King enumerates rolls of up to " + std::to_string(kMaxEnumerated) +
                        " dice, not " + std::to_string(k));
  return roll_distribution(k);
}

void Court::apply_chance(State& s, const Outcome& o) const {
  if (s.phase == Phase::kStart) s.ready = held_bits(s.held[s.turn]);
  for (int face = 0; face < 6; ++face) s.active[face] += o[face];
  s.to_roll = 0;
  s.phase = Phase::kPlay;
}

// ----------------------------------------------------------------------------- results

std::vector<double> Court::scores(const State& s) const {
  std::vector<double> out;
  out.reserve(s.held.size());
  for (const auto& held : s.held) {
    int score = kKingPoints * held[kKing];
    for (int kind = 0; kind < kNumKinds; ++kind) score += kCards[kind].extra_dice() * held[kind];
    out.push_back(score);
  }
  return out;
}

std::vector<int> Court::winners(const State& s) const {
  if (s.holder >= 0) return {s.holder};
  return {};
}

// ----------------------------------------------------------------------------- what seats see

void Court::observe(const State& s, int seat, float* out) const {
  const int n = n_;
  std::memset(out, 0, sizeof(float) * observation_size());
  // offsets of observation_fields(n)
  const int to_move_at = 0, place = n, played = 2 * n, held = 3 * n, supply = 23 * n;
  const int active = supply + kNumKinds - 1, aside = active + 6, fresh = aside + 6, used = fresh + 1;
  const int phase_at = used + kNumAbility, card_at = phase_at + kNumDecisionPhases, chosen = card_at + kNumAbility;
  const int target = chosen + 6, picked = target + 6, pool = picked + 6, pool_dice = pool + 1;
  const int final_at = pool_dice + 1, best = final_at + 1;
  auto relative = [n, seat](int other) { return ((other - seat) % n + n) % n; };
  // the table: each seat's place and whether it played, cards held, the supply
  for (int i = 0; i < static_cast<int>(s.order.size()); ++i) {
    const int k = relative(s.order[i]);
    out[place + k] = static_cast<float>(i + 1);
    out[played + k] = i < s.pos ? 1.0f : 0.0f;
  }
  for (int k = 0; k < n; ++k) {
    const Cards& cards = s.held[(seat + k) % n];
    for (int kind = 0; kind < kNumKinds; ++kind) out[held + kNumKinds * k + kind] = static_cast<float>(cards[kind]);
  }
  out[supply] = static_cast<float>(s.supply[kFool]);  // the Charlatan left out
  for (int kind = kFarmer; kind < kNumKinds; ++kind) out[supply + kind - 1] = static_cast<float>(s.supply[kind]);
  for (int face = 0; face < 6; ++face) {
    out[active + face] = static_cast<float>(s.active[face]);
    out[aside + face] = static_cast<float>(s.aside[face]);
  }
  if (s.best[0]) {
    out[final_at] = s.final ? 1.0f : 0.0f;
    out[best] = static_cast<float>(s.best[0]);
    out[best + 1] = static_cast<float>(s.best[1]);
  }
  const int index = static_cast<int>(s.phase);
  if (index >= kNumDecisionPhases) return;  // no seat is to decide
  out[to_move_at + relative(s.turn)] = 1;
  out[fresh] = s.fresh ? 1.0f : 0.0f;
  const int was_used = held_bits(s.held[s.turn]) & ~s.ready;
  for (int i = 0; i < kNumAbility; ++i)
    if (was_used >> i & 1) out[used + i] = 1;
  out[phase_at + index] = 1;
  if (s.card >= 0) {
    out[card_at + kAbilitySlot[s.card]] = 1;
    if (s.die >= 0) out[chosen + s.die] = 1;
    if (s.target >= 0) out[target + s.target] = 1;
    for (int face = 0; face < 6; ++face) out[picked + face] = static_cast<float>(s.picked[face]);
    out[pool] = static_cast<float>(s.pool);
    out[pool_dice] = static_cast<float>(s.pool_dice);
  }
}

// ----------------------------------------------------------------------------- hostile states

void Court::validate(const State& s) const {
  const int n = n_, most = max_dice_;
  // The cards: each seat holds at most one of a kind (Charlatans: up to one per row-0
  // card), and per kind the supply and the hands add up to the game's copies (a row-0
  // card is a Fool or a Charlatan); this bounds the dice of a turn by max_dice.
  require_size(s.supply.size(), kNumKinds, "supply");
  require_size(s.held.size(), n, "held");
  for (int seat = 0; seat < n; ++seat) require_size(s.held[seat].size(), kNumKinds, entry("held", seat).c_str());
  for (int kind = 0; kind < kNumKinds; ++kind) {
    in_range(s.supply[kind], 0, supply0_[kind], entry("supply", kind));
    int copies = s.supply[kind];
    for (int seat = 0; seat < n; ++seat) {
      in_range(s.held[seat][kind], 0, kind == kCharlatan ? n : 1, entry(entry("held", seat), kind));
      copies += s.held[seat][kind] + (kind == kFool ? s.held[seat][kCharlatan] : 0);
    }
    if (kind != kCharlatan)
      require(copies == supply0_[kind], std::string("the ") + kCards[kind].title +
                                            " cards of supply and held add up to " + std::to_string(copies) +
                                            ", not " + std::to_string(supply0_[kind]));
  }

  // The round: its order is the seats once each, pos its place, turn the seat there.
  require_size(s.order.size(), n, "order");
  int seen = 0;
  for (int i = 0; i < n; ++i) {
    in_range(s.order[i], 0, n - 1, entry("order", i));
    require(!(seen >> s.order[i] & 1), "order has seat " + std::to_string(s.order[i]) + " twice");
    seen |= 1 << s.order[i];
  }
  const Phase phase = s.phase;  // one of the words (reading it checked that)
  const bool over = phase == Phase::kOver;
  in_range(s.pos, 0, over ? n : n - 1, "pos");  // at the end every seat of the order has played
  in_range(s.turn, 0, n - 1, "turn");
  require(over || s.turn == s.order[s.pos], "turn is not the seat at order[pos]");
  require(s.round >= 1, "round is " + std::to_string(s.round) + ", not 1 or more");

  // The dice of the turn: no count below 0, and no more dice than a turn can have.
  require_size(s.active.size(), 6, "active");
  require_size(s.aside.size(), 6, "aside");
  require_size(s.picked.size(), 6, "picked");
  for (int face = 0; face < 6; ++face) {
    in_range(s.active[face], 0, most, entry("active", face));
    in_range(s.aside[face], 0, most, entry("aside", face));
    in_range(s.picked[face], 0, most, entry("picked", face));
  }
  const bool rolling = phase == Phase::kRolling;
  in_range(s.to_roll, rolling ? 1 : 0, rolling ? most : 0, "to_roll");  // a pending roll throws a die at least
  // ready: bits of the mover's own ability cards (a use action is offered for each)
  in_range(s.ready, 0, (1 << kNumAbility) - 1, "ready");
  require((s.ready & ~held_bits(s.held[s.turn])) == 0, "ready has the bit of a card the seat to play does not hold");
  if (phase == Phase::kStart)
    require(!any_dice(s.active) && !any_dice(s.aside), "a turn starts with dice on the table");
  if (phase == Phase::kPlay) require(any_dice(s.active), "phase play has no active die");
  if (phase == Phase::kTake)
    require(!s.final && !any_dice(s.active) && any_dice(s.aside),
            "phase take needs a result: no active die, a die set aside, not the final round");

  // The card in use and its steps.
  in_range(s.card, -1, kNumKinds - 1, "card");
  in_range(s.die, -1, kLastFace, "die");
  in_range(s.target, -1, kLastFace, "target");
  const bool card_step = phase == Phase::kChooseDie || phase == Phase::kChooseTarget || phase == Phase::kChoosePips ||
                         phase == Phase::kChooseValue || phase == Phase::kPick;
  if (card_step) {
    validate_card_step(s, phase);
  } else {
    require(s.card == -1 && s.die == -1 && s.target == -1, "card, die and target are set outside a card's use");
    require(!any_dice(s.picked) && s.pool == 0 && s.pool_dice == 0,
            "picked, pool and pool_dice are set outside a card's use");
  }
  // A card still ready to bring in a die adds one, and so does the Queen's die while its
  // value is chosen: counted too, the bound on the dice holds to the turn's end.
  int to_bring_in = card_step && kCards[s.card].effect == Effect::kBringInDie ? 1 : 0;
  for (int i = 0; i < kNumAbility; ++i)
    if ((s.ready >> i & 1) && kCards[kAbility[i]].effect == Effect::kBringInDie) ++to_bring_in;
  // (the Alchemist's picked dice go back to the active ones one by one as they get their
  // values: pool_dice of them are still to come)
  const bool sharing = phase == Phase::kChooseValue && kCards[s.card].effect == Effect::kSharePips;
  const int pending = sharing ? s.pool_dice : count_dice(s.picked);
  const int dice = count_dice(s.active) + count_dice(s.aside) + pending + s.to_roll;
  require(dice + to_bring_in <= most, "the turn has " + std::to_string(dice) + " dice and " +
                                          std::to_string(to_bring_in) + " to bring in, more than " +
                                          std::to_string(most));

  // The end of the game: the claimer holds the Queen, the holder the King card; both
  // exist once the King is taken, and the final round comes after the claim.
  in_range(s.claimer, -1, n - 1, "claimer");
  in_range(s.holder, -1, n - 1, "holder");
  const bool claimed = s.supply[kKing] == 0;
  require((s.claimer >= 0) == claimed && (s.holder >= 0) == claimed,
          "claimer and holder are seats exactly when the King is out of the supply");
  if (claimed) {
    require(s.held[s.holder][kKing] == 1, "holder does not hold the King card");
    require(s.held[s.claimer][kQueen] == 1, "claimer does not hold the Queen");
  }
  require(!s.final || claimed, "final is set but nobody claimed the King");
  require(!over || claimed, "the game is over but nobody claimed the King: there is no winner");
  auto check_result = [&](const Strength& result, const std::string& name) {
    in_range(result[0], 0, most, name + "[0]");
    in_range(result[1], 0, 6, name + "[1]");
  };
  check_result(s.best, "best");
  require_size(s.results.size(), n, "results");
  for (int seat = 0; seat < n; ++seat) check_result(s.results[seat], entry("results", seat));

  // A seat to move has a move (pass always; a card step offers what leads somewhere).
  if (to_move(s) >= 0) {
    std::vector<int> legal;
    legal_actions(s, legal);
    require(!legal.empty(),
            "seat " + std::to_string(s.turn) + " is to move in phase " + phase_word(s.phase) + " but has no move");
  }
}

// The card fields in a card's step: the card is one used in steps, the phase one of its
// steps, and the die, the target, the picked dice and the Alchemist's pool what the steps
// before left (the rules index the dice by them).
void Court::validate_card_step(const State& s, Phase phase) const {
  require(s.card >= 0 && kAbilitySlot[s.card] >= 0 && !kCards[s.card].brings_in_at_once(),
          "card " + std::to_string(s.card) + " has no steps to take");
  const Card& card = kCards[s.card];
  const Effect effect = card.effect;
  bool step = false;
  switch (phase) {
    case Phase::kPick:
      step = card.picks_dice();
      break;
    case Phase::kChooseDie:
      step = first_step(card) == Phase::kChooseDie;
      break;
    case Phase::kChooseTarget:
      step = effect == Effect::kMovePips;
      break;
    case Phase::kChoosePips:
      step = !card.picks_dice() && (effect == Effect::kAddPips || effect == Effect::kMovePips);
      break;
    case Phase::kChooseValue:
      step = effect == Effect::kSetValue || effect == Effect::kSharePips || effect == Effect::kBringInDie;
      break;
    default:
      break;
  }
  require(step, std::string("phase ") + phase_word(s.phase) + " is no step of the " + card.title + "'s use");

  const bool has_die = phase == Phase::kChooseTarget || phase == Phase::kChoosePips ||
                       (phase == Phase::kChooseValue && effect == Effect::kSetValue);
  if (has_die)
    require(s.die >= 0 && card.faces.contains(s.die) && s.active[s.die] >= 1,
            "die is not the face of an active die the " + std::string(card.title) + " may choose");
  else
    require(s.die == -1, "die is set before the die step");
  const bool has_target = phase == Phase::kChoosePips && effect == Effect::kMovePips;
  if (has_target)
    require(s.target >= 0 && card.targets.contains(s.target) && s.active[s.target] - (s.target == s.die ? 1 : 0) >= 1,
            "target is not the face of another active die the Philosopher may choose");
  else
    require(s.target == -1, "target is set before the target step");

  for (int face = 0; face < 6; ++face)
    require(!s.picked[face] || (card.picks_dice() && card.faces.contains(face)),
            "picked has a die the " + std::string(card.title) + " does not pick");
  if (phase == Phase::kPick) {  // enough dice to finish the pick (the Alchemist's two)
    int can_pick = count_dice(s.picked);
    for (int face = card.faces.start; face < card.faces.stop; ++face) can_pick += s.active[face];
    require(can_pick >= card.fewest_dice, "the " + std::string(card.title) + " has fewer dice to pick than it needs");
  }
  if (effect == Effect::kSharePips) {
    if (phase == Phase::kPick) {
      require(s.pool_dice == count_dice(s.picked) && s.pool == pips_of(s.picked) && s.pool_dice < card.most_dice,
              "pool and pool_dice are not the picked dice's pips and count");
    } else {  // values to give: the last die gets the rest, 1..6
      in_range(s.pool_dice, card.fewest_dice, card.most_dice, "pool_dice");
      in_range(s.pool, s.pool_dice, 6 * s.pool_dice, "pool");
    }
  } else {
    require(s.pool == 0 && s.pool_dice == 0, "pool and pool_dice are set outside the Alchemist's use");
  }
}

}  // namespace tablezoo::court
