// The network-guided search of tablezoo/bots/search.py in the core: AgentBot's determinised
// information-set Monte Carlo tree search, one simulation after the other (batch=1), no root
// noise, the move visited most.
//
// It reads like its Python twin, function for function (Node.select, search, _simulation,
// AgentBot.act; the network's answers are NetworkEvaluator's: the seat's observation, read
// padded or plain as the network reads it, through the network's one-observation path). One
// simulation, from seat s deciding in state x:
//
//   1. determinise: the game's determinize(x, s, rng, out) draws everything s cannot see;
//   2. descend the tree of s's own decisions, a node per observation of s, by PUCT with the
//      network's priors;
//   3. between two decisions of s, chance is drawn by the engine's odds (sample_chance) and
//      every other seat samples the network's policy from its own observation;
//   4. the end of the game gives s's win share, a new node (or the horizon-th decision of the
//      others) the network's win-share head on s's observation; the value is added to every
//      (node, move) on the way down.
//
// Its randomness is the bot's own Rng (the Python search draws from a numpy Generator), so its
// moves differ from its twin's in the draws; it is the same player, measured head to head
// (tests/bots/test_native_search.py).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "net/net.h"
#include "tablezoo/core.h"

namespace tablezoo {

// Whether game G determinises in the core: a member
//
//   template <class Bits> void determinize(const State& s, int seat, Bits& bits, State& out) const;
//
// that writes into `out` a copy of s with everything `seat` cannot see drawn anew from `bits`
// (the twin of the Python game's determinize, draw for draw from a numpy Generator's bits). A
// game that hides nothing copies s. A game without it has no native search: make_bot seats the
// Python search there.
template <class G, class = void>
struct determinizes : std::false_type {};
template <class G>
struct determinizes<G, std::void_t<decltype(std::declval<const G&>().determinize(
                           std::declval<const typename G::State&>(), 0, std::declval<Rng&>(),
                           std::declval<typename G::State&>()))>> : std::true_type {};

// The part of the game the chance now due belongs to: G::chance_context (search.py _TurnStreams,
// Game.chance_context), 0 for a game without parts.
template <class G, class = void>
struct has_chance_context : std::false_type {};
template <class G>
struct has_chance_context<G, std::void_t<decltype(std::declval<const G&>().chance_context(
                                 std::declval<const typename G::State&>()))>> : std::true_type {};
template <class G>
int chance_context(const G& game, const typename G::State& s) {
  if constexpr (has_chance_context<G>::value)
    return game.chance_context(s);
  else
    return 0;
}

// How a network reads a game's plain observation: padded (the entries placed by the game's
// padding index, the seat count's one-hot entry set, as observe_padded builds it) or as it is.
struct Reading {
  std::vector<int> index;  // where each entry of the plain observation goes
  int size = 0;            // the padded observation's size; 0: the plain observation is read
  int seats_at = -1;       // the one-hot seat count's entry

  // What the network reads of `plain` (observation_size entries), in `out`.
  const float* read(const std::vector<float>& plain, std::vector<float>& out) const {
    if (size == 0) return plain.data();
    out.assign(size, 0.0f);
    for (size_t i = 0; i < plain.size(); ++i) out[index[i]] = plain[i];
    out[seats_at] = 1.0f;
    return out.data();
  }
};

// net.py masked_softmax: the policy over `legal` (in its order) from the full logits, float32.
inline void masked_softmax(const std::vector<float>& logits, const std::vector<int>& legal, std::vector<float>& out) {
  out.resize(legal.size());
  float top = logits[legal[0]];
  for (int a : legal) top = std::max(top, logits[a]);
  float sum = 0.0f;
  for (size_t i = 0; i < legal.size(); ++i) sum += out[i] = std::exp(logits[legal[i]] - top);
  for (float& p : out) p /= sum;
}

// rng.choice(len(p), p=p): the index whose share of the cumulative sum holds a uniform draw.
inline int sample(const std::vector<float>& p, Rng& rng) {
  double total = 0.0;
  for (float q : p) total += q;
  const double u = uniform(rng) * total;
  double cumulative = 0.0;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    cumulative += p[i];
    if (u < cumulative) return static_cast<int>(i);
  }
  return static_cast<int>(p.size()) - 1;
}

