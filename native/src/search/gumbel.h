// Search self-play as one batched loop: many games of one configuration, every decision of every
// seat searched by a Gumbel root with sequential halving (Danihelka et al., "Policy improvement
// by planning with Gumbel", 2022), the network asked once per wave of leaves across all games.
//
// The caller owns the network. The loop runs until every game waits on the network, hands the
// observations it needs (requests: one row each, as the network reads them, padded or plain)
// and goes on with the answers (answer: each row's logits and win share). The network may thus
// be anything: torch, numpy, ONNX, the core's own (tablezoo.training.search_selfplay drives it).
//
// One decision of seat s in state x (the game's real state):
//
//   1. the root: s's observation of x is asked; its logits give the prior, its win share v0;
//   2. Gumbel top-m: each legal move a draws g(a) ~ Gumbel(0, 1) (none in greedy play), and the
//      m moves with the highest g(a) + logit(a) are considered (sampling m without replacement);
//   3. sequential halving over ceil(log2 m) phases: in each, every move still considered is
//      simulated `per` = max(1, n / (phases * |considered|)) times, then the better half is kept,
//      ranked by g(a) + logit(a) + sigma(q(a)). A phase's simulations draw `per` worlds, each a
//      determinisation of x from what s can see (the game's determinize) with a random stream of
//      its own, and every move is simulated in each world (common random numbers: the moves are
//      compared on the same hidden cards and the same dice);
//   4. a simulation of move a in world y: apply a; chance by the engine's odds; every other seat
//      samples its move from the network's policy on its own observation (its likeliest move
//      with `others_likeliest`); where it ends is the leaf setting (search.py's LEAVES):
//      - Leaf::kHead (AlphaZero's leaf): when s is to move again (the network's win share on s's
//        observation), or after `horizon` decisions of the others (the same);
//      - Leaf::kTurn: at the start of s's next turn, a decision of s after another seat's; s's
//        own moves within its turn are the network's likeliest;
//      - Leaf::kEnd: nowhere, the network plays the game out (s's moves its likeliest);
//      and always at the end of the game (s's win share), or after kMaxPlayout decisions (the
//      network's win share there);
//   5. the move played is the one left; the decision's training target is the improved policy
//      softmax(logit + sigma(completed q)) over the legal moves, where a move never simulated
//      has q = v0 and sigma(q) = (c_visit + the most visits of a move) * c_scale * q (q is a win
//      share in [0, 1]); the value target is the win share s ends the game with.
//
// Where chance is due in a game (dice to roll, cards to deal), the seat that moved last gets a
// value-only sample of that position (chance_values): the win-share head learns positions
// before the luck too, which decisions alone never show it (a roll due in Heckmeck).
//
// A wave asks each distinct observation once (per game): where the seats move simultaneously
// (6 nimmt!, Diamant) the others see the same in a world whichever move the searching seat tried,
// and one row answers them all.
//
// A decision with one legal move is played without asking anything and makes no sample. Every
// game has its own random stream, drawn from (seed, game index) alone, so the samples do not
// depend on the thread count nor on how the network's answers were computed, only on them.
// Finished games start anew at once.
//
// Opponents (opponent_games > 0): in the first opponent_games games a bot sits at the table. At
// the start of each of their episodes one seat is drawn to be searched; the bot plays every other
// seat (its own memory, reset each episode, and its own random stream) and makes no samples. The
// searched seat is trained against the bot as it is checked against it, while its simulations
// still model the others by the network (the search does not read the bot's mind). Where chance
// is due in such a game, the value-only sample is the searched seat's view.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch/batched.h"
#include "search/search.h"
#include "tablezoo/core.h"

