// 6 nimmt!'s bots: the C++ twins of tablezoo/bots/sechs_nimmt.py's SechsNimmtHeuristicBot
// (Heuristic), SechsNimmtMonteCarloBot (MonteCarlo) and SechsNimmtSearchBot (Search), with their
// rollouts (random_rollout, mixed_rollout). sechs_nimmt.h declares them (the bindings and the C++
// tests reach them through the SechsNimmt class); the rules are sechs_nimmt.cc's.
#include "sechs_nimmt.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace tablezoo::sechs_nimmt {

// ------------------------------------------------------------------ the heuristic bot
// bots/sechs_nimmt.py, function by function. Its expected costs are Python floats; here they
// are doubles computed operation by operation in the same order, so that the least of them
// (ties to the first card) is the same card.

namespace {

// x rounded to a double on its own. Python rounds every operation, so a product must be rounded
// before it is added: where a machine has a fused multiply-add (ARM, x86 built with FMA), a
// compiler may otherwise fuse the two into one and round once.
double rounded(double x) {
  volatile double r = x;
  return r;
}

constexpr double kAvgHeads = 171.0 / 104.0;  // AVG_HEADS: mean heads of a card
constexpr double kTooLowExtra = 0.5;         // a card below every row takes a row for sure
constexpr double kGapWeight = 0.002;         // tie-break: the smaller gap to the row
constexpr int kTailSteps = 1000;             // the chance of a gap card, in 1/1000ths

// math.comb(m, j), exact (m <= 9 here).
double comb(int m, int j) {
  long long c = 1;
  for (int k = 1; k <= j; ++k) c = c * (m - j + k) / k;
  return static_cast<double>(c);
}

// _tail: P(X >= need) for X ~ Binomial(m, p_key / kTailSteps).
double tail(int m, int need, int p_key) {
  const double p = p_key / static_cast<double>(kTailSteps);
  if (need <= 0 || p >= 1.0) return 1.0;
  if (need > m || p <= 0.0) return 0.0;
  const double q = 1.0 - p;
  // sum(math.comb(m, j) * p**j * q ** (m - j) for j in range(need)), as Python 3.11 sums
  // floats: left to right (3.12 compensates the rounding); ** on floats is the C library's pow
  double below = 0.0;
  for (int j = 0; j < need; ++j)
    below += rounded(comb(m, j) * std::pow(p, static_cast<double>(j)) * std::pow(q, static_cast<double>(m - j)));
  return std::max(0.0, 1.0 - below);
}

// Cards of ascending `cards` below `card` (bisect_left), and at most `card` (bisect_right).
int count_below(const std::vector<int>& cards, int card) {
  return static_cast<int>(std::lower_bound(cards.begin(), cards.end(), card) - cards.begin());
}
int count_upto(const std::vector<int>& cards, int card) {
  return static_cast<int>(std::upper_bound(cards.begin(), cards.end(), card) - cards.begin());
}

// card_costs, with the choice of best_card made as the costs come: the card of least expected
// heads, the first (lowest) of equal ones. share(lo, hi) is the expected number of the other
// seats' cards of this trick strictly between lo and hi; others, how many other cards the
// trick has.
template <class Share>
int least_cost_card(const std::vector<int>& hand, const Rows& rows, bool profi, int others, const Share& share) {
  int row_heads[kRows];
  for (int i = 0; i < kRows; ++i) {
    row_heads[i] = 0;
    for (int c : rows[i]) row_heads[i] += kHeads[c];
  }
  const double too_low = *std::min_element(row_heads, row_heads + kRows) + kTooLowExtra;
  int best = hand.front();
  double best_cost = 0.0;
  for (size_t k = 0; k < hand.size(); ++k) {
    const int card = hand[k];
    // the engine's placement (Python takes a quicker path to the same row without profi)
    const int where = target(rows, card, profi);
    double cost;
    if (where < 0) {
      cost = too_low;
    } else {
      const int i = where % kRows;
      const auto& row = rows[i];
      const int need = kRowMax - static_cast<int>(row.size());
      int gap;
      double expected;
      if (where < kRows) {
        gap = card - row.back();
        expected = need > 0 ? share(row.back(), card) : 0.0;
      } else {  // profi: left end; the others' cards placed before this one are lower
        gap = row.front() - card;
        expected = 0.0;
      }
      const double gap_cost = rounded(kGapWeight * gap);
      if (need <= 0) {
        cost = row_heads[i] + gap_cost;
      } else if (expected <= 0.0 || need > others) {
        cost = gap_cost;
      } else {
        const int p_key = std::min(kTailSteps, static_cast<int>(rounded(expected / others * kTailSteps) + 0.5));
        const double risk = tail(others, need, p_key);
        cost = rounded(risk * (row_heads[i] + rounded(need * kAvgHeads))) + gap_cost;
      }
    }
    if (k == 0 || cost < best_cost) best = card, best_cost = cost;
  }
  return best;
}

// best_row: the fewest heads, then the most cards, then the first.
int best_row(const Rows& rows) {
  int best = 0, best_heads = 0;
  for (int i = 0; i < kRows; ++i) {
    int h = 0;
    for (int c : rows[i]) h += kHeads[c];
    if (i == 0 || h < best_heads || (h == best_heads && rows[i].size() > rows[best].size())) best = i, best_heads = h;
  }
  return best;
}

// draft_pick: the card of the pool farthest from the cards already in the hand (a spread
// hand), ties to the card nearest the middle of the deck, then the lower. Distances to the
// middle (deck + 1) / 2 are compared doubled, as whole numbers.
int draft_pick(const std::vector<int>& hand, const std::vector<int>& pool, int deck) {
  int best = 0, best_near = -1, best_off = 0;
  for (int card : pool) {
    int near = deck;
    if (!hand.empty()) {
      near = std::abs(card - hand.front());
      for (int h : hand) near = std::min(near, std::abs(card - h));
    }
    const int off = std::abs(2 * card - (deck + 1));
    if (near > best_near || (near == best_near && off < best_off)) best = card, best_near = near, best_off = off;
  }
  return best;
}

}  // namespace

