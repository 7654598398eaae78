// Heckmeck am Bratwurmeck: the C++ twin of tablezoo/games/heckmeck.py.
//
// The module docstring of heckmeck.py is the spec; this file follows its Python twin
// function by function (claims, legal_actions, _apply, _bust, _end_turn, chance, observe)
// so that the two read side by side. The lockstep tests hold them to the same games.
//
// The rules are defined in heckmeck.cc; the bots declared here with the game's class (its
// heuristic, TurnSolver, the solver port) in bots.cc, as their twins in bots/heckmeck.py.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo::heckmeck {

constexpr int kDice = 8;
constexpr int kWorm = 5;  // index of the worm face
constexpr int kRoll = 6, kTake = 7, kSteal = 8;
constexpr int kFaceValue[6] = {1, 2, 3, 4, 5, 5};

inline int worms(int tile) { return (tile - 17) / 4; }

// Phases of a turn: a roll is due (chance), keep a face, roll again or stop, must claim, over.
enum Phase : uint8_t { kRolling, kKeeping, kDeciding, kClaiming, kOver };
inline const std::array<const char*, 5>& names(Phase) {
  static constexpr std::array<const char*, 5> words = {"roll", "keep", "decide", "claim", "over"};
  return words;
}

struct State {
  std::vector<int> grill;                // face-up, ascending
  std::vector<int> dead;                 // turned face-down, out of the game
  std::vector<std::vector<int>> stacks;  // bottom .. top, per seat
  int turn = 0;                          // the seat whose turn it is
  Phase phase = kRolling;
  Counts roll{};                         // current roll, per face
  Counts kept{};                         // kept dice, per face
  int total = 0;                         // sum of the kept dice
  int left = kDice;                      // dice not kept yet
  Note<120> last;                        // how the previous turn ended, for people

  static constexpr auto fields() {
    return std::make_tuple(field("grill", &State::grill), field("dead", &State::dead),
                           field("stacks", &State::stacks), field("turn", &State::turn),
                           field("phase", &State::phase), field("roll", &State::roll),
                           field("kept", &State::kept), field("total", &State::total),
                           field("left", &State::left), field("last", &State::last));
  }
};

// The expected worm change of every position of one turn, for one board (bots/heckmeck.py,
// TurnSolver, method for method). The board is what the claims depend on: the face-up grill
// tiles, the mover's top tile (lost on a bust) and the opponents' top tiles (stealable). A
// position is (kept faces as a bit mask, dice left, sum); each value is computed once and kept.
// A steal of w worms is worth steal * w (1: the worms it brings the mover).
class TurnSolver {
 public:
  TurnSolver(const std::vector<int>& grill, const std::vector<int>& own_stack, const std::vector<int>& opponent_tops,
             double steal = 1.0);
  static TurnSolver for_state(const State& s, double steal = 1.0);

  // The best claim with these kept faces and sum (its worms), or none.
  std::optional<double> claim_value(int kept, int total) const {
    if (!(kept >> kWorm & 1)) return std::nullopt;
    return claim_[total];
  }
  // A position after a keep: the better of stopping and rolling on.
  double after_keep(int kept, int left, int total);
  // The expected value of rolling `left` dice, keeping the best face each time.
  double before_roll(int kept, int left, int total);
  // The face to keep from `roll` and the value it leads to (ties go to the lower face).
  std::pair<int, double> best_keep(int kept, int left, int total, const Counts& roll);

 private:
  static constexpr int kAllFaces = (1 << 6) - 1;
  static constexpr int kMaxTotal = 5 * kDice;
  // where a position's value is kept; a position no turn reaches raises BadState
  static size_t index(int kept, int left, int total);

  double bust_value_;
  std::array<std::optional<double>, kMaxTotal + 1> claim_{};  // best claim per sum, a worm kept
  std::vector<double> after_keep_, before_roll_;               // NaN: not computed yet
};

class Heckmeck {
 public:
  using State = heckmeck::State;
  using Outcome = Counts;

  Heckmeck(int num_seats, const Options& options);
  int num_seats() const { return n_; }
  int num_actions() const { return 9; }
  int observation_size() const { return 35 + 19 * n_; }

  State initial_state() const;
  int to_move(const State& s) const;
  // The part of the game the chance now due belongs to (Game.chance_context): the seat whose turn it is: its rolls are its turn's chance.
  int chance_context(const State& s) const { return s.turn; }
  // (grill tile, seat to steal from) the kept dice allow now; 0 / -1 for none
  std::pair<int, int> claims(const State& s) const;
  void legal_actions(const State& s, std::vector<int>& out) const;
  void apply(State& s, int action) const;

  template <class Bits>
  Outcome sample_chance(const State& s, Bits& bits) const {
    return roll_counts(bits, s.left);
  }
  std::vector<std::pair<Outcome, double>> chance_outcomes(const State& s) const { return roll_distribution(s.left); }
  void check_outcome(const State& s, const Outcome& o) const { check_roll(o, s.left); }
  void apply_chance(State& s, const Outcome& o) const;

  void observe(const State& s, int seat, float* out) const;
  // Game.determinize: everything is public (the dice to come are chance), so a plain copy.
  template <class Bits>
  void determinize(const State& s, int, Bits&, State& out) const {
    out = s;
  }

  // The heuristic bot (bots/heckmeck.py, HeckmeckGreedyBot with its defaults): keeps worms
  // first, then the face worth most; stops on a claim once the sum reaches 27 or fewer than
  // 3 dice are left (a steal before a take).
  struct Heuristic {
    static constexpr bool exists = true;
    int stop_at = 27, min_dice = 3;
    std::vector<int> legal;
    void reset() {}
    int act(const Heckmeck& game, const State& s, int seat, Rng& rng);
  };
  // The solver bot (bots/heckmeck.py, HeckmeckSolverBot): keeps the face and makes the stop
  // that TurnSolver values most, and values each legal move as the Python bot does. The
  // solvers of the last few boards are kept (a turn's decisions share one board).
  class Solver {
   public:
    static constexpr const char* name = "solver";
    void reset() { solvers_.clear(); }
    int act(const Heckmeck& game, const State& s, int seat, Rng&);
    void action_values(const Heckmeck& game, const State& s, int seat, Rng&, std::vector<double>& out);

   protected:
    // What a steal's worms are worth (HeckmeckSolverBot.steal): 1 each, or with margin_ the
    // margin's n / (n - 1) at n seats.
    double steal(const State& s) const {
      const double n = static_cast<double>(s.stacks.size());
      return margin_ && n > 1 ? n / (n - 1) : 1.0;
    }
    bool margin_ = false;

   private:
    TurnSolver& solver(const State& s);
    std::vector<std::pair<std::vector<int>, TurnSolver>> solvers_;  // (board, its solver)
    std::vector<int> key_, legal_;                                  // scratch
  };
  // The margin solver (bots/heckmeck.py, HeckmeckMarginBot): the solver for the mover's worms
  // less the mean of the others', a steal worth its worms n / (n - 1) times.
  class Margin : public Solver {
   public:
    static constexpr const char* name = "margin";
    Margin() { margin_ = true; }
  };
  // The native ports of this game's Python bots (bind/ports.h binds each for Python).
  using Ports = std::tuple<Solver, Margin>;

  std::vector<double> scores(const State& s) const;
  std::vector<int> winners(const State& s) const;
  void validate(const State& s) const;

 private:
  using Text = Note<120>;
  void bust(State& s, const Text& why) const;
  void end_turn(State& s, const Text& note) const;

  int n_;
  bool quick_;
};

}  // namespace tablezoo::heckmeck
