// 6 nimmt!: the C++ twin of tablezoo/games/sechs_nimmt.py.
//
// The module docstring of sechs_nimmt.py is the spec; this file follows its Python twin
// function by function (target, legal_actions, _apply, _reveal, _place, _take,
// _end_round, _start_draft, chance, observe) so that the two read side by side. The
// lockstep tests hold them to the same games.
//
// The rules are defined in sechs_nimmt.cc; the bots declared here with the game's class (its
// heuristic, the montecarlo and search ports, their rollouts) in bots.cc, as their twins in
// bots/sechs_nimmt.py.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo::sechs_nimmt {

constexpr int kMaxSeats = 10;
constexpr int kFullDeck = 104;
constexpr int kHand = 10;
constexpr int kRows = 4;
constexpr int kRowMax = 5;  // the sixth card takes the row
constexpr int kEndTotal = 66;
constexpr int kMaxRowHeads = 27;  // 55, 66, 77, 88, 99 in one row
constexpr int kMaxRoundHeads = 171;
constexpr int kMaxTotal = kEndTotal - 1 + kMaxRoundHeads;

// Phases: the round's deal is due (chance), a seat picks a card from the table (logic),
// a seat chooses its card for the trick, a seat whose card fits no row chooses the row to
// take, over.
enum Phase : uint8_t { kDeal, kDraft, kChoose, kRow, kOver };
inline const std::array<const char*, 5>& names(Phase) {
  static constexpr std::array<const char*, 5> words = {"deal", "draft", "choose", "row", "over"};
  return words;
}

// The state's `last`. The longest a game writes is a take and the end of the game, as
// "seat 9 took row 4 (27 heads) with 104; round 100000 over, the game ends" (71
// characters); the end of a round appends at most kNoteGrowth characters to whatever
// `last` holds, so validate keeps a note read from outside within kNote - kNoteGrowth.
constexpr size_t kNote = 128;
constexpr size_t kNoteGrowth = 34;  // "; round 100000 over, the game ends"
using Text = Note<kNote>;

// Bull heads of a card: 55 -> 7, other multiples of 11 -> 5, multiples of 10 -> 3,
// other cards ending in 5 -> 2, all others -> 1.
constexpr int heads(int card) {
  if (card == 55) return 7;
  if (card % 11 == 0) return 5;
  if (card % 10 == 0) return 3;
  if (card % 10 == 5) return 2;
  return 1;
}

// kHeads[c]: bull heads of card c (index 0 unused), as the reference's HEADS.
constexpr std::array<int, kFullDeck + 1> kHeads = [] {
  std::array<int, kFullDeck + 1> table{};
  for (int card = 1; card <= kFullDeck; ++card) table[card] = heads(card);
  return table;
}();

// Cards in use: 104, or 10 n + 4 under tactic or logic.
constexpr int deck_size(int num_seats, bool tactic, bool logic) {
  return tactic || logic ? kHand * num_seats + kRows : kFullDeck;
}

using Rows = std::vector<std::vector<int>>;

// Where `card` goes: row index i for its right end, i + 4 for its left end (profi),
// -1 if no row fits (the owner chooses a row to take). `rows` holds 4 non-empty rows.
int target(const Rows& rows, int card, bool profi);

struct State {
  Phase phase = kDeal;
  int round = 1;
  int turn = 0;                          // the seat to decide in the draft, the card choice or the row choice
  std::vector<std::vector<int>> hands;   // ascending; chosen card kept until the reveal
  Rows rows;                             // left .. right, ascending; none (empty) or 4
  std::vector<int> chosen;               // per seat, this trick's card before the reveal (0: none)
  std::vector<int> trick;                // per seat, the card revealed in this (or the last) trick
  std::vector<int> pending;              // seats whose revealed card is still to place, in order
  std::vector<int> pool;                 // logic: cards on the table to draft, ascending
  std::vector<std::vector<int>> piles;   // cards each seat took this round
  std::vector<int> round_heads;          // heads each seat took this round
  std::vector<int> totals;               // heads before this round
  std::vector<std::vector<int>> history; // heads of each finished round, per seat
  Text last;                             // the latest public event, for people

  static constexpr auto fields() {
    return std::make_tuple(field("phase", &State::phase), field("round", &State::round),
                           field("turn", &State::turn), field("hands", &State::hands),
                           field("rows", &State::rows), field("chosen", &State::chosen),
                           field("trick", &State::trick), field("pending", &State::pending),
                           field("pool", &State::pool), field("piles", &State::piles),
                           field("round_heads", &State::round_heads), field("totals", &State::totals),
                           field("history", &State::history), field("last", &State::last));
  }
};

// The outcome of a deal, in check_outcome's normalised form: {"hands": [[10 cards] per
// seat], "rows": [4 cards]} (rows in order row 1..4).
struct Deal {
  std::vector<std::vector<int>> hands;
  std::vector<int> rows;

