// Diamant's bots: the C++ twins of tablezoo/bots/diamant.py's DiamantThresholdBot (Heuristic)
// and DiamantSearchBot (Search), with the search bot's simulator (Table, threshold_camps,
// one_card_camps, Rollout). diamant.h declares them (the bindings and the C++ tests reach them
// through the Diamant class); the rules are diamant.cc's.
#include "diamant.h"

#include <algorithm>
#include <optional>

namespace tablezoo::diamant {

// ----------------------------------------------------------------------------- the heuristic bot

// DiamantThresholdBot.act
int Diamant::Heuristic::act(const Diamant&, const State& s, int seat, Rng&) const {
  int seen = 0, inside = 0;
  for (int h : s.seen) seen += h != 0;
  for (Flag in : s.inside) inside += in;
  const bool risky = seen >= hazards;
  const bool rich = s.hauls[seat] + s.pool / std::max(1, inside) >= haul;
  return risky || rich ? kCamp : kGo;
}

// ----------------------------------------------------------------------------- the search bot

// Table.of_view: the cave, the deck, the hazards seen and removed, who is in, the hauls, the
// banked gems and the pool; all public (the pending choices are not read).
Table Table::of_state(const State& s) {
  Table t;
  t.cave = s.cave;
  std::copy(s.deck.begin(), s.deck.end(), t.deck.begin());
  std::copy(s.seen.begin(), s.seen.end(), t.seen.begin());
  std::copy(s.removed.begin(), s.removed.end(), t.removed.begin());
  t.inside = s.inside;
  t.hauls = s.hauls;
  t.banked = s.banked;
  t.pool = s.pool;
  return t;
}

// threshold_camps
bool threshold_camps(const Table& table, int seat, int haul, int hazards) {
  int seen = 0, inside = 0;
  for (int h : table.seen) seen += h;
  if (seen >= hazards) return true;
  for (Flag in : table.inside) inside += in;
  return table.hauls[seat] + table.pool / std::max(1, inside) >= haul;
}

// one_card_camps: camping banks the haul and pool / (leaving + 1); going on keeps that at
// stake against the chance of a second hazard (exact from the deck), for an even share of
// the next treasure.
bool one_card_camps(const Table& table, int seat, int staying, int leaving) {
  const auto& deck = table.deck;
  int total = 0;
  for (int count : deck) total += count;
  if (total == 0) return true;
  int bust = 0;
  for (int t = 0; t < kHazards; ++t)
    if (table.seen[t]) bust += deck[kTreasureKinds + t];
  staying = std::max(1, staying);
  int gain = 0;
  for (int k = 0; k < kTreasureKinds; ++k)
    if (deck[k]) gain += deck[k] * (kKindValue[k] / staying);
  const int at_stake = table.hauls[seat] + table.pool / (leaving + 1);
  // go: (total - bust) / total of (at_stake + gain / (total - bust)); camp: at_stake
  return (total - bust) * at_stake + gain <= total * at_stake;
}

// Rollout.choices
void Rollout::choices(const Table& table, std::optional<bool> mine, std::vector<Flag>& camps) const {
  const int n = static_cast<int>(table.inside.size());
  camps.assign(n, kNo);
  for (int s = 0; s < n; ++s)
    if (table.inside[s] && s != me_) camps[s] = threshold_camps(table, s, others_haul_, others_hazards_) ? kYes : kNo;
  if (table.inside[me_]) {
    if (!mine) {
      int leaving = 0, inside = 0;
      for (int s = 0; s < n; ++s) {
        leaving += camps[s];
        inside += table.inside[s];
      }
      mine = one_card_camps(table, me_, inside - leaving, leaving);
    }
    camps[me_] = *mine ? kYes : kNo;
  }
}

// Rollout.resolve
bool Rollout::resolve(Table& table, const std::vector<Flag>& camps) {
  int returners = 0;
  for (Flag camp : camps) returners += camp;
  if (returners) {
    const int share = table.pool / returners;
    table.pool -= share * returners;
    for (size_t s = 0; s < camps.size(); ++s)
      if (camps[s]) {
        table.banked[s] += table.hauls[s] + share;
        table.hauls[s] = 0;
        table.inside[s] = kNo;
      }
  }
  return std::find(table.inside.begin(), table.inside.end(), kYes) != table.inside.end();
}

// Rollout.next_cave
bool Rollout::next_cave(Table& table) {
  table.cave += 1;
  if (table.cave > kCaves) return false;
  for (int k = 0; k < kKinds; ++k)
    table.deck[k] = k < kTreasureKinds ? kFullDeck[k] : kHazardCopies - table.removed[k - kTreasureKinds];
  table.seen.fill(0);
  std::fill(table.inside.begin(), table.inside.end(), kYes);
  std::fill(table.hauls.begin(), table.hauls.end(), 0);
  table.pool = 0;
  return true;
}

// DiamantSearchBot.act: camp only where its mean is strictly higher (go on a tie).
int Diamant::Search::act(const Diamant&, const State& s, int seat, Rng& rng) {
  const auto values = evaluate(s, seat, rng);
  return values[kCamp] > values[kGo] ? kCamp : kGo;
}

// DiamantSearchBot.action_values: legal_actions' order is go, camp.
void Diamant::Search::action_values(const Diamant&, const State& s, int seat, Rng& rng, std::vector<double>& out) {
  const auto values = evaluate(s, seat, rng);
  out.assign(values.begin(), values.end());
}

// DiamantSearchBot.evaluate: one seed per sample; both actions are played on its stream.
std::array<double, 2> Diamant::Search::evaluate(const State& s, int seat, Rng& rng) {
  const Table table = Table::of_state(s);
  Rollout rollout(seat, others_haul, others_hazards);
  std::array<double, 2> totals{};
  for (int i = 0; i < samples; ++i) {
    const uint64_t seed = rng.next_uint64();
    for (int action : {kGo, kCamp}) {
      future_ = table;
      Uniforms rnd{Rng(seed)};
      rollout.play(future_, action == kCamp, rnd);
      totals[action] += score(future_.banked, seat);
    }
  }
  return {totals[kGo] / samples, totals[kCamp] / samples};
}

// DiamantSearchBot.score
double Diamant::Search::score(const std::vector<int>& banked, int me) const {
  const int mine = banked[me];
  int best_other = -1;
  for (size_t s = 0; s < banked.size(); ++s)
    if (static_cast<int>(s) != me) best_other = std::max(best_other, banked[s]);
  double credit;
  if (mine > best_other) {
    credit = 1.0;
  } else if (mine < best_other) {
    credit = 0.0;
  } else {
    int tied = 0;
    for (size_t s = 0; s < banked.size(); ++s) tied += static_cast<int>(s) != me && banked[s] == mine;
    credit = 1.0 / (1 + tied);
  }
  return credit + margin_weight * (mine - best_other);
}

}  // namespace tablezoo::diamant
