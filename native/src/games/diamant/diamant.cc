// Diamant: the C++ twin of tablezoo/games/diamant.py.
#include "diamant.h"

#include "core/config.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace tablezoo::diamant {

namespace {

// Offsets of observation_fields(n) before the per-seat fields; those follow, n entries
// each (in_cave, chosen, haul, banked), then own_choice, deck and removed.
constexpr int kObsCave = 0, kObsPathLength = 5, kObsRevealedTreasure = 6, kObsHazardsSeen = 18, kObsPool = 23;
constexpr int kObsInCave = 24;


}  // namespace

Diamant::Diamant(int num_seats, const Options& options) : n_(num_seats) {
  // make() checks both before it builds a game; a direct build of the core must not get past them either
  check_config("Diamant", num_seats, 3, 8, options, {});
}

// ----------------------------------------------------------------------------- state machine

State Diamant::initial_state() const {
  State s;
  s.inside.assign(n_, kYes);
  s.hauls.assign(n_, 0);
  s.banked.assign(n_, 0);
  s.choices.assign(n_, std::nullopt);
  s.revealed.assign(n_, std::nullopt);
  s.gains.assign(n_, 0);
  s.last_losses.assign(n_, 0);
  return s;
}

int Diamant::to_move(const State& s) const {
  if (s.phase == kChoose) return s.turn;
  if (s.phase == kReveal) return kChance;
  return kTerminal;
}

void Diamant::legal_actions(const State& s, std::vector<int>& out) const {
  if (s.phase == kChoose) {
    out.push_back(kGo);
    out.push_back(kCamp);
  }
}

void Diamant::apply(State& s, int action) const {
  const int seat = s.turn;
  s.choices[seat] = static_cast<Choice>(action);
  for (int next = seat + 1; next < n_; ++next)
    if (s.inside[next]) {
      s.turn = next;
      return;
    }
  reveal_choices(s);
}

// All seats IN have chosen: the returners share the pool, bank and leave.
void Diamant::reveal_choices(State& s) const {
  s.revealed.swap(s.choices);  // public from now on
  std::fill(s.choices.begin(), s.choices.end(), std::nullopt);
  s.turn = -1;
  std::fill(s.gains.begin(), s.gains.end(), 0);
  int returners = 0;
  for (const auto& c : s.revealed)
    if (c == kCamps) ++returners;
  if (returners) {
    // split_pool: an equal share each; the remainder stays in the pool
    const int share = s.pool / returners;
    s.pool -= share * returners;
    for (int seat = 0; seat < n_; ++seat) {
      const auto& c = s.revealed[seat];
      if (c != kCamps) continue;
      const int gain = s.hauls[seat] + share;
      s.banked[seat] += gain;
      s.gains[seat] = gain;
      s.hauls[seat] = 0;
      s.inside[seat] = kNo;
    }
    if (std::find(s.inside.begin(), s.inside.end(), kYes) == s.inside.end()) {
      end_cave(s, std::vector<int>(n_, 0));
      return;
    }
  }
  s.phase = kReveal;
}

// Close the cave: the pool is lost, the cards go back; start the next cave or end.
void Diamant::end_cave(State& s, std::vector<int> losses) const {
  s.lost += s.pool + std::accumulate(losses.begin(), losses.end(), 0);
  s.last_losses = std::move(losses);
  s.last_pool = s.pool;
  s.pool = 0;
  for (int k = 0; k < kKinds; ++k)
    s.deck[k] = k < kTreasureKinds ? kFullDeck[k] : kHazardCopies - s.removed[k - kTreasureKinds];
  s.last_path.swap(s.path);
  s.path.clear();
  std::fill(s.seen.begin(), s.seen.end(), 0);
  std::fill(s.hauls.begin(), s.hauls.end(), 0);
  s.turn = -1;
  if (s.cave < kCaves) {
    s.cave += 1;
    s.inside.assign(n_, kYes);
    s.phase = kReveal;
  } else {
    s.inside.assign(n_, kNo);
    s.phase = kOver;
  }
}

// ----------------------------------------------------------------------------- chance

std::vector<std::pair<Diamant::Outcome, double>> Diamant::chance_outcomes(const State& s) const {
  const int total = std::accumulate(s.deck.begin(), s.deck.end(), 0);
  std::vector<std::pair<Outcome, double>> out;
  for (int k = 0; k < kKinds; ++k)
    // both counts are exact in a double, so the quotient is Python's count / total
    if (s.deck[k]) out.emplace_back(static_cast<Kind>(k), static_cast<double>(s.deck[k]) / static_cast<double>(total));
  return out;
}