int SechsNimmt::Heuristic::act(const SechsNimmt& game, const State& s, int seat, Rng&) const {
  if (s.phase == kRow) return game.row_action_ + best_row(s.rows);
  const auto& hand = s.hands[seat];
  if (s.phase == kDraft) return game.deck_ - 1 + draft_pick(hand, s.pool, game.deck_);
  const int n = game.n_, others = n - 1;
  int card;
  if (game.logic_) {
    // public_share: each other seat plays one of its known cards
    auto share = [&](int lo, int hi) {
      double total = 0.0;
      for (int other = 0; other < n; ++other) {
        const auto& h = s.hands[other];
        if (other != seat && !h.empty())
          total += static_cast<double>(count_below(h, hi) - count_upto(h, lo)) / static_cast<double>(h.size());
      }
      return total;
    };
    card = least_cost_card(hand, s.rows, game.profi_, others, share);
  } else {
    // hidden_share: the other seats' cards are uniform among the cards this seat has neither
    // seen face-up this round (the rows, the taken cards, the revealed cards to place) nor holds;
    // seen[x] counts those of 1..x (known_prefix)
    const int d = game.deck_;
    std::array<int, kFullDeck + 1> seen{};
    for (const auto& row : s.rows)
      for (int c : row) seen[c] = 1;
    for (const auto& pile : s.piles)
      for (int c : pile) seen[c] = 1;
    for (int p : s.pending) seen[s.trick[p]] = 1;
    for (int x = 1; x <= d; ++x) seen[x] += seen[x - 1];
    const int unseen = d - seen[d] - static_cast<int>(hand.size());
    const double rate = unseen > 0 ? static_cast<double>(others) / static_cast<double>(unseen) : 0.0;
    auto share = [&](int lo, int hi) {
      if (hi - lo <= 1) return 0.0;
      const int known = seen[hi - 1] - seen[lo] + count_below(hand, hi) - count_upto(hand, lo);
      return rate * ((hi - lo - 1) - known);
    };
    card = least_cost_card(hand, s.rows, game.profi_, others, share);
  }
  return card - 1;
}

