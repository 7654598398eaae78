// To Court the King's bot: the C++ twin of tablezoo/bots/court.py's CourtGreedyBot (Heuristic,
// with its Steps). court.h declares it (the bindings and the C++ tests reach it through the Court
// class); the rules are court.cc's, and the helpers of theirs it uses too are rules.h's.
#include "court.h"
#include "rules.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace tablezoo::court {

using detail::astronomer_dice;
using detail::bit;
using detail::count_dice;
using detail::kAbilitySlot;
using detail::philosopher_sources;

// ----------------------------------------------------------------------------- the heuristic bot
// bots/court.py, CourtGreedyBot, function by function: act, _take, _play, _stop, _rollouts,
// _convert, _philosopher, _alchemist.

void Steps::push(int action) {
  if (size_ == kCapacity) throw std::logic_error("a plan of the heuristic bot has more steps than a turn allows");
  steps_[size_++] = action;
}

namespace {

using Settings = HeuristicSettings;

// READY_BONUS: rough extra target dice a ready card is worth (for the stopping estimate), in
// the reference's order (the bonus is summed in it: the same estimate to the last bit).
constexpr std::pair<int, double> kReadyBonus[] = {
    {kMagician, 1.0}, {kAstronomer, 1.0}, {kQueen, 1.0},       {kMaid, 0.5},     {kNoblewoman, 0.5},
    {kNobleman, 0.4}, {kPhilosopher, 0.4}, {kAlchemist, 0.6}, {kMerchant, 0.5}, {kFool, 0.2}};

// GROUP_CARDS: the cards a group of that many equal dice buys.
constexpr std::pair<int, int> kGroupCards[] = {{2, kFarmer}, {3, kGuard},   {4, kHunter},
                                               {5, kKnight}, {6, kGeneral}, {7, kKing}};

// CONVERTERS: cards that change active dice, narrowest first.
constexpr int kConverters[] = {kMaid, kNoblewoman, kNobleman, kPhilosopher, kAlchemist, kAstronomer, kMagician};

// The kinds (as bits) a result's value is read from: every kind with a value (the Queen has
// none), or MONOTONE: those whose cost stays met when dice are added to a result.
constexpr int kValued = (1 << kQueen) - 1;
constexpr int kMonotone = kValued & ~(1 << kMaid) & ~(1 << kPhilosopher);

// expected_matches(k): the expected target dice that k non-target active dice still yield when
// each roll sets aside its matches, or one wasted die when there is none; made as the
// reference makes it (the same sums in the same order).
const std::array<double, 32> kExpectedMatches = [] {
  std::array<double, 32> out{};
  for (int k = 1; k < 32; ++k) {
    double total = 0.0;
    for (int m = 0; m <= k; ++m) {
      double comb = 1;  // math.comb(k, m), exact
      for (int i = 1; i <= m; ++i) comb = comb * (k - m + i) / i;
      const double p = comb * std::pow(1.0 / 6, static_cast<double>(m)) * std::pow(5.0 / 6, static_cast<double>(k - m));
      total += p * (m ? m + out[k - m] : out[k - 1]);
    }
    out[k] = total;
  }
  return out;
}();

int aside_all(int face, int count) { return count > 1 ? kAsideAll + face : kAside + face; }

bool contains(const std::vector<int>& legal, int action) {
  return std::find(legal.begin(), legal.end(), action) != legal.end();
}

// The value of the best card `result` lets the seat take (0: none), among `kinds` (bits).
double result_value(const Counts& result, const Cards& held, const Cards& supply, const Settings& settings,
                    int kinds = kValued) {
  const auto& values = settings.values;
  double best = 0.0;
  if (supply[kFool] && !held[kFool]) best = values[kFool];
  if (held[kFool]) best = std::max(best, values[kCharlatan]);
  for (int kind = kFarmer; kind < kQueen; ++kind)  // kinds_met
    if (supply[kind] && !held[kind] && (kinds >> kind & 1) && meets_cost(kind, result))
      best = std::max(best, values[kind]);
  return best;
}

int extra_dice(const Cards& held) {
  int dice = 0;
  for (int kind = 0; kind < kNumKinds; ++kind) dice += kCards[kind].extra_dice() * held[kind];
  return dice;
}

// _take: the legal card with the highest value (ties to the later kind), the King passed up
// for a General when the result is only seven of a kind and the bot is king_behind extra
// dice behind some opponent; pass only when nothing else is legal.
int take_card(const Settings& settings, const State& s, const std::vector<int>& legal) {
  bool drop_king = false;
  if (contains(legal, kTake + kKing) && contains(legal, kTake + kGeneral) &&
      *std::max_element(s.aside.begin(), s.aside.end()) == 7) {
    const int me = s.turn;
    int theirs = 0;
    for (int seat = 0; seat < static_cast<int>(s.held.size()); ++seat)
      if (seat != me) theirs = std::max(theirs, extra_dice(s.held[seat]));
    drop_king = theirs - extra_dice(s.held[me]) >= settings.king_behind;
  }
  int best = kPass;
  for (int action : legal) {
    if (action == kPass || (drop_king && action == kTake + kKing)) continue;
    const double value = settings.values[action - kTake];
    if (best == kPass || std::make_pair(value, action) > std::make_pair(settings.values[best - kTake], best))
      best = action;
  }
  return best;
}

// _fallback: a legal move when no plan applies (never expected).
int fallback(const State& s, const std::vector<int>& legal) {
  if (s.phase == Phase::kPick && contains(legal, kDone)) return kDone;
  return legal.front();
}

// _spare_die: a non-target active die to change or re-roll: the lowest.
int spare_die(const Counts& a, int t) {
  for (int f = 0; f < 6; ++f)
    if (a[f] && f != t) return f;
  return -1;  // (callers have one)
}

int use_action(int kind) { return kUse + kAbilitySlot[kind]; }

// A gain (target dice made) and the steps that make it.
struct Conversion {
  int gain = 0;
  Steps steps;
};

Conversion philosopher(const Counts& a, int t) {
  Conversion best;
  const int sources = philosopher_sources(a);
  for (int s = 0; s < 6; ++s) {
    if (!(sources >> s & 1) || s == t) continue;
    for (int d = 0; d < 5; ++d) {
      if (d == t || a[d] - (d == s ? 1 : 0) <= 0) continue;
      for (int k = 1; k <= std::min(s, 5 - d); ++k) {
        const int gain = (s - k == t ? 1 : 0) + (d + k == t ? 1 : 0);
        if (gain > best.gain) {
          best.gain = gain;
          best.steps.clear();
          for (int step : {use_action(kPhilosopher), kDie + s, kDie + d, kPips + k - 1}) best.steps.push(step);
        }
      }
    }
  }
  return best;
}

// The best share-out of two or three non-target dice (values are faces 0..5, pips face + 1);
// the dice in the reference's order: every distinct choice of faces, ascending.
Conversion alchemist(const Counts& a, int t) {
  Conversion best;
  const int v = t + 1;  // the target's pips
  Counts left = a;
  left[t] = 0;
  auto consider = [&](const int* dice, int size) {
    int total = 0;
    for (int i = 0; i < size; ++i) total += dice[i] + 1;
    int values[2], count = 0;  // the values (pips) given, all but the last die's
    if (total == size * v) {
      for (int i = 0; i < size - 1; ++i) values[count++] = v;
    } else if (size == 3 && 1 <= total - 2 * v && total - 2 * v <= 6) {
      values[count++] = v;
      values[count++] = v;
    } else if (1 + (size - 2) <= total - v && total - v <= 6 * (size - 1)) {
      values[count++] = v;
      if (size == 3) {  // split the rest over two dice, neither the target
        const int rest = total - v;
        int x = 6;
        while (!(1 <= rest - x && rest - x <= 6)) --x;
        values[count++] = x;
      }
    } else {
      return;
    }
    int gain = 0, given = 0;
    for (int i = 0; i < count; ++i) gain += values[i] == v, given += values[i];
    gain += total - given == v;
    if (gain > best.gain) {
      best.gain = gain;
      best.steps.clear();
      best.steps.push(use_action(kAlchemist));
      for (int i = 0; i < size; ++i) best.steps.push(kDie + dice[i]);
      if (size == 2) best.steps.push(kDone);
      for (int i = 0; i < count; ++i) best.steps.push(kValue + values[i] - 1);
    }
  };
  for (int f = 0; f < 6; ++f) {  // pairs f <= g
    if (!left[f]) continue;
    for (int g = f; g < 6; ++g)
      if (left[g] - (g == f ? 1 : 0) > 0) {
        const int dice[] = {f, g};
        consider(dice, 2);
      }
  }
  for (int f = 0; f < 6; ++f) {  // triplets f <= g <= h
    if (!left[f]) continue;
    for (int g = f; g < 6; ++g) {
      if (left[g] - (g == f ? 1 : 0) <= 0) continue;
      for (int h = g; h < 6; ++h)
        if (left[h] - (h == f ? 1 : 0) - (h == g ? 1 : 0) > 0) {
          const int dice[] = {f, g, h};
          consider(dice, 3);
        }
    }
  }
  return best;
}

// _convert: how many active dice `card` turns into target dice, and the steps of that use.
Conversion convert(int card, const State& s, int t) {
  const Counts& a = s.active;
  const int use = use_action(card);
  Conversion out;
  if (card == kMaid) {
    for (int d = std::max(0, t - 3); d < t; ++d)
      if (a[d]) {
        out.gain = 1;
        for (int step : {use, kDie + d, kPips + t - d - 1}) out.steps.push(step);
        return out;
      }
    return out;
  }
  if (card == kNoblewoman || card == kNobleman) {
    const int d = t - (card == kNoblewoman ? 1 : 2);
    const int top = card == kNoblewoman ? 4 : 3;
    if (0 <= d && d <= top && a[d]) {
      out.gain = a[d];
      out.steps.push(use);
      for (int i = 0; i < a[d]; ++i) out.steps.push(kDie + d);
      out.steps.push(kDone);
    }
    return out;
  }
  if (card == kPhilosopher) return philosopher(a, t);
  if (card == kAlchemist) return alchemist(a, t);
  if (card == kAstronomer) {
    if (s.aside[t]) {
      const int dice = astronomer_dice(a, s.aside) & ~(1 << t);
      if (dice) {
        out.gain = 1;
        for (int step : {use, kDie + __builtin_ctz(dice), kValue + t}) out.steps.push(step);
      }
    }
    return out;
  }
  if (card == kMagician) {
    if (count_dice(a) - a[t]) {
      out.gain = 1;
      for (int step : {use, kDie + spare_die(a, t), kValue + t}) out.steps.push(step);
    }
    return out;
  }
  return out;
}

Steps one_step(int action) {
  Steps steps;
  steps.push(action);
  return steps;
}

}  // namespace