  static constexpr auto fields() {
    return std::make_tuple(field("hands", &Deal::hands), field("rows", &Deal::rows));
  }
};

class SechsNimmt {
 public:
  using State = sechs_nimmt::State;
  using Outcome = Deal;

  SechsNimmt(int num_seats, const Options& options);
  int num_seats() const { return n_; }
  int num_actions() const { return row_action_ + kRows; }
  int observation_size() const { return size_; }

  State initial_state() const;
  int to_move(const State& s) const;
  // The part of the game the chance now due belongs to (Game.chance_context): the round: its deal.
  int chance_context(const State& s) const { return s.round; }
  void legal_actions(const State& s, std::vector<int>& out) const;
  void apply(State& s, int action) const;
  // The card of a trick is chosen face down; the row choice and the draft are public
  // (sechs_nimmt.py: secret_decision).
  bool secret_decision(const State& s) const { return s.phase == kChoose; }

  // The deal, drawn as the reference draws it: a permutation of the deck (numpy's), the
  // first ten cards to each seat in turn (sorted), the next four to the rows.
  template <class Bits>
  Outcome sample_chance(const State&, Bits& bits) const {
    // numpy_permutation (core.h) of 0..D-1, in a buffer on the stack and holding the cards
    // (one more than each number) rather than the numbers
    std::array<int, kFullDeck> cards;
    for (int i = 0; i < deck_; ++i) cards[i] = i + 1;
    for (int i = deck_ - 1; i >= 1; --i) std::swap(cards[i], cards[numpy_interval(bits, static_cast<uint64_t>(i))]);
    Deal deal;
    deal.hands.resize(n_);
    for (int seat = 0; seat < n_; ++seat) {
      // the seat's ten cards, sorted: marked in a set of 128 bits, then read off in order
      uint64_t marked[2] = {};
      for (int k = kHand * seat; k < kHand * (seat + 1); ++k) marked[cards[k] / 64] |= uint64_t{1} << (cards[k] % 64);
      auto& hand = deal.hands[seat];
      hand.reserve(kHand);
      for (int w = 0; w < 2; ++w)
        for (uint64_t m = marked[w]; m; m &= m - 1) hand.push_back(64 * w + __builtin_ctzll(m));
    }
    deal.rows.assign(cards.begin() + kHand * n_, cards.begin() + kHand * n_ + kRows);
    return deal;
  }
  std::vector<std::pair<Outcome, double>> chance_outcomes(const State& s) const;
  void check_outcome(const State& s, const Outcome& o) const;
  void apply_chance(State& s, const Outcome& o) const;

  void observe(const State& s, int seat, float* out) const;

  // The heuristic bot (bots/sechs_nimmt.py, SechsNimmtHeuristicBot): at a card choice the
  // card of least expected heads (card_costs), at a row choice the row of fewest heads
  // (best_row), in the logic draft the card farthest from the hand (draft_pick). It reads
  // only what its seat sees: its own hand, the rows, the cards face-up this round, and the
  // other hands where they are public (logic); never a hidden hand, nor a card chosen.
  struct Heuristic {
    static constexpr bool exists = true;
    void reset() {}
    int act(const SechsNimmt& game, const State& s, int seat, Rng&) const;
  };

  // A state consistent with what `seat` knows, everything else drawn anew (games/sechs_nimmt.py,
  // SechsNimmt.determinize, draw for draw): in a trick (not under logic) the other hands are
  // dealt again from the cards the seat has neither seen face-up this round (the rows, the
  // taken cards, the revealed cards to place) nor holds, each as many cards as it held; then
  // each other seat that has chosen its card for the trick chooses one of its (new) hand at
  // random. Under logic the hands are public and only the chosen cards are drawn. With a
  // numpy Generator's bits it draws what the reference draws; the ports draw from their Rng.
  template <class Bits>
  void determinize(const State& s, int seat, Bits& bits, State& out) const {
    out = s;  // a copy into the caller's state: its lists keep their room
    if (!logic_ && (s.phase == kChoose || s.phase == kRow)) {
      std::array<bool, kFullDeck + 1> known{};
      for (int c : s.hands[seat]) known[c] = true;
      for (const auto& row : s.rows)
        for (int c : row) known[c] = true;
      for (const auto& pile : s.piles)
        for (int c : pile) known[c] = true;
      for (int p : s.pending) known[s.trick[p]] = true;
      std::array<int, kFullDeck> unknown;  // ascending
      int count = 0;
      for (int c = 1; c <= deck_; ++c)
        if (!known[c]) unknown[count++] = c;
      // rng.permutation(len(unknown)), applied to the unknown cards themselves: the same swaps
      // (numpy_permutation in core.h) leave unknown[i] = the reference's unknown[order[i]]
      for (int i = count - 1; i >= 1; --i)
        std::swap(unknown[i], unknown[numpy_interval(bits, static_cast<uint64_t>(i))]);
      int at = 0;
      for (int other = 0; other < n_; ++other) {
        if (other == seat) continue;
        auto& hand = out.hands[other];
        const int k = static_cast<int>(hand.size());
        hand.assign(unknown.begin() + at, unknown.begin() + at + k);
        std::sort(hand.begin(), hand.end());
        at += k;
      }
    }
    for (int other = 0; other < n_; ++other) {
      const auto& hand = out.hands[other];
      if (other != seat && out.chosen[other] && !hand.empty())
        out.chosen[other] = hand[numpy_integers(bits, hand.size())];
    }
  }