// ------------------------------------------------------------------ the Monte Carlo bots
// bots/sechs_nimmt.py's SechsNimmtMonteCarloBot and SechsNimmtSearchBot, function by function.
// They plan on determinisations (determinize) drawn from the bot's own Rng, and their rollouts
// draw from Rngs seeded from it, where the Python bots draw from numpy's generator and
// Python's random.Random: the same player, not the same draws.

namespace {

// The heads each seat has now: its total before the round and what it took this round (the
// outcome of a rollout is read as the change of these).
void heads_now(const State& s, std::vector<int>& out) {
  out.resize(s.totals.size());
  for (size_t seat = 0; seat < out.size(); ++seat) out[seat] = s.totals[seat] + s.round_heads[seat];
}

}  // namespace

// random_rollout
void SechsNimmt::random_rollout(State& s, Rng& rng) const {
  const int start = s.round;
  while (s.round == start) {
    if (s.phase == kChoose) {
      const auto& hand = s.hands[s.turn];
      apply(s, hand[rng.below(hand.size())] - 1);
    } else if (s.phase == kRow) {
      apply(s, row_action_ + static_cast<int>(rng.below(kRows)));
    } else {
      return;
    }
  }
}

// mixed_rollout. The heuristic's card for a seat of a sampled state is judged from that seat's
// own hand and the public cards (_rollout_card): the native heuristic reads no more.
void SechsNimmt::mixed_rollout(State& s, Rng& rng, double greedy) const {
  const int start = s.round;
  const Heuristic heuristic;
  while (s.round == start) {
    if (s.phase == kRow) {
      if (uniform(rng) < greedy)
        apply(s, row_action_ + best_row(s.rows));
      else
        apply(s, row_action_ + static_cast<int>(rng.below(kRows)));
      continue;
    }
    if (s.phase != kChoose) return;
    const int seat = s.turn;
    const auto& hand = s.hands[seat];
    if (uniform(rng) < greedy)
      apply(s, heuristic.act(*this, s, seat, rng));  // the heuristic draws nothing
    else
      apply(s, hand[rng.below(hand.size())] - 1);
  }
}

// SechsNimmtMonteCarloBot.act
int SechsNimmt::MonteCarlo::act(const SechsNimmt& game, const State& s, int seat, Rng& rng) {
  if (s.phase != kChoose) return Heuristic().act(game, s, seat, rng);
  legal_.clear();
  game.legal_actions(s, legal_);
  if (legal_.size() == 1) return legal_.front();
  evaluate(game, s, seat, rng);
  size_t best = 0;  // the least mean, the lowest card of equal ones (legal_ is ascending)
  for (size_t k = 1; k < legal_.size(); ++k)
    if (means_[k] < means_[best]) best = k;
  return legal_[best];
}

// SechsNimmtMonteCarloBot.evaluate: the mean score of each legal move over `samples`
// determinisations, with random rollouts (one stream for the whole decision).
void SechsNimmt::MonteCarlo::evaluate(const SechsNimmt& game, const State& s, int seat, Rng& rng) {
  const int n = game.n_;
  Rng rnd(rng.next_uint64());
  means_.assign(legal_.size(), 0.0);
  std::vector<int> before, after;
  for (int i = 0; i < samples; ++i) {
    game.determinize(s, seat, rng, sample_);
    heads_now(sample_, before);
    for (size_t k = 0; k < legal_.size(); ++k) {
      state_ = sample_;
      game.apply(state_, legal_[k]);
      game.random_rollout(state_, rnd);
      heads_now(state_, after);
      const int mine = after[seat] - before[seat];
      int theirs = -mine;
      for (int other = 0; other < n; ++other) theirs += after[other] - before[other];
      means_[k] += mine - theirs / static_cast<double>(n - 1);
    }
  }
  for (double& mean : means_) mean /= samples;
}