int Court::Heuristic::act(const Court& game, const State& s, int, Rng& rng) {
  legal_.clear();
  game.legal_actions(s, legal_);
  if (s.phase == Phase::kTake) {
    plan_.clear();
    return take_card(game.heuristic_settings(), s, legal_);
  }
  const std::pair<int, int> key = {s.round, s.pos};
  if (s.phase == Phase::kPlay && !(!plan_.empty() && plan_key_ == key)) {
    // a new decision (a stopping plan, all asides, is kept to its end)
    plan_ = play(game, s, !s.final, rng);
    plan_key_ = key;
  }
  if (!plan_.empty() && plan_key_ == key && contains(legal_, plan_.front())) return plan_.pop();
  plan_.clear();
  return fallback(s, legal_);
}

// _play: the next steps in the play phase; may_stop (not in the final round) allows stopping early.
Steps Court::Heuristic::play(const Court& game, const State& s, bool may_stop, Rng& rng) {
  const Counts &aside = s.aside, &a = s.active;
  const int ready = s.ready;
  std::array<int, 6> bring;  // per face: the ready card that brings in a die of it (-1: none)
  bring.fill(-1);
  int first_bring = -1;  // min(bring.values()): the lowest kind
  for (int kind = 0; kind < kNumKinds; ++kind)
    if (kCards[kind].brings_in_at_once() && (ready & bit(kind))) {
      bring[kCards[kind].brings_in.first()] = kind;
      if (first_bring < 0) first_bring = kind;
    }
  int t = 0;  // the target face: the most dice set aside plus active (plus a die to bring in)
  auto rank = [&](int f) { return std::make_tuple(aside[f] + a[f] + (bring[f] >= 0 ? 1 : 0), aside[f], f); };
  for (int f = 1; f < 6; ++f)
    if (rank(f) > rank(t)) t = f;
  const int others = count_dice(a) - a[t];

  if (may_stop) {
    Steps steps = stop(game, s, t, bring, rng);
    if (!steps.empty()) return steps;
  }

  // two or more target dice at once: worth a card at any time
  for (int card : {kNoblewoman, kNobleman, kPhilosopher, kAlchemist})
    if (ready & bit(card)) {
      Conversion c = convert(card, s, t);
      if (c.gain >= 2) return c.steps;
    }

  if (a[t]) {
    if (others == 0) {  // setting them aside ends the turn: use what adds dice first
      if (bring[t] >= 0) return one_step(use_action(bring[t]));
      if (ready & bit(kQueen)) {
        Steps steps = one_step(use_action(kQueen));
        steps.push(kValue + t);
        return steps;
      }
      if (first_bring >= 0) return one_step(use_action(first_bring));
    }
    return one_step(aside_all(t, a[t]));
  }

  if (s.fresh) {  // the target dice are aside: roll the others (with any brought-in dice)
    if (first_bring >= 0) return one_step(use_action(bring[t] >= 0 ? bring[t] : first_bring));
    return one_step(kRoll);
  }

  // no target die in this roll: make one, re-roll, or waste a die
  if (bring[t] >= 0) return one_step(use_action(bring[t]));
  for (int card : kConverters)
    if (ready & bit(card)) {
      Conversion c = convert(card, s, t);
      if (c.gain >= 1) return c.steps;
    }
  if (ready & bit(kQueen)) {
    Steps steps = one_step(use_action(kQueen));
    steps.push(kValue + t);
    return steps;
  }
  using Pair = std::array<int, 2>;
  for (int card : others >= 2 ? Pair{kMerchant, kFool} : Pair{kFool, kMerchant})  // the re-rolls
    if (ready & bit(card)) {
      Steps steps = one_step(use_action(card));
      if (card == kFool) {
        steps.push(kDie + spare_die(a, t));
        return steps;
      }
      for (int f = 0; f < 6; ++f)
        if (f != t)
          for (int i = 0; i < a[f]; ++i) steps.push(kDie + f);
      steps.push(kDone);
      return steps;
    }
  if (others == 1 && first_bring >= 0)  // the last die: bring in dice to roll after it
    return one_step(use_action(first_bring));
  // waste a die: a face already set aside besides the target (pairs), else the highest
  auto worth = [&](int f) { return std::make_pair(0 < aside[f] && aside[f] < 3, f); };
  int waste = -1;
  for (int f = 0; f < 6; ++f)
    if (a[f] && f != t && (waste < 0 || worth(f) > worth(waste))) waste = f;
  return one_step(kAside + waste);
}