namespace tablezoo {

struct GumbelConfig {
  int num_games = 1;
  uint64_t seed = 0;
  int num_threads = 1;
  int simulations = 16;   // n: the simulations a decision's halving spends (at least one per considered move and phase)
  int considered = 16;    // m: the moves sampled at the root
  int horizon = 0;        // decisions of the others before a leaf is valued (0: 2 (seats - 1))
  double c_visit = 50.0;  // sigma's constants (mctx's defaults)
  double c_scale = 1.0;
  bool gumbel = true;     // false: no Gumbel noise, the greedy player
  int64_t max_decisions = 0;  // a game's decisions (every seat's) before it is cut, its samples dropped (0: no cap)
  bool chance_values = true;  // a value-only sample where chance is due, from the last mover's view
  int opponent_games = 0;     // the first K games: one seat searched (drawn each episode), a bot at every other
  Leaf leaf = Leaf::kHead;    // where a simulation is valued (search.h's Leaf, search.py's LEAVES)
  bool others_likeliest = false;  // the others play their likeliest move in a simulation (else a policy draw)
};

// A bot at the seats the search does not play (opponent_games). Each game with one has its own.
template <class G>
struct GumbelOpponent {
  virtual ~GumbelOpponent() = default;
  virtual void reset() = 0;  // a new episode: forget what was kept
  virtual int act(const G& game, const typename G::State& s, int seat, Rng& rng) = 0;  // a legal move of `seat`
};

// Any bot with reset() and act(game, state, seat, rng) (a game's native heuristic, its ports) as one.
template <class G, class Bot>
struct BotOpponent final : GumbelOpponent<G> {
  Bot bot;
  void reset() override { bot.reset(); }
  int act(const G& game, const typename G::State& s, int seat, Rng& rng) override { return bot.act(game, s, seat, rng); }
};

// Makes a game's opponent (empty: no games have one).
template <class G>
using OpponentFactory = std::function<std::unique_ptr<GumbelOpponent<G>>()>;

// The counts of what the loop did since it was built.
struct GumbelCounts {
  int64_t decisions = 0;    // searched decisions (each a sample)
  int64_t forced = 0;       // decisions with one legal move, played as they are
  int64_t simulations = 0;
  int64_t questions = 0;    // observations the search asked about
  int64_t evaluations = 0;  // rows answered: the questions of a wave asked once each
  int64_t waves = 0;        // answers
  int64_t episodes = 0;     // games finished
  int64_t truncated = 0;    // games cut at max_decisions
  int64_t chance_values = 0;  // value-only samples where chance was due
  int64_t opponent_moves = 0;  // moves of the opponents' bots
};

// The samples of finished games, one row per searched decision.
struct GumbelSamples {
  int rows = 0;
  std::vector<float> obs;       // (rows, read size): the mover's observation, as the network reads it
  std::vector<int8_t> mask;     // (rows, actions): its legal moves
  std::vector<float> policy;    // (rows, actions): the improved policy, 0 off the legal moves
  std::vector<float> visits;    // (rows, actions): each move's simulations
  std::vector<float> q;         // (rows, actions): each move's completed q
  std::vector<float> root_value;  // (rows,): the network's win share at the root (v0)
  std::vector<float> value;     // (rows,): the win share the mover ended the game with
  std::vector<int32_t> seat, action, game;  // (rows,): the mover, the move played, the game's index
};

template <class G>
class GumbelSelfPlay {
 public:
  using State = typename G::State;

  GumbelSelfPlay(const G& game, GumbelConfig config, Reading reading, const OpponentFactory<G>& opponent = {})
      : game_(game), config_(config), reading_(std::move(reading)), pool_(config.num_threads),
        games_(static_cast<size_t>(config.num_games)) {
    read_size_ = reading_.size ? reading_.size : game_.observation_size();
    horizon_ = config_.horizon ? config_.horizon : 2 * (game_.num_seats() - 1);
    if (config_.opponent_games < 0 || config_.opponent_games > config_.num_games)
      throw std::invalid_argument("opponent_games is 0.." + std::to_string(config_.num_games) + " (the games), not " +
                                  std::to_string(config_.opponent_games));
    if (config_.opponent_games > 0 && !opponent)
      throw std::invalid_argument("opponent_games needs an opponent: the bot that plays their other seats");
    for (int i = 0; i < config_.opponent_games; ++i) {
      games_[i].opponent = opponent();
      if (!games_[i].opponent) throw std::invalid_argument("the opponent's factory made no bot");
    }
  }

  int read_size() const { return read_size_; }
  int num_actions() const { return game_.num_actions(); }
  int num_games() const { return config_.num_games; }
  const GumbelCounts& counts() const { return counts_; }
  const State& state(int i) const { return games_[i].x; }
  int searched(int i) const { return games_[i].opponent ? games_[i].searched : -1; }