void Diamant::check_outcome(const State& s, const Outcome& o) const {
  const int k = o;  // a kind (the reader took only a card's name)
  if (!s.deck[k]) {
    std::string left;
    for (int j = 0; j < kKinds; ++j) {
      const int c = s.deck[j];
      if (!c) continue;
      if (!left.empty()) left += ", ";
      left += kKindNames[j];
      if (c > 1) left += " x" + std::to_string(c);
    }
    throw BadOutcome(std::string("no ") + kKindNames[k] + " is left in the deck; cards left: " + left);
  }
}

void Diamant::apply_chance(State& s, const Outcome& o) const {
  const int k = o;
  s.deck[k] -= 1;
  s.path.push_back(o);
  if (k < kTreasureKinds) {
    const int value = kKindValue[k];
    s.treasure_revealed += value;
    // split_treasure: the seats IN share it equally, the remainder goes to the pool
    const int in = static_cast<int>(std::count(s.inside.begin(), s.inside.end(), kYes));
    const int each = value / in, rest = value % in;
    if (each)
      for (int seat = 0; seat < n_; ++seat)
        if (s.inside[seat]) s.hauls[seat] += each;
    s.pool += rest;
  } else {
    const int t = k - kTreasureKinds;
    if (s.seen[t]) {
      double_hazard(s, t);
      return;
    }
    s.seen[t] = 1;
  }
  s.phase = kChoose;
  s.turn = static_cast<int>(std::find(s.inside.begin(), s.inside.end(), kYes) - s.inside.begin());
}

// A second hazard of one type: those IN lose their hauls; one card leaves the game.
void Diamant::double_hazard(State& s, int hazard) const {
  s.removed[hazard] += 1;
  std::vector<int> losses(n_, 0);
  for (int seat = 0; seat < n_; ++seat)
    if (s.inside[seat]) losses[seat] = s.hauls[seat];
  end_cave(s, std::move(losses));
}

// ----------------------------------------------------------------------------- results

std::vector<double> Diamant::scores(const State& s) const { return {s.banked.begin(), s.banked.end()}; }

std::vector<int> Diamant::winners(const State& s) const {
  const int best = *std::max_element(s.banked.begin(), s.banked.end());
  std::vector<int> out;
  for (int seat = 0; seat < n_; ++seat)
    if (s.banked[seat] == best) out.push_back(seat);
  return out;
}

// ----------------------------------------------------------------------------- what seats see

// Python builds seat 0's table once per card and permutes it per seat; here each
// observation is written directly, seat-relative (the observer first, then clockwise).
void Diamant::observe(const State& s, int seat, float* out) const {
  const int n = n_;
  std::memset(out, 0, sizeof(float) * observation_size());
  const int chosen = kObsInCave + n, haul = chosen + n, banked = haul + n, own_choice = banked + n;
  const int deck = own_choice + 2, removed = deck + kKinds;
  out[kObsCave + s.cave - 1] = 1;
  out[kObsPathLength] = static_cast<float>(s.path.size());
  for (int k = 0; k < kTreasureKinds; ++k)  // treasure revealed in this cave
    out[kObsRevealedTreasure + k] = static_cast<float>(kFullDeck[k] - s.deck[k]);
  for (int t = 0; t < kHazards; ++t) out[kObsHazardsSeen + t] = static_cast<float>(s.seen[t]);
  out[kObsPool] = static_cast<float>(s.pool);
  for (int i = 0; i < n; ++i) {
    const int other = (seat + i) % n;
    out[kObsInCave + i] = s.inside[other] ? 1.0f : 0.0f;
    out[chosen + i] = s.choices[other] ? 1.0f : 0.0f;  // that a seat has chosen, never what
    out[haul + i] = static_cast<float>(s.hauls[other]);
    out[banked + i] = static_cast<float>(s.banked[other]);
  }
  const auto& own = s.choices[seat];
  if (own) out[own_choice + *own] = 1;
  for (int k = 0; k < kKinds; ++k) out[deck + k] = static_cast<float>(s.deck[k]);
  for (int t = 0; t < kHazards; ++t) out[removed + t] = static_cast<float>(s.removed[t]);
}

// ----------------------------------------------------------------------------- validation