// A standard normal draw (Box and Muller's).
inline double normal(Rng& rng) {
  const double radius = std::sqrt(-2.0 * std::log1p(-uniform(rng)));
  return radius * std::cos(6.283185307179586 * uniform(rng));
}

// A Gamma(shape, 1) draw, shape > 0: Marsaglia and Tsang's method, a shape below 1 raised by
// one and scaled by U^(1/shape).
inline double gamma(double shape, Rng& rng) {
  if (shape < 1.0) return gamma(shape + 1.0, rng) * std::pow(uniform(rng), 1.0 / shape);
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x, v;
    do {
      x = normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform(rng);
    if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

// rng.dirichlet(np.full(k, alpha)): k shares from Gamma(alpha) draws (even shares where every
// draw underflows to 0).
inline void dirichlet(double alpha, size_t k, Rng& rng, std::vector<double>& out) {
  out.resize(k);
  double sum = 0.0;
  for (double& x : out) sum += x = gamma(alpha, rng);
  for (double& x : out) x = sum > 0.0 ? x / sum : 1.0 / static_cast<double>(k);
}

// Resolve chance by the engine's odds until a seat is to move or the game is over: the seat, or
// kTerminal.
template <class G>
int resolve_chance(const G& game, typename G::State& x, Rng& rng) {
  int mover = game.to_move(x);
  while (mover == kChance) {
    game.apply_chance(x, game.sample_chance(x, rng));
    mover = game.to_move(x);
  }
  return mover;
}

// net.py win_share: the part of the win seat takes in a finished game.
template <class G>
double win_share(const G& game, const typename G::State& x, int seat) {
  const std::vector<int> winners = game.winners(x);
  for (int w : winners)
    if (w == seat) return 1.0 / static_cast<double>(winners.size());
  return 0.0;
}

// The search tree's index: a node by the searching seat's observation, equal bytes for equal
// keys (the Python search's obs.tobytes()). Open addressing over a 64-bit hash of the bytes,
// each key's copy kept in one flat array: a lookup copies and allocates nothing, and the room
// is kept from one search to the next (a search adds at most one node per simulation).
class ObservationIndex {
 public:
  // Empty, for keys of `size` floats and up to `nodes` entries (room grows past it if needed).
  void clear(int size, int nodes) {
    size_ = static_cast<size_t>(size);
    count_ = 0;
    size_t room = 16;
    while (room < 2 * static_cast<size_t>(nodes)) room *= 2;
    if (slots_.size() < room) slots_.resize(room);
    std::fill(slots_.begin(), slots_.end(), Slot{});
    keys_.clear();
    keys_.reserve(static_cast<size_t>(nodes) * size_);
  }

  // The value of key (size floats), or -1.
  int find(const float* key) const {
    const uint64_t h = hash(key);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.value < 0) return -1;
      if (slot.hash == h && std::memcmp(keys_.data() + slot.at, key, size_ * sizeof(float)) == 0) return slot.value;
    }
  }

  // Enter key (not present yet) with value >= 0.
  void insert(const float* key, int value) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    place(hash(key), keys_.size(), value);
    keys_.insert(keys_.end(), key, key + size_);
    ++count_;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    size_t at = 0;   // where its key starts in keys_
    int value = -1;  // -1: empty
  };

  uint64_t hash(const float* key) const {
    // FNV-1a over the key's 32-bit words, then a final mix
    uint64_t h = 0xCBF29CE484222325ULL;
    for (size_t i = 0; i < size_; ++i) {
      uint32_t word;
      std::memcpy(&word, key + i, sizeof word);
      h = (h ^ word) * 0x100000001B3ULL;
    }
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    return h ^ (h >> 33);
  }

  void place(uint64_t h, size_t at, int value) {
    const size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].value >= 0) i = (i + 1) & mask;
    slots_[i] = Slot{h, at, value};
  }

  void grow() {
    std::vector<Slot> old(2 * slots_.size());
    old.swap(slots_);
    for (const Slot& slot : old)
      if (slot.value >= 0) place(slot.hash, slot.at, slot.value);
  }

  size_t size_ = 0, count_ = 0;
  std::vector<Slot> slots_ = std::vector<Slot>(16);
  std::vector<float> keys_;
};