// _stop: set every die aside now when that buys a clearly better card than going on: a quick
// estimate picks the candidates, rollouts of the rest of the turn decide.
Steps Court::Heuristic::stop(const Court& game, const State& s, int t, const std::array<int, 6>& bring, Rng& rng) {
  const Settings& settings = game.heuristic_settings();
  const Counts &aside = s.aside, &a = s.active;
  const Cards &held = s.held[s.turn], &supply = s.supply;
  Counts now;
  for (int f = 0; f < 6; ++f) now[f] = aside[f] + a[f];
  const double stop_value = result_value(now, held, supply, settings);
  if (stop_value <= 0) return {};
  const int others = count_dice(a) - a[t];
  double group = aside[t] + a[t] + kExpectedMatches[others] + (bring[t] >= 0 ? 1 : 0);
  double bonus = 0.0;
  for (const auto& [card, value] : kReadyBonus)
    if (s.ready & bit(card)) bonus += value;
  group += bonus;
  Counts kept = aside;
  kept[t] += a[t];
  double go_on = result_value(kept, held, supply, settings, kMonotone);
  for (const auto& [size, card] : kGroupCards)
    if (group + 0.5 >= size && supply[card] && !held[card]) go_on = std::max(go_on, settings.values[card]);
  if (stop_value <= go_on) return {};
  if (settings.samples && stop_value < rollouts(game, s, rng) + settings.stop_margin) return {};
  Steps steps;
  for (int f = 0; f < 6; ++f)
    if (a[f]) steps.push(aside_all(f, a[f]));
  return steps;
}

// _rollouts: the mean value of the best card at the end of the turn, going on without stopping
// (the core's rules play the turn out; the dice come from rng).
double Court::Heuristic::rollouts(const Court& game, const State& s, Rng& rng) {
  const Settings& settings = game.heuristic_settings();
  const Cards &held = s.held[s.turn], &supply = s.supply;
  double total = 0.0;
  for (int sample = 0; sample < settings.samples; ++sample) {
    State& r = rollout_ = s;
    while (r.phase != Phase::kTake) {
      if (r.phase == Phase::kPlay) {
        for (int action : play(game, r, false, rng)) {
          rollout_legal_.clear();  // each step checked, as the reference's apply checks it
          game.legal_actions(r, rollout_legal_);
          if (!contains(rollout_legal_, action)) return std::numeric_limits<double>::infinity();
          game.apply(r, action);
        }
      } else if (game.to_move(r) == kChance) {
        game.apply_chance(r, game.sample_chance(r, rng));
      } else {  // an unfinished card use (not expected): no estimate
        return std::numeric_limits<double>::infinity();
      }
    }
    total += result_value(r.aside, held, supply, settings);
  }
  return total / settings.samples;
}

}  // namespace tablezoo::court
