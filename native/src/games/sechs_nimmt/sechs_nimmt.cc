// 6 nimmt!: the C++ twin of tablezoo/games/sechs_nimmt.py.
#include "sechs_nimmt.h"

#include "core/config.h"

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace tablezoo::sechs_nimmt {

namespace {
// The note made of the parts, one after another (as a Python f-string).
template <class... Parts>
Text text(const Parts&... parts) {
  Text note;
  (note += ... += parts);
  return note;
}

// Python's cards.remove(card) for cards that hold it: the cards after it move down one.
void remove(std::vector<int>& cards, int card) {
  auto at = cards.begin();
  while (*at != card) ++at;
  std::copy(at + 1, cards.end(), at);
  cards.pop_back();
}

// Python's del seats[0].
void pop_front(std::vector<int>& seats) {
  for (size_t at = 0; at + 1 < seats.size(); ++at) seats[at] = seats[at + 1];
  seats.pop_back();
}

// Python's rows = [[c] for c in cards]: the 4 cards start rows 1..4, each with room for
// the 5 cards a row holds (so that placing a card never reallocates).
void start_rows(Rows& rows, const std::vector<int>& cards) {
  rows.resize(kRows);
  for (int i = 0; i < kRows; ++i) {
    rows[i].reserve(kRowMax);
    rows[i].assign(1, cards[i]);
  }
}
}  // namespace

int target(const Rows& rows, int card, bool profi) {
  int best = -1, best_d = kFullDeck + 1;
  if (!profi) {
    for (int i = 0; i < kRows; ++i) {
      const int d = card - rows[i].back();
      if (0 < d && d < best_d) best = i, best_d = d;
    }
    return best;
  }
  for (int i = 0; i < kRows; ++i) {
    const auto& row = rows[i];
    int d = card - row.back();
    // the right end wins a tie with a left end (site rule)
    if (d > 0 && (d < best_d || (d == best_d && best >= kRows))) best = i, best_d = d;
    d = row.front() - card;
    if (0 < d && d < best_d) best = i + kRows, best_d = d;
  }
  return best;
}

SechsNimmt::SechsNimmt(int num_seats, const Options& options) : n_(num_seats) {
  // make() checks them before it builds a game; a direct build of the core must not get past them either
  check_config("6 nimmt!", num_seats, 2, kMaxSeats, options, {"logic", "profi", "tactic"});
  profi_ = option(options, "profi");
  logic_ = option(options, "logic");
  const int n = n_;
  const int d = deck_ = deck_size(n, option(options, "tactic"), logic_);
  row_action_ = logic_ ? 2 * d : d;  // play 1..D, (pick 1..D), then row 1..4
  for (int seat = 0; seat < n; ++seat)
    for (int i = 0; i < kRows; ++i) took_[seat][i] = text("seat ", seat, " took row ", i + 1, " (");
  // observation_fields(n, D, logic), field by field
  o_hand_ = 0;
  o_choice_ = o_hand_ + d;
  o_seen_ = o_choice_ + d;
  o_row_last_ = o_seen_ + d;  // then row_first, row_count, row_heads: 4 each
  o_heads_ = o_row_last_ + 4 * kRows;  // heads_round, then heads_total
  o_has_chosen_ = o_heads_ + 2 * n;
  o_to_move_ = o_has_chosen_ + n;
  o_phase_ = o_to_move_ + n;
  o_trick_ = o_phase_ + 3;
  o_placing_ = o_trick_ + d;
  o_cards_left_ = o_placing_ + 1;
  o_fit_ = o_cards_left_ + 1;
  o_fit_heads_ = o_fit_ + d;
  o_gap_ = o_fit_heads_ + d;
  o_open_ = o_gap_ + d;
  size_ = o_open_ + d;
  o_others_hands_ = o_pool_ = -1;
  if (logic_) {
    o_others_hands_ = size_;
    o_pool_ = o_others_hands_ + (n - 1) * d;
    size_ = o_pool_ + d;
  }
}

// ------------------------------------------------------------------ state machine

State SechsNimmt::initial_state() const {
  State s;
  s.hands.assign(n_, {});
  s.chosen.assign(n_, 0);
  s.trick.assign(n_, 0);
  s.piles.assign(n_, {});
  s.round_heads.assign(n_, 0);
  s.totals.assign(n_, 0);
  if (logic_) start_draft(s);
  return s;
}

int SechsNimmt::to_move(const State& s) const {
  if (s.phase == kDeal) return kChance;
  if (s.phase == kOver) return kTerminal;
  return s.turn;
}

void SechsNimmt::legal_actions(const State& s, std::vector<int>& out) const {
  if (s.phase == kChoose) {
    for (int c : s.hands[s.turn]) out.push_back(c - 1);
  } else if (s.phase == kRow) {
    for (int k = 0; k < kRows; ++k) out.push_back(row_action_ + k);
  } else if (s.phase == kDraft) {
    for (int c : s.pool) out.push_back(c + deck_ - 1);
  }
}

void SechsNimmt::apply(State& s, int action) const {
  const int d = deck_;
  if (action < d) {  // play: choose a card for the trick
    const int seat = s.turn;
    s.chosen[seat] = action + 1;
    if (seat + 1 < n_)
      s.turn = seat + 1;
    else
      reveal(s);
  } else if (action < row_action_) {  // pick (logic draft)
    const int card = action - d + 1;
    remove(s.pool, card);
    auto& hand = s.hands[s.turn];
    hand.insert(std::upper_bound(hand.begin(), hand.end(), card), card);
    if (static_cast<int>(s.pool.size()) == kRows) {
      start_rows(s.rows, s.pool);
      s.pool.clear();
      s.last = "draft done: the 4 cards left start the rows";
      s.phase = kChoose;
      s.turn = 0;
    } else {
      s.turn = (s.turn + 1) % n_;
    }
  } else {  // row k: take it; the card starts it
    const int seat = s.turn;
    take(s, seat, action - row_action_, s.trick[seat]);
    pop_front(s.pending);
    place(s);
  }
}

void SechsNimmt::reveal(State& s) const {
  for (int seat = 0; seat < n_; ++seat) {
    auto& hand = s.hands[seat];
    remove(hand, s.chosen[seat]);
  }
  s.trick.swap(s.chosen);  // the chosen cards are the trick; nothing is chosen now
  std::fill(s.chosen.begin(), s.chosen.end(), 0);
  // the seats by their cards, lowest first (no two seats reveal the same card): a seat's
  // place is the number of lower cards
  const auto& trick = s.trick;
  s.pending.assign(n_, 0);
  for (int seat = 0; seat < n_; ++seat) {
    int lower = 0;
    for (int card : trick) lower += card < trick[seat];
    s.pending[lower] = seat;
  }
  place(s);
}

// Place the revealed cards still pending, lowest first, until one needs a row choice
// (its owner is then to move) or the trick is over.
void SechsNimmt::place(State& s) const {
  while (!s.pending.empty()) {
    const int seat = s.pending.front();
    const int card = s.trick[seat];
    const int where = target(s.rows, card, profi_);
    if (where < 0) {
      s.phase = kRow;
      s.turn = seat;
      return;
    }
    const int i = where % kRows;
    auto& row = s.rows[i];
    if (static_cast<int>(row.size()) == kRowMax)
      take(s, seat, i, card);
    else if (where >= kRows)
      row.insert(row.begin(), card);
    else
      row.push_back(card);
    pop_front(s.pending);
  }
  if (!s.hands[0].empty()) {
    s.phase = kChoose;
    s.turn = 0;
  } else {
    end_round(s);
  }
}

void SechsNimmt::take(State& s, int seat, int i, int card) const {
  auto& row = s.rows[i];
  int taken = 0;
  for (int c : row) taken += kHeads[c];
  auto& pile = s.piles[seat];
  pile.insert(pile.end(), row.begin(), row.end());
  s.round_heads[seat] += taken;
  row.assign(1, card);
  s.last = took_[seat][i];  // "seat {seat} took row {i + 1} ("
  s.last += taken;
  s.last += " heads) with ";
  s.last += card;
}

void SechsNimmt::end_round(State& s) const {
  s.history.push_back(s.round_heads);
  for (int seat = 0; seat < n_; ++seat) s.totals[seat] += s.round_heads[seat];
  std::fill(s.round_heads.begin(), s.round_heads.end(), 0);
  for (auto& pile : s.piles) pile.clear();
  s.last = text(s.last, "; round ", s.round, " over");
  if (*std::max_element(s.totals.begin(), s.totals.end()) >= kEndTotal) {
    s.phase = kOver;
    s.last += ", the game ends";
    return;
  }
  s.round += 1;
  s.rows.clear();
  std::fill(s.trick.begin(), s.trick.end(), 0);
  s.pending.clear();
  if (logic_)
    start_draft(s);
  else
    s.phase = kDeal;
}

void SechsNimmt::start_draft(State& s) const {
  s.phase = kDraft;
  s.pool.resize(deck_);
  std::iota(s.pool.begin(), s.pool.end(), 1);
  s.turn = (s.round - 1) % n_;  // Decision: round 1 starts with seat 0, then clockwise
  s.rows.clear();
}

// ------------------------------------------------------------------ chance

std::vector<std::pair<Deal, double>> SechsNimmt::chance_outcomes(const State&) const {
  // A shuffle: far too many deals to list (the Python engine does not list them either).
  throw NotEnumerable("6 nimmt! does not enumerate this chance node");
}

void SechsNimmt::check_outcome(const State& s, const Deal& o) const {
  const int n = n_, d = deck_;
  const std::string shape = "{\"hands\": [" + std::to_string(n) + " lists of " + std::to_string(kHand) +
                            " cards], \"rows\": [" + std::to_string(kRows) + " cards]} with cards 1.." +
                            std::to_string(d);
  if (static_cast<int>(o.hands.size()) != n)
    throw BadOutcome("the deal needs " + std::to_string(n) + " hands (one per seat) in " + shape + ", not " +
                     std::to_string(o.hands.size()));
  if (o.rows.size() != kRows)
    throw BadOutcome("the deal needs " + std::to_string(kRows) + " row cards in " + shape + ", not " +
                     std::to_string(o.rows.size()));
  for (int seat = 0; seat < n; ++seat)
    if (o.hands[seat].size() != kHand)
      throw BadOutcome("hand " + std::to_string(seat) + " must be a list of " + std::to_string(kHand) +
                       " cards, not " + std::to_string(o.hands[seat].size()));
  // A card is available unless it is dealt already or still held: the deal replaces the
  // hands and rows, and the piles are empty when a deal is due (validate), so this last
  // check never fires on a reachable state.
  std::array<bool, kFullDeck + 1> used{};
  for (const auto& pile : s.piles)
    for (int c : pile) used[c] = true;
  auto check = [&](int card) {
    if (card < 1 || card > d)
      throw BadOutcome("card " + std::to_string(card) + " is not in the deck in use: cards are 1.." +
                       std::to_string(d));
    if (used[card])
      throw BadOutcome("card " + std::to_string(card) + " is dealt twice; every card of 1.." + std::to_string(d) +
                       " is dealt at most once");
    used[card] = true;
  };
  for (const auto& hand : o.hands)
    for (int c : hand) check(c);
  for (int c : o.rows) check(c);
}

void SechsNimmt::apply_chance(State& s, const Deal& o) const {
  s.hands = o.hands;
  for (auto& hand : s.hands)  // check_outcome's form: ascending (as sample_chance deals them)
    if (!std::is_sorted(hand.begin(), hand.end())) std::sort(hand.begin(), hand.end());
  start_rows(s.rows, o.rows);
  s.phase = kChoose;
  s.turn = 0;
  s.last = text("round ", s.round, " dealt");
}

// ------------------------------------------------------------------ what seats see

void SechsNimmt::observe(const State& s, int seat, float* out) const {
  const int n = n_, d = deck_;
  std::fill(out, out + size_, 0.0f);
  // The public table: the rows, and the cards face-up this round (seen): in the rows,
  // taken, or revealed and still to place.
  const bool has_rows = !s.rows.empty();
  int counts[kRows] = {}, row_heads[kRows] = {};
  if (has_rows) {
    for (int i = 0; i < kRows; ++i) {
      const auto& row = s.rows[i];
      int h = 0;
      for (int c : row) {
        h += kHeads[c];
        out[o_seen_ + c - 1] = 1;
      }
      counts[i] = static_cast<int>(row.size());
      row_heads[i] = h;
      out[o_row_last_ + i] = static_cast<float>(row.back());
      out[o_row_last_ + kRows + i] = static_cast<float>(row.front());
      out[o_row_last_ + 2 * kRows + i] = static_cast<float>(counts[i]);
      out[o_row_last_ + 3 * kRows + i] = static_cast<float>(h);
    }
  }
  for (const auto& pile : s.piles)
    for (int c : pile) out[o_seen_ + c - 1] = 1;
  for (int p : s.pending) out[o_seen_ + s.trick[p] - 1] = 1;

  const int chosen = s.chosen[seat];
  if (chosen) out[o_choice_ + chosen - 1] = 1;
  for (int k = 0; k < n; ++k) {  // the observer first, then clockwise
    const int other = (seat + k) % n;
    out[o_heads_ + k] = static_cast<float>(s.round_heads[other]);
    out[o_heads_ + n + k] = static_cast<float>(s.totals[other]);
  }
  const int turn = s.turn;
  const int turn_at = ((turn - seat) % n + n) % n;
  if (s.phase == kChoose) {
    out[o_to_move_ + turn_at] = 1;
    out[o_phase_] = 1;
    // seats choose in seat order: those before the one to move have chosen
    for (int k = 0; k < n; ++k) out[o_has_chosen_ + k] = (seat + k) % n < turn ? 1.0f : 0.0f;
  } else if (s.phase == kRow) {
    out[o_to_move_ + turn_at] = 1;
    out[o_phase_ + 1] = 1;
    for (int c : s.trick) out[o_trick_ + c - 1] = 1;
    out[o_placing_] = static_cast<float>(s.trick[turn]);
  } else if (s.phase == kDraft) {
    out[o_to_move_ + turn_at] = 1;
    out[o_phase_ + 2] = 1;
  }
  const auto& hand = s.hands[seat];
  out[o_cards_left_] = static_cast<float>(hand.size());
  for (int c : hand) out[o_hand_ + c - 1] = 1;

  if (has_rows) {
    // Where each hand card would go now, and how many cards between that row end and it
    // the observer has neither in hand nor seen (hand and seen cards are disjoint):
    // known[x] counts the cards 1..x it knows of.
    std::array<int, kFullDeck + 1> known;
    known[0] = 0;
    for (int x = 1; x <= d; ++x)
      known[x] = known[x - 1] + (out[o_hand_ + x - 1] != 0) + (out[o_seen_ + x - 1] != 0);
    const int fewest = *std::min_element(row_heads, row_heads + kRows);
    for (int c : hand) {
      const int t = target(s.rows, c, profi_);
      if (t < 0) {  // below every row: its owner would choose a row
        out[o_fit_ + c - 1] = kRowMax + 1;
        out[o_fit_heads_ + c - 1] = static_cast<float>(fewest);
        continue;
      }
      const int i = t % kRows;
      const bool right = t < kRows;
      const int lo = right ? s.rows[i].back() : c, hi = right ? c : s.rows[i].front();
      out[o_fit_ + c - 1] = static_cast<float>(counts[i]);
      out[o_fit_heads_ + c - 1] = static_cast<float>(row_heads[i]);
      out[o_gap_ + c - 1] = static_cast<float>(hi - lo);
      out[o_open_ + c - 1] = static_cast<float>(hi - lo - 1 - (known[hi - 1] - known[lo]));
    }
  }
  if (logic_) {  // the hands are public: the others' clockwise, and the draft's table
    int base = o_others_hands_;
    for (int k = 1; k < n; ++k, base += d)
      for (int c : s.hands[(seat + k) % n]) out[base + c - 1] = 1;
    for (int c : s.pool) out[o_pool_ + c - 1] = 1;
  }
}

// ------------------------------------------------------------------ results

std::vector<double> SechsNimmt::scores(const State& s) const {
  std::vector<double> out(n_);
  for (int seat = 0; seat < n_; ++seat) out[seat] = -(s.totals[seat] + s.round_heads[seat]);
  return out;
}

std::vector<int> SechsNimmt::winners(const State& s) const {
  // Decision: equal lowest totals share the win.
  int best = s.totals[0] + s.round_heads[0];
  for (int seat = 1; seat < n_; ++seat) best = std::min(best, s.totals[seat] + s.round_heads[seat]);
  std::vector<int> out;
  for (int seat = 0; seat < n_; ++seat)
    if (s.totals[seat] + s.round_heads[seat] == best) out.push_back(seat);
  return out;
}

// ------------------------------------------------------------------ states from outside

void SechsNimmt::validate(const State& s) const {
  const int n = n_, d = deck_;
  const Phase p = s.phase;  // one of the five (the reader takes only their words)
  // the draft's pick ids are the row ids without logic, and a logic round has no deal
  require(p != kDraft || logic_, "phase 'draft' is a phase of the logic option only");
  require(p != kDeal || !logic_, "phase 'deal' is no phase under logic: its rounds start with a draft");
  // far above any game's length (each round someone takes a row, and the game ends before
  // the seats' totals add up to 66 n), and far from overflowing as the rounds go on
  require_range(s.round, 1, 100000, "round");
  require_range(s.turn, 0, n - 1, "turn");
  require(s.last.size() <= kNote - kNoteGrowth, "last is longer than " + std::to_string(kNote - kNoteGrowth) +
                                                    " characters, more than a game writes");
  require_size(s.hands.size(), n, "hands");
  require_size(s.chosen.size(), n, "chosen");
  require_size(s.trick.size(), n, "trick");
  require_size(s.piles.size(), n, "piles");
  require_size(s.round_heads.size(), n, "round_heads");
  require_size(s.totals.size(), n, "totals");
  require(s.rows.empty() || s.rows.size() == kRows,
          "rows has " + std::to_string(s.rows.size()) + " entries, not 0 or 4");
  for (const auto& row : s.rows)
    require(!row.empty() && row.size() <= kRowMax,
            "a row has " + std::to_string(row.size()) + " cards, not 1.." + std::to_string(kRowMax));
  require(s.pending.size() <= static_cast<size_t>(n), "pending has more entries than seats");
  std::array<bool, kMaxSeats> waiting{};
  for (int seat : s.pending) {
    require_range(seat, 0, n - 1, "a pending seat");
    require(!waiting[seat], "pending names seat " + std::to_string(seat) + " twice");
    waiting[seat] = true;
  }

  // Every card of 1..D at most once in the hands, the rows, the piles, the pool and the
  // revealed cards still to place; hands, rows and pool ascending.
  std::array<bool, kFullDeck + 1> seen{};
  auto count = [&](int c, const char* where) {
    require_range(c, 1, d, where);
    require(!seen[c], "card " + std::to_string(c) + " is in the state twice");
    seen[c] = true;
  };
  int in_hands_and_pool = 0;  // the draft's cards
  auto ascending = [&](const std::vector<int>& v, const char* where) {
    require(std::adjacent_find(v.begin(), v.end(), std::greater_equal<int>()) == v.end(),
            std::string(where) + " is not ascending");
  };
  for (const auto& hand : s.hands) {
    for (int c : hand) count(c, "a card of hands");
    ascending(hand, "a hand");
    in_hands_and_pool += static_cast<int>(hand.size());
  }
  for (const auto& row : s.rows) {
    for (int c : row) count(c, "a card of rows");
    ascending(row, "a row");
  }
  for (const auto& pile : s.piles)
    for (int c : pile) count(c, "a card of piles");
  for (int c : s.pool) count(c, "a card of pool");
  ascending(s.pool, "pool");
  in_hands_and_pool += static_cast<int>(s.pool.size());
  for (int seat = 0; seat < n; ++seat) {
    require_range(s.trick[seat], 0, d, "a card of trick");
    require_range(s.chosen[seat], 0, d, "a card of chosen");
  }
  for (int seat : s.pending) count(s.trick[seat], "a revealed card to place (trick)");
  // round_heads are the heads of the cards taken this round (so 0..171); a total reaches
  // 66 only when the game is over
  for (int seat = 0; seat < n; ++seat) {
    int taken = 0;
    for (int c : s.piles[seat]) taken += kHeads[c];
    require(s.round_heads[seat] == taken, "round_heads: seat " + std::to_string(seat) + " took " +
                                              std::to_string(taken) + " heads this round, not " +
                                              std::to_string(s.round_heads[seat]));
    require_range(s.totals[seat], 0, p == kOver ? kMaxTotal : kEndTotal - 1, "totals");
  }
  for (const auto& heads_of_round : s.history) {
    require_size(heads_of_round.size(), n, "an entry of history");
    for (int h : heads_of_round) require_range(h, 0, kMaxRoundHeads, "history");
  }

  // What each phase relies on.
  require(p == kDraft || s.pool.empty(), "pool holds cards outside the draft");
  require(p == kRow || s.pending.empty(), "pending names seats outside the row choice");
  for (int seat = 0; seat < n; ++seat) {
    const int c = s.chosen[seat];
    if (p == kChoose && seat < s.turn) {  // chose already: a card of its own hand
      const auto& hand = s.hands[seat];
      require(c && std::binary_search(hand.begin(), hand.end(), c),
              "chosen: seat " + std::to_string(seat) + " has chosen no card of its hand before seat " +
                  std::to_string(s.turn));
    } else {
      require(c == 0, "chosen: seat " + std::to_string(seat) + " has a card chosen out of turn");
    }
  }
  if (p == kChoose || p == kRow) {
    require(s.rows.size() == kRows, "rows: a trick needs the 4 rows");
    // every seat plays one card a trick: the hands are alike in size
    const size_t left = s.hands[0].size();
    for (const auto& hand : s.hands) require(hand.size() == left, "hands differ in size in a trick");
    if (p == kChoose)
      require(left >= 1 && left <= kHand, "hands: a seat to choose a card holds 1..10 cards");
    else
      require(left <= kHand - 1, "hands: after the reveal a seat holds 0..9 cards");
  }
  if (p == kRow) {
    require(!s.pending.empty() && s.pending.front() == s.turn,
            "pending: in the row choice the seat to move (turn) places the next card");
    for (int c : s.trick) require(c != 0, "trick: in the row choice every seat has revealed a card");
  }
  if (p == kDeal) {
    // every card is to deal: none is held
    for (const auto& hand : s.hands) require(hand.empty(), "hands: a deal is due, yet a seat holds cards");
    require(s.rows.empty(), "rows: a deal is due, yet there are rows");
    for (const auto& pile : s.piles) require(pile.empty(), "piles: a deal is due, yet a seat has taken cards");
  }
  if (p == kDraft) {
    // the table and the hands hold every card; the seats pick one at a time, clockwise
    // from the round's first picker, until 4 cards are left
    require(s.rows.empty(), "rows: there are no rows in the draft");
    for (const auto& pile : s.piles) require(pile.empty(), "piles: no card is taken in the draft");
    require(in_hands_and_pool == d, "hands and pool: the draft's cards are not every card 1.." + std::to_string(d));
    require(s.pool.size() > kRows, "pool: the draft ends when 4 cards are left");
    const int first = (s.round - 1) % n;
    const int picks = d - static_cast<int>(s.pool.size());
    for (int k = 0; k < n; ++k)
      require(static_cast<int>(s.hands[(first + k) % n].size()) == (picks - k + n - 1) / n,
              "hands: seat " + std::to_string((first + k) % n) + " holds a number of cards no draft gives");
    require(s.turn == (first + picks) % n, "turn: not the seat to pick next in this round's draft");
  }
}

}  // namespace tablezoo::sechs_nimmt
