// Heckmeck's bots: the C++ twins of tablezoo/bots/heckmeck.py's HeckmeckGreedyBot (Heuristic),
// TurnSolver and HeckmeckSolverBot (Solver). heckmeck.h declares them (the bindings and the C++
// tests reach them through the Heckmeck class); the rules are heckmeck.cc's.
#include "heckmeck.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tablezoo::heckmeck {

// ----------------------------------------------------------------------------- the heuristic bot

// HeckmeckGreedyBot.act
int Heckmeck::Heuristic::act(const Heckmeck& game, const State& s, int, Rng&) {
  legal.clear();
  game.legal_actions(s, legal);
  auto has = [&](int a) { return std::find(legal.begin(), legal.end(), a) != legal.end(); };
  if (s.phase == kKeeping) {
    if (has(kWorm) && !s.kept[kWorm]) return kWorm;
    int best = legal.front();  // the face whose dice add the most; ties go to the higher face
    for (int f : legal)
      if (s.roll[f] * kFaceValue[f] >= s.roll[best] * kFaceValue[best]) best = f;
    return best;
  }
  const int claim = has(kSteal) ? kSteal : has(kTake) ? kTake : -1;
  if (claim >= 0 && (!has(kRoll) || s.total >= stop_at || s.left < min_dice)) return claim;
  return has(kRoll) ? kRoll : claim;
}

// ----------------------------------------------------------------------------- the solver bot

TurnSolver::TurnSolver(const std::vector<int>& grill, const std::vector<int>& own_stack,
                       const std::vector<int>& opponent_tops, double steal)
    : bust_value_(own_stack.empty() ? 0.0 : -worms(own_stack.back())),
      after_keep_(index(kAllFaces, kDice, kMaxTotal) + 1, std::numeric_limits<double>::quiet_NaN()),
      before_roll_(after_keep_.size(), std::numeric_limits<double>::quiet_NaN()) {
  for (int s = 0; s <= kMaxTotal; ++s) {
    std::optional<double> best;
    int below = 0;  // the highest grill tile the sum reaches
    for (int t : grill)
      if (t <= s) below = std::max(below, t);
    if (below) best = worms(below);
    if (std::find(opponent_tops.begin(), opponent_tops.end(), s) != opponent_tops.end())
      best = std::max(best.value_or(0.0), steal * worms(s));
    claim_[s] = best;
  }
}

TurnSolver TurnSolver::for_state(const State& s, double steal) {
  std::vector<int> tops;
  for (size_t seat = 0; seat < s.stacks.size(); ++seat)
    if (!s.stacks[seat].empty() && static_cast<int>(seat) != s.turn) tops.push_back(s.stacks[seat].back());
  return TurnSolver(s.grill, s.stacks[s.turn], tops, steal);
}

size_t TurnSolver::index(int kept, int left, int total) {
  if (kept < 0 || kept > kAllFaces || left < 0 || left > kDice || total < 0 || total > kMaxTotal)
    throw BadState("the turn's kept dice, dice left and sum do not fit together");
  return (static_cast<size_t>(kept) * (kDice + 1) + left) * (kMaxTotal + 1) + total;
}

double TurnSolver::after_keep(int kept, int left, int total) {
  double& memo = after_keep_[index(kept, left, total)];
  if (!std::isnan(memo)) return memo;
  const std::optional<double> claim = claim_value(kept, total);
  if (left == 0 || kept == kAllFaces) return memo = claim ? *claim : bust_value_;
  const double rolling = before_roll(kept, left, total);
  return memo = claim ? std::max(*claim, rolling) : rolling;
}

double TurnSolver::before_roll(int kept, int left, int total) {
  double& memo = before_roll_[index(kept, left, total)];
  if (!std::isnan(memo)) return memo;
  // each size's rolls, made once (the Python reference's roll_distribution, in its order)
  static const std::array<std::vector<std::pair<Counts, double>>, kDice + 1> rolls = [] {
    std::array<std::vector<std::pair<Counts, double>>, kDice + 1> out;
    for (int k = 0; k <= kDice; ++k) out[k] = roll_distribution(k);
    return out;
  }();
  double expected = 0.0;
  for (const auto& [counts, p] : rolls[left]) {
    std::optional<double> best;
    for (int face = 0; face < 6; ++face) {
      const int n = counts[face];
      if (n && !(kept >> face & 1)) {
        const double v = after_keep(kept | 1 << face, left - n, total + n * kFaceValue[face]);
        if (!best || v > *best) best = v;
      }
    }
    expected += p * (best ? *best : bust_value_);
  }
  return memo = expected;  // the table never grows: `memo` still names its entry
}