  // Start every game anew from the seed; every game then waits on its first root.
  void reset() {
    for (size_t i = 0; i < games_.size(); ++i) {
      Play& p = games_[i];
      std::unique_ptr<GumbelOpponent<G>> opponent = std::move(p.opponent);
      p = Play{};
      p.opponent = std::move(opponent);
      p.rng.reseed(game_seed(config_.seed, i));
      p.bot_rng.reseed(game_seed(~config_.seed, i));
      new_episode(p);
    }
    pool_.run(config_.num_games, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) next_decision(games_[i], i);
    });
    collect_counts();
  }

  // The rows waiting on the network, in game order: how many, and their observations.
  int pending() const {
    int rows = 0;
    for (const Play& p : games_) rows += rows_of(p);
    return rows;
  }
  void requests(float* out) const {
    for (const Play& p : games_) {
      std::memcpy(out, p.asked.data(), p.asked.size() * sizeof(float));
      out += p.asked.size();
    }
  }

  // What is wrong with answers to the pending rows, or "" if nothing: a row read for its policy
  // needs finite logits at its legal moves (the others are never read: -inf is fine there), a
  // row read for its value (a root, a leaf) a win share in [0, 1].
  std::string check(const float* logits, const float* values) const {
    const size_t actions = static_cast<size_t>(game_.num_actions());
    int base = 0;
    std::vector<int> moves;
    for (const Play& p : games_) {
      for (size_t k = 0; k < p.waiting.size(); ++k) {
        const int what = p.waiting[k], row = base + p.at[k];
        const bool root = what < 0, leaf = !root && p.walkers[what].leaf;
        if (root || leaf) {
          const float v = values[row];
          if (!(v >= 0.0f && v <= 1.0f))
            return "row " + std::to_string(row) + "'s value is " + std::to_string(v) +
                   ": a win share is a number from 0 to 1";
        }
        if (!leaf) {
          moves.clear();
          if (root)
            moves = p.legal;
          else
            game_.legal_actions(p.walkers[what].y, moves);
          for (int a : moves)
            if (!std::isfinite(logits[static_cast<size_t>(row) * actions + a]))
              return "row " + std::to_string(row) + "'s logit of legal action " + std::to_string(a) + " is " +
                     std::to_string(logits[static_cast<size_t>(row) * actions + a]) +
                     ": the logits of legal actions must be finite";
        }
      }
      base += rows_of(p);
    }
    return "";
  }

  // The network's answers to the pending rows (pending() of them, as requests() ordered them):
  // logits (rows, actions) and win shares (rows,), as check() accepts them. Every game goes on
  // until it waits on the network again.
  void answer(const float* logits, const float* values) {
    std::vector<int> first(games_.size() + 1, 0);
    for (size_t i = 0; i < games_.size(); ++i) first[i + 1] = first[i] + rows_of(games_[i]);
    const size_t actions = static_cast<size_t>(game_.num_actions());
    pool_.run(config_.num_games, [&](int begin, int end) {
      for (int i = begin; i < end; ++i)
        receive(games_[i], i, logits + static_cast<size_t>(first[i]) * actions, values + first[i]);
    });
    ++counts_.waves;
    collect_counts();
  }

  // Every game plays `decisions` more searched decisions, its network the core's own (net/net.h,
  // reading the rows as requests() would hand them out). With the network in the core there is
  // nothing to batch across games: each game asks and answers on its own, the games spread over
  // the threads. The samples are what the same answers through answer() would make.
  void play(const PolicyValueNet& net, int64_t decisions) {
    const size_t actions = static_cast<size_t>(game_.num_actions()), width = static_cast<size_t>(read_size_);
    pool_.run(config_.num_games, [&](int begin, int end) {
      PolicyValueNet::Work work;
      std::vector<float> logits, values;
      std::vector<int> moves;
      for (int i = begin; i < end; ++i) {
        Play& p = games_[i];
        const int64_t goal = p.counts.decisions + decisions;
        while (p.counts.decisions < goal) {
          const size_t rows = static_cast<size_t>(rows_of(p));
          logits.resize(rows * actions);
          values.resize(rows);
          for (size_t r = 0; r < rows; ++r) {
            // only what the row is read for: the legal moves' logits of those waiting on it (none
            // for a leaf)
            moves.clear();
            for (size_t k = 0; k < p.waiting.size(); ++k) {
              const int what = p.waiting[k];
              if (static_cast<size_t>(p.at[k]) != r || (what >= 0 && p.walkers[what].leaf)) continue;
              if (what < 0)
                moves.insert(moves.end(), p.legal.begin(), p.legal.end());
              else
                game_.legal_actions(p.walkers[what].y, moves);
            }
            std::sort(moves.begin(), moves.end());
            moves.erase(std::unique(moves.begin(), moves.end()), moves.end());
            values[r] = static_cast<float>(
                net.evaluate(p.asked.data() + r * width, logits.data() + r * actions, work, &moves));
          }
          receive(p, i, logits.data(), values.data());
        }
      }
    });
    collect_counts();
  }

  // The samples of the games finished since the last take, moved out (in game order).
  GumbelSamples take() {
    GumbelSamples out;
    for (Play& p : games_) {
      GumbelSamples& done = p.finished;
      out.rows += done.rows;
      append(out.obs, done.obs);
      append(out.mask, done.mask);
      append(out.policy, done.policy);
      append(out.visits, done.visits);
      append(out.q, done.q);
      append(out.root_value, done.root_value);
      append(out.value, done.value);
      append(out.seat, done.seat);
      append(out.action, done.action);
      append(out.game, done.game);
      done = GumbelSamples{};
    }
    return out;
  }

 private:
  // One simulation in flight: a move of the root played in a world.
  struct Walker {
    int move = 0;       // index into the root's legal moves
    State y;
    Rng rng{0};
    int others = 0;     // decisions of the others so far
    int steps = 0;      // decisions played in the simulation so far (the root's move not counted)
    bool leaf = false;  // what it waits for: the leaf's win share (else the mover's policy)
    double value = 0;
    bool done = false;
  };

  // One game and the decision it is searching.
  struct Play {
    State x;
    Rng rng{0};
    int seat = 0;
    std::vector<int> legal;
    std::vector<float> logits;  // the root's, over legal
    double v0 = 0;
    std::vector<double> g, visits, qsum;
    std::vector<int> considered;
    int phases = 0;
    std::vector<Walker> walkers;
    std::vector<float> root_obs;
    std::vector<int> waiting;   // who waits on the network: a walker's index, or -1 (the root)...
    std::vector<int> at;        // ...and the row it waits on
    std::vector<float> asked;   // the rows: distinct observations, each asked once
    ObservationIndex index;     // the rows by observation
    GumbelSamples episode;      // this game's samples so far (values filled at its end)
    GumbelSamples finished;     // samples of finished games, until taken
    int64_t made = 0;           // the decisions of this game so far
    int last = -1;              // the seat that moved last in this game (-1: none yet)
    std::unique_ptr<GumbelOpponent<G>> opponent;  // the bot at the other seats (none: every seat searched)
    int searched = -1;          // with an opponent: the seat searched this episode
    Rng bot_rng{0};             // the opponent's randomness
    GumbelCounts counts;
    std::vector<int> moves;
    std::vector<float> plain, input, policy;
  };

  // A network's numbers as the search reads them. answer()'s caller has checked them; a network
  // in the core (play) is not, and a NaN would break the ranking's order: a logit that is not a
  // number counts as the lowest, a win share is held to [0, 1].
  static float finite(float logit) { return std::isnan(logit) ? -3.0e38f : std::clamp(logit, -3.0e38f, 3.0e38f); }
  static double share(double v) { return std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0); }

  template <class T>
  static void append(std::vector<T>& to, const std::vector<T>& from) {
    to.insert(to.end(), from.begin(), from.end());
  }

  void collect_counts() {
    GumbelCounts total = counts_;
    total.decisions = total.forced = total.simulations = total.questions = total.evaluations = total.episodes =
        total.truncated = total.chance_values = total.opponent_moves = 0;
    for (const Play& p : games_) {
      total.decisions += p.counts.decisions;
      total.forced += p.counts.forced;
      total.simulations += p.counts.simulations;
      total.evaluations += p.counts.evaluations;
      total.questions += p.counts.questions;
      total.episodes += p.counts.episodes;
      total.truncated += p.counts.truncated;
      total.chance_values += p.counts.chance_values;
      total.opponent_moves += p.counts.opponent_moves;
    }
    counts_ = total;
  }

  int rows_of(const Play& p) const { return static_cast<int>(p.asked.size() / static_cast<size_t>(read_size_)); }

  // Nothing asked yet of p's next wave.
  void new_wave(Play& p) const {
    p.waiting.clear();
    p.at.clear();
    p.asked.clear();
    p.index.clear(read_size_, 64);
  }

  // Ask the network about `seat`'s observation of `x`, for `what` (a walker, or -1: the root). An
  // observation asked already in this wave is not asked again: the same answer serves both (in a
  // game of simultaneous moves the others' observations are the same whichever move the searching
  // seat tried in a world, so a phase asks for them once).
  void ask(Play& p, const State& x, int seat, int what) {
    p.plain.resize(game_.observation_size());
    game_.observe(x, seat, p.plain.data());
    const float* row = reading_.read(p.plain, p.input);
    int at = p.index.find(row);
    if (at < 0) {
      at = rows_of(p);
      p.index.insert(row, at);
      p.asked.insert(p.asked.end(), row, row + read_size_);
    }
    p.waiting.push_back(what);
    p.at.push_back(at);
    ++p.counts.questions;
  }

  // A new episode of p: the first state; with an opponent, the seat searched drawn and the bot reset.
  void new_episode(Play& p) const {
    p.x = game_.initial_state();
    p.made = 0;
    p.last = -1;
    if (p.opponent) {
      p.searched = static_cast<int>(p.rng.below(static_cast<uint64_t>(game_.num_seats())));
      p.opponent->reset();
    }
  }

  // Play on until a decision of more than one move; ask for its root.
  void next_decision(Play& p, int index) {
    while (true) {
      if (config_.chance_values && p.last >= 0 && game_.to_move(p.x) == kChance)
        value_sample(p, p.opponent ? p.searched : p.last, index);
      const int mover = resolve_chance(game_, p.x, p.rng);
      if (mover == kTerminal) {
        finish_episode(p, index);
        new_episode(p);
        continue;
      }
      if (config_.max_decisions > 0 && p.made >= config_.max_decisions) {
        p.episode = GumbelSamples{};  // no outcome to learn from
        ++p.counts.truncated;
        new_episode(p);
        continue;
      }
      ++p.made;
      p.legal.clear();
      game_.legal_actions(p.x, p.legal);
      if (p.opponent && mover != p.searched) {
        const int move = p.opponent->act(game_, p.x, mover, p.bot_rng);
        if (std::find(p.legal.begin(), p.legal.end(), move) == p.legal.end())
          throw std::logic_error("the opponent's bot chose " + std::to_string(move) + ", not a legal move");
        game_.apply(p.x, move);
        p.last = mover;
        ++p.counts.opponent_moves;
        continue;
      }
      if (p.legal.size() == 1) {
        game_.apply(p.x, p.legal[0]);
        p.last = mover;
        ++p.counts.forced;
        continue;
      }
      p.seat = mover;
      new_wave(p);
      ask(p, p.x, mover, -1);
      p.root_obs = p.asked;
      return;
    }
  }

  void finish_episode(Play& p, int index) {
    GumbelSamples& e = p.episode;
    std::vector<double> share(game_.num_seats());
    for (int s = 0; s < game_.num_seats(); ++s) share[s] = win_share(game_, p.x, s);
    for (int r = 0; r < e.rows; ++r) e.value.push_back(static_cast<float>(share[e.seat[r]]));
    GumbelSamples& f = p.finished;
    f.rows += e.rows;
    append(f.obs, e.obs);
    append(f.mask, e.mask);
    append(f.policy, e.policy);
    append(f.visits, e.visits);
    append(f.q, e.q);
    append(f.root_value, e.root_value);
    append(f.value, e.value);
    append(f.seat, e.seat);
    append(f.action, e.action);
    append(f.game, e.game);
    e = GumbelSamples{};
    ++p.counts.episodes;
    (void)index;
  }

  // The answers to p's pending rows; then on until p waits again.
  void receive(Play& p, int index, const float* logits, const float* values) {
    const std::vector<int> waiting = std::move(p.waiting), at = std::move(p.at);
    p.counts.evaluations += rows_of(p);
    new_wave(p);
    const size_t actions = static_cast<size_t>(game_.num_actions());
    for (size_t k = 0; k < waiting.size(); ++k) {
      const int r = at[k];
      const float* row = logits + static_cast<size_t>(r) * actions;
      if (waiting[k] < 0) {
        root(p, row, values[r]);
        continue;
      }
      Walker& w = p.walkers[waiting[k]];
      if (w.leaf) {
        w.value = share(values[r]);
        w.done = true;
        continue;
      }
      // the mover's move: the searching seat's own (within its turn, or played out) its likeliest,
      // another seat's sampled from the network's policy (or its likeliest)
      const int mover = game_.to_move(w.y);
      p.moves.clear();
      game_.legal_actions(w.y, p.moves);
      size_t chosen = 0;
      if (mover == p.seat || config_.others_likeliest) {
        for (size_t j = 1; j < p.moves.size(); ++j)
          if (finite(row[p.moves[j]]) > finite(row[p.moves[chosen]])) chosen = j;  // the first of equals
      } else {
        p.policy.resize(p.moves.size());
        float top = finite(row[p.moves[0]]);
        for (int a : p.moves) top = std::max(top, finite(row[a]));
        for (size_t j = 0; j < p.moves.size(); ++j) p.policy[j] = std::exp(finite(row[p.moves[j]]) - top);
        chosen = static_cast<size_t>(sample(p.policy, w.rng));
      }
      game_.apply(w.y, p.moves[chosen]);
      if (mover != p.seat) ++w.others;
      ++w.steps;
      walk(p, w, waiting[k]);
    }
    // a phase whose walkers are all done: halve, and the next phase or the decision's end
    while (p.waiting.empty()) {
      finish_phase(p);
      if (p.considered.size() > 1) {
        start_phase(p);
        continue;
      }
      decide(p, index);
      next_decision(p, index);
    }
  }

  // The root's answer: the prior, v0, the Gumbel draws, the moves considered, the first phase.
  void root(Play& p, const float* row, float value) {
    const size_t k = p.legal.size();
    p.logits.resize(k);
    for (size_t i = 0; i < k; ++i) p.logits[i] = finite(row[p.legal[i]]);
    p.v0 = share(value);
    p.g.assign(k, 0.0);
    if (config_.gumbel)
      for (double& x : p.g) {
        double u = uniform(p.rng);
        if (u <= 0.0) u = 0x1.0p-54;
        x = -std::log(-std::log(u));
      }
    p.visits.assign(k, 0.0);
    p.qsum.assign(k, 0.0);
    p.considered.resize(k);
    std::iota(p.considered.begin(), p.considered.end(), 0);
    const size_t m = std::min<size_t>(k, static_cast<size_t>(config_.considered));
    rank(p, /*with_q=*/false);
    p.considered.resize(m);
    p.phases = 0;
    for (size_t left = m; left > 1; left = (left + 1) / 2) ++p.phases;
    if (m > 1) start_phase(p);
  }

  // p.considered ordered best first by g + logit (+ sigma(q) with_q), ties to the lower index.
  void rank(Play& p, bool with_q) {
    std::vector<double> score(p.legal.size());
    for (int i : p.considered) score[i] = p.g[i] + p.logits[i] + (with_q ? sigma(p, completed_q(p, i)) : 0.0);
    std::stable_sort(p.considered.begin(), p.considered.end(), [&](int a, int b) { return score[a] > score[b]; });
  }

  double completed_q(const Play& p, int i) const { return p.visits[i] > 0 ? p.qsum[i] / p.visits[i] : p.v0; }

  double sigma(const Play& p, double q) const {
    const double most = *std::max_element(p.visits.begin(), p.visits.end());
    return (config_.c_visit + most) * config_.c_scale * q;
  }

  // The phase's walkers: `per` worlds, every considered move in each.
  void start_phase(Play& p) {
    const int left = static_cast<int>(p.considered.size());
    const int per = std::max(1, config_.simulations / (p.phases * left));
    p.walkers.clear();
    p.walkers.reserve(static_cast<size_t>(per) * left);
    for (int j = 0; j < per; ++j) {
      const uint64_t world = p.rng.next_uint64();
      Rng draw(world);
      State y;
      game_.determinize(p.x, p.seat, draw, y);
      for (int i : p.considered) {
        Walker w;
        w.move = i;
        w.y = y;
        w.rng.reseed(world ^ 0x5DEECE66DULL);  // the same dice and draws for every move of this world
        game_.apply(w.y, p.legal[i]);
        p.walkers.push_back(std::move(w));
      }
    }
    for (size_t k = 0; k < p.walkers.size(); ++k) walk(p, p.walkers[k], static_cast<int>(k));
    p.counts.simulations += static_cast<int64_t>(p.walkers.size());
  }

  // Walker w on until it needs the network (a row asked) or is done.
  void walk(Play& p, Walker& w, int k) {
    const int mover = resolve_chance(game_, w.y, w.rng);
    if (mover == kTerminal) {
      w.value = win_share(game_, w.y, p.seat);
      w.done = true;
      return;
    }
    if (w.steps >= kMaxPlayout)
      w.leaf = true;
    else if (config_.leaf == Leaf::kHead)
      w.leaf = mover == p.seat || w.others >= horizon_;
    else  // turn: at the seat's decision after another seat's; end: never before the game's end
      w.leaf = config_.leaf == Leaf::kTurn && mover == p.seat && w.others > 0;
    ask(p, w.y, w.leaf || mover == p.seat ? p.seat : mover, k);
  }

  // The phase's values into the moves' sums; the better half of the moves kept.
  void finish_phase(Play& p) {
    for (const Walker& w : p.walkers) {
      p.visits[w.move] += 1;
      p.qsum[w.move] += w.value;
    }
    p.walkers.clear();
    rank(p, /*with_q=*/true);
    p.considered.resize((p.considered.size() + 1) / 2);
  }

  // The decision's sample (the improved policy) and its move, played.
  void decide(Play& p, int index) {
    const size_t k = p.legal.size(), actions = static_cast<size_t>(game_.num_actions());
    GumbelSamples& e = p.episode;
    const size_t at = static_cast<size_t>(e.rows) * actions;
    e.mask.resize(at + actions, 0);
    e.policy.resize(at + actions, 0.0f);
    e.visits.resize(at + actions, 0.0f);
    e.q.resize(at + actions, 0.0f);
    std::vector<double> z(k);
    double top = -INFINITY;
    for (size_t i = 0; i < k; ++i) {
      z[i] = p.logits[i] + sigma(p, completed_q(p, static_cast<int>(i)));
      top = std::max(top, z[i]);
    }
    double sum = 0.0;
    for (double& v : z) sum += v = std::exp(v - top);
    for (size_t i = 0; i < k; ++i) {
      const size_t a = at + static_cast<size_t>(p.legal[i]);
      e.mask[a] = 1;
      e.policy[a] = static_cast<float>(z[i] / sum);
      e.visits[a] = static_cast<float>(p.visits[i]);
      e.q[a] = static_cast<float>(completed_q(p, static_cast<int>(i)));
    }
    append(e.obs, p.root_obs);
    e.root_value.push_back(static_cast<float>(p.v0));
    e.seat.push_back(p.seat);
    const int move = p.considered.empty() ? 0 : p.considered[0];
    e.action.push_back(p.legal[move]);
    e.game.push_back(index);
    ++e.rows;
    ++p.counts.decisions;
    game_.apply(p.x, p.legal[move]);
    p.last = p.seat;
  }

  // A value-only sample where chance is due: `viewer`'s view, no legal moves, no policy.
  void value_sample(Play& p, int viewer, int index) {
    const size_t actions = static_cast<size_t>(game_.num_actions());
    GumbelSamples& e = p.episode;
    const size_t at = static_cast<size_t>(e.rows) * actions;
    e.mask.resize(at + actions, 0);
    e.policy.resize(at + actions, 0.0f);
    e.visits.resize(at + actions, 0.0f);
    e.q.resize(at + actions, 0.0f);
    p.plain.resize(game_.observation_size());
    game_.observe(p.x, viewer, p.plain.data());
    const float* row = reading_.read(p.plain, p.input);
    e.obs.insert(e.obs.end(), row, row + read_size_);
    e.root_value.push_back(NAN);  // the network was not asked
    e.seat.push_back(viewer);
    e.action.push_back(-1);
    e.game.push_back(index);
    ++e.rows;
    ++p.counts.chance_values;
  }

  const G& game_;
  GumbelConfig config_;
  Reading reading_;
  Pool pool_;
  std::vector<Play> games_;
  int read_size_ = 0, horizon_ = 0;
  GumbelCounts counts_;
};

}  // namespace tablezoo