// Where think() trusts the value head (search.py LEAVES).
enum class Leaf { kHead = 0, kTurn = 1, kEnd = 2 };

// AgentBot's settings of the Gumbel root (search.py think): the moves weighed, how much a
// standard error of a simulated win share weighs against a logit, where the head is trusted,
// and a time budget (0: none).
struct ThinkConfig {
  bool gumbel_root = true;  // false: the PUCT root (search(), the most visited move)
  int considered = 16;
  double confidence = 0.25;
  Leaf leaf = Leaf::kTurn;
  bool others_likeliest = false;  // the others play the network's likeliest move (else a draw from its policy)
  double seconds = 0.0;
  double bias = 0.0;  // the error of a simulated win share no number of simulations averages away
  double fresh = 0.0;  // the share of the simulations the last phase runs, its two moves judged on them alone
  bool paired = false;  // the spread of the values about their world's mean (search.py SPREADS "paired")
  bool chance_turn = false;  // each part of the game draws chance from its own stream (search.py CHANCES "turn")
};

// search.py SETTLED, SPREAD_FLOOR and MAX_PLAYOUT.
constexpr double kSettled = 3.0;
constexpr double kSpreadFloor = 0.05;
constexpr int kMaxPlayout = 10000;

template <class G>
class AgentSearch {
 public:
  using State = typename G::State;
  // An exact evaluator in place of the network (the known-answer tests): the seat's value of a
  // state, its logits written into the vector (num_actions entries).
  using Oracle = std::function<double(const State&, int seat, std::vector<float>& logits)>;

  // search.py Root: the Gumbel root's moves, logits, visits, mean values and choice.
  struct Root {
    std::vector<int> legal;
    std::vector<double> logits, visits, q, score;
    double value0 = 0;
    int choice = 0;
    int64_t simulations = 0;
    bool settled = false;  // a timed search stopped early, its choice settled (search.py Root.settled)
  };

  // search.py Node: one information state of the searching seat.
  struct Node {
    std::vector<int> legal;
    std::vector<float> prior;
    std::vector<double> visits;
    std::vector<double> value;  // summed win shares
    double total = 0;
    double value0 = 0;          // the network's estimate: the Q of a move not tried yet

    Node(std::vector<int> moves, std::vector<float> p, double v0)
        : legal(std::move(moves)), prior(std::move(p)), visits(legal.size(), 0.0), value(legal.size(), 0.0), value0(v0) {}

    // Node.select: the index (into legal) of the move PUCT tries next.
    int select(double c_puct) const {
      const double root = std::sqrt(total + 1);
      int best = 0;
      double top = -INFINITY;
      for (size_t i = 0; i < legal.size(); ++i) {
        const double q = visits[i] > 0 ? value[i] / visits[i] : value0;
        const double u = c_puct * prior[i] * (root / (1.0 + visits[i]));
        if (q + u > top) {
          top = q + u;
          best = static_cast<int>(i);
        }
      }
      return best;
    }
  };

  // `horizon` 0: two rounds of the others, 2 (n - 1), as AgentBot's default.
  AgentSearch(std::shared_ptr<const PolicyValueNet> net, Reading reading, int simulations, double c_puct, int horizon,
              ThinkConfig think = {})
      : net_(std::move(net)), reading_(std::move(reading)), simulations_(simulations), c_puct_(c_puct), horizon_(horizon),
        think_(think) {}

  // The seat's own moves in a simulation after the root's (search.py think's `own`): a bot of the
  // game, given the state, the seat to move and a generator of its own (own_rng_, so the worlds'
  // chance is drawn as without it); empty: the network's likeliest.
  using Own = std::function<int(const G&, const State&, int seat, Rng&)>;

  // A bot's values of the seat's legal moves, in legal_actions' order (search.py think's
  // `advice`): the root's prior is the network's logits plus `heed` times each move's value less
  // the best; empty: the network's logits alone. The bot draws from a generator of its own.
  using Advice = std::function<void(const G&, const State&, int seat, Rng&, std::vector<double>&)>;