// Every invariant of play that the rules above read through: sizes, ranges, the cards of
// the cave (deck + path = the full deck less the removed hazards), who chooses, and the gems
// (banked + hauls + pool + lost = treasure revealed, as the module docstring says).
void Diamant::validate(const State& s) const {
  const int n = n_;
  require_range(s.cave, 1, kCaves, "cave");
  const Phase p = s.phase;
  const bool choose = p == kChoose, over = p == kOver;
  require(!over || s.cave == kCaves, "cave is " + std::to_string(s.cave) + " but the game is over");

  // The cards: every card of the deck is left, on the path, or removed.
  require_size(s.deck.size(), kKinds, "deck");
  require_size(s.seen.size(), kHazards, "seen");
  require_size(s.removed.size(), kHazards, "removed");
  int removed = 0;
  for (int t = 0; t < kHazards; ++t) {
    require_range(s.removed[t], 0, kHazardCopies - 1, "removed");  // a type keeps a card
    require_range(s.seen[t], 0, 1, "seen");
    removed += s.removed[t];
  }
  // one card per double, one double at most per cave: so the deck never runs out
  const int ended = over ? s.cave : s.cave - 1;
  require(removed <= ended, "removed: " + std::to_string(removed) + " hazard cards removed in " +
                                std::to_string(ended) + " caves ended");
  require(s.path.size() <= static_cast<size_t>(kMaxPath), "path has more than 21 cards");
  int on_path[kKinds] = {};
  for (const Kind card : s.path) ++on_path[card];
  for (int k = 0; k < kKinds; ++k) {
    const int all = k < kTreasureKinds ? kFullDeck[k] : kHazardCopies - s.removed[k - kTreasureKinds];
    require_range(s.deck[k], 0, all, "deck");
    require(s.deck[k] + on_path[k] == all, std::string("deck and path: the ") + kKindNames[k] + " cards are " +
                                               std::to_string(s.deck[k] + on_path[k]) + ", not " +
                                               std::to_string(all));
  }
  for (int t = 0; t < kHazards; ++t)  // a second hazard of a type ends the cave
    require(s.seen[t] == on_path[kTreasureKinds + t],
            std::string("seen: ") + kKindNames[kTreasureKinds + t] + " is not what the path shows");
  require(!over || s.path.empty(), "path: the game is over with cards on the path");
  require(!choose || !s.path.empty(), "path: a choice comes after a card, but the path is empty");
  require(s.last_path.size() <= static_cast<size_t>(kMaxPath), "last_path has more than 21 cards");

  // The seats: who is IN, who is to choose, who has chosen.
  require_size(s.inside.size(), n, "inside");
  require_size(s.choices.size(), n, "choices");
  require_size(s.revealed.size(), n, "revealed");
  const bool anyone_in = std::find(s.inside.begin(), s.inside.end(), kYes) != s.inside.end();
  require(!over || !anyone_in, "inside: a seat is IN after the game is over");
  require(over || anyone_in, "inside: nobody is IN a cave being explored");  // a treasure is split among them
  if (choose) {
    require_range(s.turn, 0, n - 1, "turn");
    require(s.inside[s.turn], "turn: seat " + std::to_string(s.turn) + " is to choose but is not IN");
  } else {
    require(s.turn == -1, "turn is " + std::to_string(s.turn) + ", not -1, when nobody is to choose");
  }
  for (int seat = 0; seat < n; ++seat) {
    // the seats IN choose in seat order: those before the turn have chosen, no one else
    const bool has_chosen = choose && s.inside[seat] && seat < s.turn;
    require(s.choices[seat].has_value() == has_chosen,
            "choices: seat " + std::to_string(seat) + (has_chosen ? " has not chosen" : " has chosen out of turn"));
  }

  // The gems: ranges (which also keep every sum far from overflow), then the balance.
  require_size(s.hauls.size(), n, "hauls");
  require_size(s.banked.size(), n, "banked");
  require_size(s.gains.size(), n, "gains");
  require_size(s.last_losses.size(), n, "last_losses");
  require_range(s.treasure_revealed, 0, kCaves * kTotalTreasure, "treasure_revealed");
  require_range(s.lost, 0, kCaves * kTotalTreasure, "lost");
  require_range(s.pool, 0, kTotalTreasure, "pool");
  require_range(s.last_pool, 0, kTotalTreasure, "last_pool");
  int held = s.pool + s.lost;
  for (int seat = 0; seat < n; ++seat) {
    require_range(s.hauls[seat], 0, kTotalTreasure, "hauls");
    require(s.inside[seat] || !s.hauls[seat], "hauls: seat " + std::to_string(seat) + " holds gems but is not IN");
    require_range(s.banked[seat], 0, kCaves * kTotalTreasure, "banked");
    require_range(s.gains[seat], 0, kTotalTreasure, "gains");
    require_range(s.last_losses[seat], 0, kTotalTreasure, "last_losses");
    held += s.hauls[seat] + s.banked[seat];
  }
  require(held == s.treasure_revealed, "treasure_revealed is " + std::to_string(s.treasure_revealed) +
                                           ", but banked, hauls, pool and lost hold " + std::to_string(held));
}

}  // namespace tablezoo::diamant