// SechsNimmtSearchBot.choose: the move to play; scores_ holds every legal move's score (lower
// is better), or nothing where the bot does not search (the logic draft, a forced move).
int SechsNimmt::Search::choose(const SechsNimmt& game, const State& s, int seat, Rng& rng) {
  legal_.clear();
  game.legal_actions(s, legal_);
  scores_.clear();
  if (s.phase == kDraft || legal_.size() == 1) return Heuristic().act(game, s, seat, rng);
  const size_t count = legal_.size();
  sums_.assign(count, 0.0);
  counts_.assign(count, 0);
  all_.resize(count);
  std::iota(all_.begin(), all_.end(), 0);
  evaluate(game, s, seat, rng, all_, samples);
  scores_.resize(count);
  for (size_t k = 0; k < count; ++k) scores_[k] = sums_[k] / counts_[k];
  const std::vector<int>* candidates = &all_;
  if (count > static_cast<size_t>(keep) && extra) {
    // the `keep` best by (score, action): legal_ is ascending, so by (score, index)
    best_ = all_;
    std::stable_sort(best_.begin(), best_.end(), [&](int a, int b) { return scores_[a] < scores_[b]; });
    best_.resize(keep);
    evaluate(game, s, seat, rng, best_, extra);
    double worst = -INFINITY;  // the worst mean kept
    for (int k : best_) worst = std::max(worst, sums_[k] / counts_[k]);
    for (size_t k = 0; k < count; ++k)
      scores_[k] = std::find(best_.begin(), best_.end(), static_cast<int>(k)) != best_.end()
                       ? sums_[k] / counts_[k]
                       : std::max(scores_[k], worst);
    candidates = &best_;
  }
  int move = candidates->front();  // the least score, the lowest action of equal ones
  for (int k : *candidates)
    if (scores_[k] < scores_[move] || (scores_[k] == scores_[move] && k < move)) move = k;
  return legal_[move];
}

// SechsNimmtSearchBot.action_values: minus each move's mean score, a move the first pass cut
// no better than the worst it kept; where the bot does not search, 0 for its move and -inf
// for every other.
void SechsNimmt::Search::action_values(const SechsNimmt& game, const State& s, int seat, Rng& rng,
                                       std::vector<double>& out) {
  const int move = choose(game, s, seat, rng);
  out.clear();
  for (size_t k = 0; k < legal_.size(); ++k)
    out.push_back(scores_.empty() ? (legal_[k] == move ? 0.0 : -INFINITY) : -scores_[k]);
}

// SechsNimmtSearchBot.evaluate: add to sums_ and counts_ the scores of the legal moves `which`
// (indices into legal_) on `draws` new determinisations. Every move meets the same
// determinisations and the same random stream in its rollout (common random numbers).
void SechsNimmt::Search::evaluate(const SechsNimmt& game, const State& s, int seat, Rng& rng,
                                  const std::vector<int>& which, int draws) {
  const int n = game.n_;
  const double w = relative / (n - 1);
  std::vector<int> before, after;
  for (int i = 0; i < draws; ++i) {
    game.determinize(s, seat, rng, sample_);
    const uint64_t stream = rng.next_uint64();
    heads_now(sample_, before);
    for (int k : which) {
      state_ = sample_;
      game.apply(state_, legal_[k]);
      Rng rnd(stream);
      game.mixed_rollout(state_, rnd, greedy);
      heads_now(state_, after);
      const int mine = after[seat] - before[seat];
      int theirs = -mine;
      for (int other = 0; other < n; ++other) theirs += after[other] - before[other];
      sums_[k] += mine - w * theirs;
      counts_[k] += 1;
    }
  }
}

}  // namespace tablezoo::sechs_nimmt
