// Heckmeck am Bratwurmeck: the C++ twin of tablezoo/games/heckmeck.py.
#include "heckmeck.h"

#include "core/config.h"

#include <algorithm>
#include <cstring>

namespace tablezoo::heckmeck {

namespace {
const std::array<const char*, 6> kFaceNames = {"1", "2", "3", "4", "5", "W"};
}  // namespace

Heckmeck::Heckmeck(int num_seats, const Options& options) : n_(num_seats) {
  check_config("Heckmeck", num_seats, 2, 7, options, {"quick"});
  quick_ = option(options, "quick");
}

State Heckmeck::initial_state() const {
  State s;
  for (int t = 21; t <= 36; ++t) s.grill.push_back(t);
  s.stacks.assign(n_, {});
  return s;
}

int Heckmeck::to_move(const State& s) const {
  if (s.phase == kRolling) return kChance;
  if (s.phase == kOver) return kTerminal;
  return s.turn;
}

std::pair<int, int> Heckmeck::claims(const State& s) const {
  if (!s.kept[kWorm]) return {0, -1};
  const int sum = s.total;
  auto i = std::upper_bound(s.grill.begin(), s.grill.end(), sum);
  const int tile = i != s.grill.begin() ? *(i - 1) : 0;
  int victim = -1;
  if (21 <= sum && sum <= 36) {
    for (int seat = 0; seat < n_; ++seat) {
      const auto& stack = s.stacks[seat];
      if (!stack.empty() && stack.back() == sum && seat != s.turn) {
        victim = seat;
        break;
      }
    }
  }
  return {tile, victim};
}

void Heckmeck::legal_actions(const State& s, std::vector<int>& out) const {
  if (s.phase == kKeeping) {
    for (int f = 0; f < 6; ++f)
      if (s.roll[f] && !s.kept[f]) out.push_back(f);
  } else if (s.phase == kDeciding || s.phase == kClaiming) {
    auto [tile, victim] = claims(s);
    if (s.phase == kDeciding) out.push_back(kRoll);
    if (tile) out.push_back(kTake);
    if (victim >= 0) out.push_back(kSteal);
  }
}

void Heckmeck::apply(State& s, int action) const {
  if (action < kRoll) {  // keep a face
    const int count = s.roll[action];
    s.kept[action] = count;
    s.total += count * kFaceValue[action];
    s.left -= count;
    std::fill(s.roll.begin(), s.roll.end(), 0);
    const bool face_free = std::find(s.kept.begin(), s.kept.end(), 0) != s.kept.end();
    if (s.left && face_free) {
      s.phase = kDeciding;
      return;
    }
    auto [tile, victim] = claims(s);
    if (tile || victim >= 0)
      s.phase = kClaiming;
    else
      bust(s, "no claim with all dice or faces kept");
  } else if (action == kRoll) {
    s.phase = kRolling;
  } else {
    auto [tile, victim] = claims(s);
    auto& me = s.stacks[s.turn];
    if (action == kTake) {
      s.grill.erase(std::find(s.grill.begin(), s.grill.end(), tile));
      me.push_back(tile);
      end_turn(s, seat_name<Text>(s.turn) + " took " + tile + " with " + s.total);
    } else {
      tile = s.stacks[victim].back();
      s.stacks[victim].pop_back();
      me.push_back(tile);
      end_turn(s, seat_name<Text>(s.turn) + " stole " + tile + " from " + seat_name<Text>(victim));
    }
  }
}

void Heckmeck::bust(State& s, const Text& why) const {
  auto& stack = s.stacks[s.turn];
  Text note = seat_name<Text>(s.turn) + " busted (" + why + ")";
  if (!stack.empty()) {
    const int tile = stack.back();
    stack.pop_back();
    s.grill.insert(std::upper_bound(s.grill.begin(), s.grill.end(), tile), tile);
    note += ", returned ";
    note += tile;
    const int highest = s.grill.back();
    if (quick_ || highest != tile) {
      s.dead.push_back(highest);
      s.grill.pop_back();
      note += ", turned ";
      note += highest;
      note += " face-down";
    }
  }
  end_turn(s, note);
}

void Heckmeck::end_turn(State& s, const Text& note) const {
  s.last = note;
  std::fill(s.roll.begin(), s.roll.end(), 0);
  std::fill(s.kept.begin(), s.kept.end(), 0);
  s.total = 0;
  s.left = kDice;
  if (!s.grill.empty()) {
    s.turn = (s.turn + 1) % n_;
    s.phase = kRolling;
  } else {
    s.phase = kOver;
  }
}

void Heckmeck::apply_chance(State& s, const Outcome& o) const {
  s.roll = o;
  for (int f = 0; f < 6; ++f)
    if (o[f] && !s.kept[f]) {
      s.phase = kKeeping;
      return;
    }
  Text why("rolled ");
  write_dice(why, o, kFaceNames);
  why += ", no new face";
  bust(s, why);
}

void Heckmeck::observe(const State& s, int seat, float* out) const {
  const int n = n_;
  std::memset(out, 0, sizeof(float) * observation_size());
  // offsets of observation_fields(n)
  const int grill = 0, top = 16, worms_at = 16 + 16 * n, tiles = worms_at + n, to_move_at = tiles + n;
  const int roll = to_move_at + n, phase = roll + 14;
  for (int t : s.grill) out[grill + t - 21] = 1;
  for (int k = 0; k < n; ++k) {
    const auto& stack = s.stacks[(seat + k) % n];
    if (!stack.empty()) {
      out[top + 16 * k + stack.back() - 21] = 1;
      int w = 0;
      for (int t : stack) w += worms(t);
      out[worms_at + k] = static_cast<float>(w);
      out[tiles + k] = static_cast<float>(stack.size());
    }
  }
  if (s.phase != kOver) out[to_move_at + ((s.turn - seat) % n + n) % n] = 1;
  for (int f = 0; f < 6; ++f) {
    out[roll + f] = static_cast<float>(s.roll[f]);
    out[roll + 6 + f] = static_cast<float>(s.kept[f]);
  }
  out[roll + 12] = static_cast<float>(s.total);
  out[roll + 13] = static_cast<float>(s.left);
  if (s.phase == kKeeping || s.phase == kDeciding || s.phase == kClaiming) {
    const int index = s.phase - kKeeping;  // the phase field: keeping, may roll or stop, must claim
    out[phase + index] = 1;
    if (s.kept[kWorm]) {
      auto [tile, victim] = claims(s);
      out[phase + 3] = static_cast<float>(tile);
      out[phase + 4] = victim >= 0 ? 1.0f : 0.0f;
    }
  }
}

std::vector<double> Heckmeck::scores(const State& s) const {
  std::vector<double> out;
  for (const auto& stack : s.stacks) {
    int w = 0;
    for (int t : stack) w += worms(t);
    out.push_back(w);
  }
  return out;
}

std::vector<int> Heckmeck::winners(const State& s) const {
  // Most worms, then the highest tile; a seat without tiles ranks (0, 0).
  std::vector<std::pair<int, int>> ranks;
  for (const auto& stack : s.stacks) {
    int w = 0, high = 0;
    for (int t : stack) {
      w += worms(t);
      high = std::max(high, t);
    }
    ranks.emplace_back(w, high);
  }
  const auto best = *std::max_element(ranks.begin(), ranks.end());
  std::vector<int> out;
  for (int seat = 0; seat < n_; ++seat)
    if (ranks[seat] == best) out.push_back(seat);
  return out;
}

void Heckmeck::validate(const State& s) const {
  // Every tile 21..36 exactly once: in the grill, face-down or in a stack; the grill ascending.
  std::vector<int> seen(37, 0);
  auto count = [&](int t, const char* where) {
    require_range(t, 21, 36, where);
    require(++seen[t] == 1, "tile " + std::to_string(t) + " is in the state twice");
  };
  for (int t : s.grill) count(t, "a grill tile");
  require(std::is_sorted(s.grill.begin(), s.grill.end()), "the grill is not ascending");
  for (int t : s.dead) count(t, "a face-down tile");
  require_size(s.stacks.size(), n_, "stacks");
  for (const auto& stack : s.stacks)
    for (int t : stack) count(t, "a stack tile");
  for (int t = 21; t <= 36; ++t)
    require(seen[t] == 1, "tile " + std::to_string(t) + " is nowhere: not in the grill, face-down or in a stack");
  require_range(s.turn, 0, n_ - 1, "turn");
  // The dice: 8 in all, kept or left; the roll is the dice left, rolled; the sum is the kept dice's.
  const Phase p = s.phase;
  int kept = 0, rolled = 0, sum = 0;
  for (int f = 0; f < 6; ++f) {
    require_range(s.roll[f], 0, kDice, "a roll count");
    require_range(s.kept[f], 0, kDice, "a kept count");
    kept += s.kept[f];
    rolled += s.roll[f];
    sum += s.kept[f] * kFaceValue[f];
  }
  require_range(s.left, 0, kDice, "left");
  require(kept + s.left == kDice, "kept dice and dice left do not add up to 8");
  require_range(s.total, 0, 5 * kDice, "total");
  require(s.total == sum, "total: the kept dice do not add up to " + std::to_string(s.total) + " but to " +
                             std::to_string(sum));
  if (p == kKeeping)
    require(rolled == s.left, "roll has " + std::to_string(rolled) + " dice, but " + std::to_string(s.left) +
                                  " are left to roll");
  else
    require(rolled == 0, "roll holds dice outside the phase 'keep'");
  bool face_free = false, new_face = false;
  for (int f = 0; f < 6; ++f) {
    face_free = face_free || !s.kept[f];
    new_face = new_face || (s.roll[f] && !s.kept[f]);
  }
  // What each phase relies on: a roll is due only with dice left and a face free to keep, a
  // seat to move has a legal move, and a turn starts afresh.
  if (p == kRolling || p == kDeciding)
    require(s.left > 0 && face_free, std::string("phase '") + names(p)[p] +
                                         "' needs dice left and a face not kept yet");
  if (p == kKeeping) require(new_face, "phase 'keep': no face of the roll is free to keep");
  if (p == kClaiming) {
    const auto [tile, victim] = claims(s);
    require(tile || victim >= 0, "phase 'claim': the kept dice claim no tile");
  }
  if (p == kOver) require(s.left == kDice, "the game is over with dice kept");
  require(p != kOver || s.grill.empty(), "the game is over with tiles on the grill");
  require(p == kOver || !s.grill.empty(), "the grill is empty but the game is not over");
}

}  // namespace tablezoo::heckmeck