  // The plain determinised Monte Carlo bot (bots/sechs_nimmt.py, SechsNimmtMonteCarloBot, with
  // its default samples): at a card choice every card of the hand is played on each of
  // `samples` determinisations and the round played out at random (random_rollout); the card of
  // least mean score (the heads this seat takes, less the others' mean) is played. The row
  // choice and the logic draft are the heuristic's.
  class MonteCarlo {
   public:
    static constexpr const char* name = "montecarlo";
    int samples = 24;
    void reset() {}
    int act(const SechsNimmt& game, const State& s, int seat, Rng& rng);

   private:
    void evaluate(const SechsNimmt& game, const State& s, int seat, Rng& rng);
    std::vector<int> legal_;     // the legal moves of the position to decide
    std::vector<double> means_;  // each one's mean score (evaluate)
    State sample_, state_;       // scratch: a determinisation, and a move played out on it
  };

  // The determinised Monte Carlo search (bots/sechs_nimmt.py, SechsNimmtSearchBot, with its
  // default settings; `model` is off): every card (or row) is played on `samples`
  // determinisations, the `keep` best by mean on `extra` more each (successive halving); every
  // candidate meets the same determinisations and the same random stream in its rollout
  // (common random numbers), and a rollout plays each move as the heuristic would with
  // probability `greedy`, else at random (mixed_rollout). A score is the heads this seat takes
  // to the end of the round less `relative` times the others' mean. The logic draft and a
  // forced move are the heuristic's. It values moves as its twin does (action_values).
  class Search {
   public:
    static constexpr const char* name = "search";
    int samples = 16, keep = 3, extra = 32;
    double greedy = 0.5, relative = 1.0;
    void reset() {}
    int act(const SechsNimmt& game, const State& s, int seat, Rng& rng) { return choose(game, s, seat, rng); }
    void action_values(const SechsNimmt& game, const State& s, int seat, Rng& rng, std::vector<double>& out);

   private:
    int choose(const SechsNimmt& game, const State& s, int seat, Rng& rng);
    void evaluate(const SechsNimmt& game, const State& s, int seat, Rng& rng, const std::vector<int>& which,
                  int draws);
    std::vector<int> legal_;       // the legal moves of the position to decide
    std::vector<int> all_, best_;  // indices into legal_: every move, and the ones kept
    std::vector<double> sums_;     // per legal move: its scores added up...
    std::vector<int> counts_;      // ...over this many samples
    std::vector<double> scores_;   // per legal move: its score (choose); empty when not searched
    State sample_, state_;         // scratch: a determinisation, and a move played out on it
  };
  // The native ports of this game's Python bots (bind/ports.h binds each for Python).
  using Ports = std::tuple<MonteCarlo, Search>;

  // Play s to the end of its round, every card and row chosen uniformly at random from rng
  // (bots/sechs_nimmt.py, random_rollout).
  void random_rollout(State& s, Rng& rng) const;
  // Play s to the end of its round, each card and row choice the heuristic's with probability
  // greedy, else uniform (bots/sechs_nimmt.py, mixed_rollout).
  void mixed_rollout(State& s, Rng& rng, double greedy) const;

  std::vector<double> scores(const State& s) const;
  std::vector<int> winners(const State& s) const;
  void validate(const State& s) const;

 private:
  void reveal(State& s) const;
  void place(State& s) const;
  void take(State& s, int seat, int i, int card) const;
  void end_round(State& s) const;
  void start_draft(State& s) const;

  int n_;
  bool profi_, logic_;
  // took_[seat][i]: "seat {seat} took row {i + 1} (", how the note of a take starts, written
  // once (a note is copied whole far quicker than it is written a character at a time)
  std::array<std::array<Text, kRows>, kMaxSeats> took_;
  int deck_;        // D
  int row_action_;  // the id of `row 1`: D, or 2 D under logic
  int size_;        // the observation's size
  // Offsets of observation_fields(n, D, logic); a one-hot card field holds card c at offset + c - 1.
  int o_hand_, o_choice_, o_seen_, o_row_last_, o_heads_, o_has_chosen_, o_to_move_, o_phase_;
  int o_trick_, o_placing_, o_cards_left_, o_fit_, o_fit_heads_, o_gap_, o_open_, o_others_hands_, o_pool_;
};

}  // namespace tablezoo::sechs_nimmt