std::pair<int, double> TurnSolver::best_keep(int kept, int left, int total, const Counts& roll) {
  int face = -1;
  double value = 0.0;
  for (int f = 0; f < 6; ++f)
    if (roll[f] && !(kept >> f & 1)) {
      const double v = after_keep(kept | 1 << f, left - roll[f], total + roll[f] * kFaceValue[f]);
      if (face < 0 || v > value) face = f, value = v;
    }
  if (face < 0) throw BadState("no face of the roll is free to keep");
  return {face, value};
}

namespace {
// The kept faces as a bit mask; a turn whose dice do not add up raises BadState (validate
// checks each field on its own, the solver needs them to agree).
int kept_mask(const State& s) {
  int mask = 0, total = 0, rolled = 0;
  for (int f = 0; f < 6; ++f) {
    if (s.kept[f]) mask |= 1 << f;
    total += s.kept[f] * kFaceValue[f];
    rolled += s.roll[f];
  }
  if (total != s.total) throw BadState("the kept dice do not add up to the turn's sum");
  if (s.phase == kKeeping && rolled != s.left) throw BadState("the roll does not have as many dice as are left");
  return mask;
}
}  // namespace

TurnSolver& Heckmeck::Solver::solver(const State& s) {
  // the board: the grill, the mover's top tile and the opponents' top tiles (sorted)
  key_.assign(s.grill.begin(), s.grill.end());
  key_.push_back(0);
  if (!s.stacks[s.turn].empty()) key_.push_back(s.stacks[s.turn].back());
  key_.push_back(0);
  const size_t tops = key_.size();
  for (size_t seat = 0; seat < s.stacks.size(); ++seat)
    if (!s.stacks[seat].empty() && static_cast<int>(seat) != s.turn) key_.push_back(s.stacks[seat].back());
  std::sort(key_.begin() + tops, key_.end());
  for (auto& [board, solver] : solvers_)
    if (board == key_) return solver;
  if (solvers_.size() >= 8) solvers_.clear();
  solvers_.emplace_back(key_, TurnSolver::for_state(s, steal(s)));
  return solvers_.back().second;
}

int Heckmeck::Solver::act(const Heckmeck& game, const State& s, int, Rng&) {
  const int kept = kept_mask(s);
  TurnSolver& solver = this->solver(s);
  if (s.phase == kKeeping) return solver.best_keep(kept, s.left, s.total, s.roll).first;
  const std::optional<double> claim = solver.claim_value(kept, s.total);
  if (s.phase == kDeciding && (!claim || solver.before_roll(kept, s.left, s.total) > *claim)) return kRoll;
  // stop: the claim worth more (a steal of the same tile number never ties a grill tile)
  const auto [tile, victim] = game.claims(s);
  if (victim >= 0 && (tile == 0 || steal(s) * worms(s.total) >= worms(tile))) return kSteal;
  return kTake;
}

void Heckmeck::Solver::action_values(const Heckmeck& game, const State& s, int, Rng&, std::vector<double>& out) {
  const int kept = kept_mask(s);
  TurnSolver& solver = this->solver(s);
  legal_.clear();
  game.legal_actions(s, legal_);
  out.clear();
  if (s.phase == kKeeping) {
    for (int f : legal_)
      out.push_back(solver.after_keep(kept | 1 << f, s.left - s.roll[f], s.total + s.roll[f] * kFaceValue[f]));
    return;
  }
  const int tile = game.claims(s).first;
  for (int a : legal_)
    out.push_back(a == kRoll   ? solver.before_roll(kept, s.left, s.total)
                  : a == kTake ? (tile ? worms(tile) : 0.0)
                               : steal(s) * worms(s.total));
}

}  // namespace tablezoo::heckmeck