  void reset() {}
  void set_oracle(Oracle oracle) { oracle_ = std::move(oracle); }
  void set_own(Own own) { own_ = std::move(own); }
  void set_advice(Advice advice, double heed) {
    advice_ = std::move(advice);
    heed_ = heed;
  }
  // A new seed for the own and advising bots' generators (the search's own is reseeded beside it).
  void reseed_own(uint64_t seed) {
    own_rng_.reseed(seed ^ kOwnSalt);
    advice_rng_.reseed(seed ^ kAdviceSalt);
  }
  const ThinkConfig& think_config() const { return think_; }

  // AgentBot.act: the Gumbel root's choice, or (the PUCT root) the move visited most, ties to
  // the higher prior.
  int act(const G& game, const State& s, int seat, Rng& rng) {
    if (think_.gumbel_root) {
      const Root& root = think(game, s, seat, rng);
      return root.legal[root.choice];
    }
    const Node& root = search(game, s, seat, rng);
    int best = 0;
    for (size_t i = 1; i < root.legal.size(); ++i)
      if (root.visits[i] > root.visits[best] || (root.visits[i] == root.visits[best] && root.prior[i] > root.prior[best]))
        best = static_cast<int>(i);
    return root.legal[best];
  }

  // search.py think: a Gumbel root with sequential halving over simulations_ simulations (at
  // most think_.seconds, where it is set), every considered move simulated in the same worlds.
  const Root& think(const G& game, const State& s, int seat, Rng& rng, double gumbel = 0.0) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    Root& r = root_;
    r = Root{};
    game.legal_actions(s, r.legal);
    const size_t k = r.legal.size();
    const int horizon = horizon_ ? horizon_ : 2 * (game.num_seats() - 1);
    if (k == 1) {  // nothing to weigh
      r.logits.assign(1, 0.0);
      r.visits.assign(1, 0.0);
      r.q.assign(1, 0.0);
      r.score.assign(1, 0.0);
      return r;
    }
    game.determinize(s, seat, rng, first_);
    r.value0 = evaluate_at(game, first_, seat);
    r.logits.resize(k);
    double top = -INFINITY;
    for (size_t i = 0; i < k; ++i) top = std::max(top, static_cast<double>(logits_[r.legal[i]]));
    for (size_t i = 0; i < k; ++i) r.logits[i] = static_cast<double>(logits_[r.legal[i]]) - top;
    if (advice_) advise(game, s, seat, r.logits);
    noise_.assign(k, 0.0);
    if (gumbel > 0.0)
      for (double& g : noise_) g = -gumbel * std::log(-std::log1p(-uniform(rng)));
    r.visits.assign(k, 0.0);
    totals_.assign(k, 0.0);
    squares_.assign(k, 0.0);
    base_visits_.assign(k, 0.0);  // what the scores read: every world, less those before the last phase
    base_totals_.assign(k, 0.0);  // with `fresh`
    within_ = 0.0;                // paired: the values' squared deviations from their world's mean...
    degrees_ = 0;                 // ...and their count
    const int m = static_cast<int>(std::min<int64_t>({think_.considered, static_cast<int64_t>(k),
                                                      std::max<int64_t>(1, simulations_ / 2)}));
    candidates_.resize(k);
    std::iota(candidates_.begin(), candidates_.end(), 0);
    std::stable_sort(candidates_.begin(), candidates_.end(),
                     [&](int a, int b) { return noise_[a] + r.logits[a] > noise_[b] + r.logits[b]; });
    candidates_.resize(static_cast<size_t>(m));
    const int phases = m > 1 ? std::max(1, static_cast<int>(std::ceil(std::log2(m)))) : 0;
    int64_t spent = 0, budget = simulations_;
    bool stopped = false;
    // a phase's worlds: its equal share of the budget left when it began, or with `fresh` the last
    // phase the rest of the budget and each other phase its share of the rest but `fresh`
    auto share = [&](int phase, int64_t before, int64_t weighed) {
      if (think_.fresh > 0 && phases > 1 && phase < phases - 1) {
        const int64_t screening = budget - static_cast<int64_t>(std::nearbyint(think_.fresh * static_cast<double>(budget)));
        return std::max<int64_t>(1, (screening - before) / ((phases - 1 - phase) * weighed));
      }
      return std::max<int64_t>(1, (budget - before) / ((phases - phase) * weighed));
    };
    for (int phase = 0; phase < phases && !stopped; ++phase) {
      const int64_t weighed = static_cast<int64_t>(candidates_.size());
      const int64_t before = spent;
      if (think_.fresh > 0 && phase == phases - 1 && phase > 0) {  // the last phase judges on its own worlds
        for (int i : candidates_) {
          base_visits_[i] = r.visits[i];
          base_totals_[i] = totals_[i];
        }
      }
      int64_t per = share(phase, before, weighed);
      for (int64_t world = 0; world < per; ++world) {
        if (think_.seconds > 0 && spent &&
            std::chrono::duration<double>(Clock::now() - start).count() > think_.seconds) {
          stopped = true;
          break;
        }
        if (spent == 0)
          y_ = first_;
        else
          game.determinize(s, seat, rng, y_);
        const uint64_t stream = rng.next_uint64();
        world_values_.clear();
        for (int i : candidates_) {  // every move on the same hidden cards and the same dice
          x_ = y_;
          Rng chance(stream);
          const double v = lookahead(game, seat, r.legal[i], horizon, chance);
          world_values_.push_back(v);
          r.visits[i] += 1;
          totals_[i] += v;
          squares_[i] += v * v;
          ++spent;
        }
        {  // the values' deviations from their world's mean (spread=paired, and pooled's start)
          double mean = 0.0;
          for (double v : world_values_) mean += v;
          mean /= static_cast<double>(world_values_.size());
          for (double v : world_values_) within_ += (v - mean) * (v - mean);
          degrees_ += static_cast<int64_t>(world_values_.size()) - 1;
        }
        if (think_.seconds > 0) {
          // timed after every world: the budget is what is spent and what the time left allows at
          // the rate measured so far, this phase's worlds its share of it planned anew
          const double elapsed = std::max(std::chrono::duration<double>(Clock::now() - start).count(), 1e-9);
          const double affordable = static_cast<double>(spent) / elapsed * std::max(think_.seconds - elapsed, 0.0);
          budget = std::min<int64_t>(simulations_, spent + static_cast<int64_t>(std::min(affordable, 1e15)));
          per = share(phase, before, weighed);
          // stop where more would come but would not change the choice (settled): a move gets at most
          // what is left of the budget, and a world each phase to come
          const bool more = world + 1 < per || phase < phases - 1;
          if (more && settled(r, std::max<int64_t>(0, budget - spent) + phases - phase)) {
            r.settled = stopped = true;
            break;
          }
        }
      }
      if (stopped) break;
      scores(r);
      std::stable_sort(candidates_.begin(), candidates_.end(), [&](int a, int b) { return r.score[a] > r.score[b]; });
      candidates_.resize((candidates_.size() + 1) / 2);
    }
    scores(r);
    int choice = candidates_[0];
    for (int i : candidates_)
      if (r.score[i] > r.score[choice]) choice = i;
    std::vector<double> final_score(k, -INFINITY);
    for (int i : candidates_) final_score[i] = r.score[i];
    r.score.swap(final_score);
    for (size_t i = 0; i < k; ++i) r.visits[i] -= base_visits_[i];  // as judged (r.q is already)
    r.choice = choice;
    r.simulations = spent;
    return r;
  }

 private:
  // search.py think's weight: a unit of q over its standard error, sqrt(spread^2 / n + bias^2) (0 for
  // n = 0; sqrt(n) / spread, as before bias, where bias is 0).
  double weight(double n, double spread) const {
    if (think_.bias == 0.0) return std::sqrt(n) / spread;
    return n > 0 ? 1.0 / std::sqrt(spread * spread / n + think_.bias * think_.bias) : 0.0;
  }

  // think's scores: gumbel + logit + confidence * q * weight(visits, spread), q and visits as judged
  // (less those before the last phase with `fresh`), spread the standard deviation of every simulated
  // value, pooled or paired (search.py SPREADS; at least kSpreadFloor); r.q filled too.
  double scores(Root& r) {
    const size_t k = r.legal.size();
    // pooled: each move's squared deviations from its mean over its degrees of freedom, summed over
    // the moves (a move of one world has none); before any move has two worlds, and when paired,
    // the values' deviations from their world's mean
    double deviations = 0.0, freedom = 0.0;
    for (size_t i = 0; i < k; ++i)
      if (r.visits[i] > 1) {
        deviations += squares_[i] - totals_[i] * totals_[i] / r.visits[i];
        freedom += r.visits[i] - 1;
      }
    double variance = -1.0;
    if (!think_.paired && freedom > 0)
      variance = deviations / freedom;
    else if (degrees_)
      variance = within_ / static_cast<double>(degrees_);
    const double spread = variance < 0 ? kSpreadFloor : std::max(std::sqrt(std::max(variance, 0.0)), kSpreadFloor);
    r.q.resize(k);
    r.score.resize(k);
    for (size_t i = 0; i < k; ++i) {
      const double n = r.visits[i] - base_visits_[i];
      r.q[i] = n > 0 ? (totals_[i] - base_totals_[i]) / n : r.value0;
      r.score[i] = noise_[i] + r.logits[i] + think_.confidence * r.q[i] * weight(n, spread);
    }
    return spread;
  }

  // search.py think's settled: the leader's lead over each other move still weighed (which has
  // had as many worlds), cut by kSettled standard errors of the difference of their means, still
  // ranks it first with `left` more simulations each (where the cut lead is negative, the most it
  // may weigh).
  bool settled(Root& r, int64_t left) {
    const double spread = scores(r);
    int lead = candidates_[0];
    for (int i : candidates_)
      if (r.score[i] > r.score[lead]) lead = i;
    for (int i : candidates_) {
      if (i == lead) continue;
      const double n = r.visits[i] - base_visits_[i];
      const double kept = r.q[lead] - r.q[i] - kSettled * spread * std::sqrt(2.0 / n);
      const double reach = n + (kept < 0 ? static_cast<double>(left) : 0.0);
      const double prior = noise_[lead] + r.logits[lead] - noise_[i] - r.logits[i];
      if (prior + think_.confidence * kept * weight(reach, spread) <= 0) return false;
    }
    return true;
  }

  // search.py _lookahead: move played in x_, then chance and the others (sampled from the
  // network's policy, or its likeliest move) until the seat is to move again, and its value where the leaf trusts the
  // head (the seat's own moves within its turn played by the network's likeliest, for kTurn, or
  // by own_ where it is set).
  // With chance_turn each part of the game (chance_context, read before every chance outcome and
  // decision) draws from its own generator, seeded by the world's stream and the parts begun since
  // the root (search.py _TurnStreams); the others' sampled moves draw from it too.
  double lookahead(const G& game, int seat, int move, int horizon, Rng& world) {
    State& x = x_;
    const bool by_part = think_.chance_turn;
    const uint64_t base = by_part ? world.next_uint64() : 0;
    int context = by_part ? chance_context(game, x) : 0;
    uint64_t parts = 0;
    Rng part(by_part ? part_seed(base, 0) : 0);
    Rng& rng = by_part ? part : world;
    auto follow = [&] {
      if (!by_part) return;
      const int now = chance_context(game, x);
      if (now != context) {
        context = now;
        part.reseed(part_seed(base, ++parts));
      }
    };
    game.apply(x, move);
    int others = 0;
    const int limit = think_.leaf == Leaf::kHead ? horizon : kMaxPlayout;
    for (int step = 0; step < kMaxPlayout; ++step) {
      follow();
      int mover = game.to_move(x);
      while (mover == kChance) {
        game.apply_chance(x, game.sample_chance(x, rng));
        follow();
        mover = game.to_move(x);
      }
      if (mover == kTerminal) return win_share(game, x, seat);
      moves_.clear();
      game.legal_actions(x, moves_);
      if (mover != seat && others < limit) {
        evaluate_at(game, x, mover, &moves_);
        if (think_.others_likeliest) {
          game.apply(x, likeliest());
        } else {
          masked_softmax(logits_, moves_, policy_);
          game.apply(x, moves_[sample(policy_, rng)]);
        }
        ++others;
        continue;
      }
      if (mover != seat || think_.leaf == Leaf::kHead || (think_.leaf == Leaf::kTurn && others))
        return evaluate_at(game, x, seat, &kValueOnly);  // a leaf: its value, no logits
      if (own_) {
        game.apply(x, own_(game, x, seat, own_rng_));
        continue;
      }
      evaluate_at(game, x, seat, &moves_);
      game.apply(x, likeliest());
    }
    return evaluate_at(game, x, seat, &kValueOnly);
  }

  // The seed of part `n` of a world whose stream drew `base` (chance_turn).
  static uint64_t part_seed(uint64_t base, uint64_t n) { return base ^ (0x9E3779B97F4A7C15ULL * (n + 1)); }

  // The legal move of moves_ with the highest logit in logits_ (the first of equals).
  int likeliest() const {
    int best = moves_[0];
    for (int a : moves_)
      if (logits_[a] > logits_[best]) best = a;
    return best;
  }

  // The seat's value of x and its logits (into logits_): the oracle's, or the network's on the
  // seat's observation. `only`: the moves whose logits will be read (the legal ones; none at a
  // leaf, where the value alone is read). The network skips the rest where the logits read come
  // out exactly as the whole pass computes them: with none asked, and with an ActionHead (6
  // nimmt!'s), which scores each action on its own. A dense policy layer is computed whole (its
  // `only` path sums in another order). By default every logit is computed.
  double evaluate_at(const G& game, const State& x, int seat, const std::vector<int>* only = nullptr) {
    if (oracle_) {
      logits_.assign(game.num_actions(), 0.0f);
      return oracle_(x, seat, logits_);
    }
    observe(game, x, seat);
    return evaluate(only && (only->empty() || net_->has_action_head()) ? only : nullptr);
  }

 public:
  // search(): run the simulations from seat's decision in s; the root node. The root is
  // evaluated on the first simulation's determinisation (with the seat's observation); a root
  // with one legal move is not searched. `noise`: the weight of Dirichlet noise of concentration
  // `alpha` mixed into the root's priors (expert iteration's self-play; 0 at a table).
  const Node& search(const G& game, const State& s, int seat, Rng& rng, double noise = 0.0, double alpha = 0.3) {
    nodes_.clear();
    tree_.clear(game.observation_size(), simulations_ + 1);
    std::vector<int> legal;
    game.legal_actions(s, legal);
    if (legal.size() == 1) {
      nodes_.emplace_back(legal, std::vector<float>{1.0f}, 0.0);
      nodes_[0].visits[0] = nodes_[0].total = simulations_;
      return nodes_[0];
    }
    const int horizon = horizon_ ? horizon_ : 2 * (game.num_seats() - 1);
    observe(game, s, seat);
    game.determinize(s, seat, rng, first_);  // the first simulation's: the root's priors are asked on it
    const double value = evaluate();
    std::vector<float> prior;
    masked_softmax(logits_, legal, prior);
    if (noise > 0.0) {
      dirichlet(alpha, legal.size(), rng, spread_);
      for (size_t i = 0; i < prior.size(); ++i)
        prior[i] = static_cast<float>((1.0 - noise) * prior[i] + noise * spread_[i]);
    }
    nodes_.emplace_back(std::move(legal), std::move(prior), value);
    tree_.insert(obs_.data(), 0);
    for (int started = 0; started < simulations_; ++started) {
      if (started == 0)
        x_ = first_;
      else
        game.determinize(s, seat, rng, x_);
      simulation(game, seat, horizon, rng);
    }
    return nodes_[0];
  }

 private:
  // _simulation: one simulation on the determinised state x_ (see the top of this file).
  void simulation(const G& game, int seat, int horizon, Rng& rng) {
    State& x = x_;
    int node = 0;
    path_.clear();
    double v;
    while (true) {
      Node& n = nodes_[node];
      const int i = n.select(c_puct_);
      n.visits[i] += 1;
      n.total += 1;
      path_.emplace_back(node, i);
      game.apply(x, n.legal[i]);
      int others = 0;
      int mover = resolve_chance(game, x, rng);
      while (mover != kTerminal && mover != seat && others < horizon) {
        moves_.clear();
        game.legal_actions(x, moves_);
        observe(game, x, mover);
        evaluate();
        masked_softmax(logits_, moves_, policy_);
        game.apply(x, moves_[sample(policy_, rng)]);
        ++others;
        mover = resolve_chance(game, x, rng);
      }
      if (mover == kTerminal) {
        v = win_share(game, x, seat);
        break;
      }
      observe(game, x, seat);
      if (mover != seat) {
        v = evaluate();
        break;
      }
      moves_.clear();
      game.legal_actions(x, moves_);
      const int found = tree_.find(obs_.data());
      if (found < 0 || nodes_[found].legal != moves_) {
        // a new information state (or, where an observation leaves out something that changes
        // the legal moves, another state behind the same one: valued, not entered)
        v = evaluate();
        if (found < 0) {
          std::vector<float> prior;
          masked_softmax(logits_, moves_, prior);
          tree_.insert(obs_.data(), static_cast<int>(nodes_.size()));
          nodes_.emplace_back(moves_, std::move(prior), v);
        }
        break;
      }
      node = found;
    }
    for (const auto& [n, i] : path_) nodes_[n].value[i] += v;
  }

  // The advising bot's values of the seat's moves in s added to the root's logits, heed_ a unit
  // of value less the best, the logits then shifted to a top of 0 (search.py think).
  void advise(const G& game, const State& s, int seat, std::vector<double>& logits) {
    advice_(game, s, seat, advice_rng_, advised_);
    if (advised_.size() != logits.size())
      throw std::logic_error("the advising bot valued " + std::to_string(advised_.size()) + " moves, not the " +
                             std::to_string(logits.size()) + " legal ones");
    double best = -INFINITY;
    for (double v : advised_) {
      if (!std::isfinite(v)) throw std::logic_error("the advising bot's values must be finite");
      best = std::max(best, v);
    }
    double top = -INFINITY;
    for (size_t i = 0; i < logits.size(); ++i) top = std::max(top, logits[i] += heed_ * (advised_[i] - best));
    for (double& l : logits) l -= top;
  }

  // seat's observation of x, into obs_.
  void observe(const G& game, const State& x, int seat) {
    obs_.resize(game.observation_size());
    game.observe(x, seat, obs_.data());
  }

  // NetworkEvaluator on one request: the network's logits (into logits_) and win share of obs_
  // (the observation of the seat asked about, observe's).
  double evaluate(const std::vector<int>* only = nullptr) {
    logits_.resize(net_->num_actions());
    return net_->evaluate(reading_.read(obs_, input_), logits_.data(), work_, only);
  }

  inline static const std::vector<int> kValueOnly{};  // evaluate_at's `only` for a leaf: no logits

  std::shared_ptr<const PolicyValueNet> net_;
  Reading reading_;
  int simulations_;
  double c_puct_;
  int horizon_;
  ThinkConfig think_;
  Oracle oracle_;
  static constexpr uint64_t kOwnSalt = 0x6F776EULL;  // the own bot's seed, apart from the search's
  Own own_;
  Rng own_rng_;
  static constexpr uint64_t kAdviceSalt = 0x616476696365ULL;  // the advising bot's seed, apart from both
  Advice advice_;
  double heed_ = 0.0;
  Rng advice_rng_;
  std::vector<double> advised_;
  Root root_;
  std::vector<double> noise_, totals_, squares_, base_visits_, base_totals_, world_values_;
  double within_ = 0.0;
  int64_t degrees_ = 0;
  std::vector<int> candidates_;
  State y_;                                    // think's world: every considered move starts from it
  std::vector<Node> nodes_;                    // the tree: nodes_[0] is the root...
  ObservationIndex tree_;                      // ...each one's index by the seat's observation
  std::vector<std::pair<int, int>> path_;      // (node, move index) of this simulation
  State first_, x_;                            // the first determinisation, and the one played on
  std::vector<int> moves_;
  std::vector<float> obs_, input_, logits_, policy_;
  std::vector<double> spread_;                 // the root's Dirichlet noise
  PolicyValueNet::Work work_;
};

}  // namespace tablezoo
