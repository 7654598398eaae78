// The batched env: many games of one configuration stepped by one call, in the core.
//
// The EnvPool pattern over the engine contract (core.h): no Python object per game; the
// caller hands numpy buffers once, and every step writes the observation and mask of each
// game's next decision, every seat's reward, the seat to move and the end flags into them.
// Games are independent: each has its own random stream, drawn from (seed, game index)
// alone, so the results do not depend on the thread count or on how the batch is split.
//
// Two faces share it (tablezoo.envs.batched):
// * self-play: every decision of every seat comes back to the caller;
// * one learner: the caller plays one seat of each game (fixed, or drawn each episode);
//   the other seats are bots played inside the core until the learner is to move again.
//
// Finished games reset at once, within the step that ended them (Gymnasium's "same-step"
// autoreset): the step's rewards and flags are the finished game's, its observation the
// new game's first decision.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo {

// ----------------------------------------------------------------------------- a thread pool
// Runs job(begin, end) over a range cut in small contiguous chunks that the calling thread and
// the workers take in turn, each as it is free: a worker that wakes late, or shares its core
// with another process, leaves its chunks to the others instead of holding the call up. Idle
// workers sleep on a condition variable (no polling between calls: the caller's Python work
// between two steps keeps the whole core). Which thread ran a chunk changes nothing: the job
// of each index depends on that index alone.
class Pool {
 public:
  // A thread that cannot be started (no memory for its stack, a limit on threads) stops the
  // workers already started and throws std::runtime_error saying how many ran: the pool is
  // never left half built, and nothing waits on a worker that is not there.
  explicit Pool(int threads) : threads_(threads < 1 ? 1 : threads) {
    workers_.reserve(static_cast<size_t>(threads_));
    try {
      for (int t = 1; t < threads_; ++t) workers_.emplace_back([this] { work(); });
    } catch (const std::exception& e) {
      const size_t started = workers_.size();
      stop();
      throw std::runtime_error("could not start " + std::to_string(threads_) + " threads (" + std::to_string(started + 1) +
                               " ran, the system refused the next: " + e.what() +
                               "); ask for fewer threads");
    }
  }
  ~Pool() { stop(); }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  int threads() const { return threads_; }

  // Run job over [0, n); rethrows the first exception a chunk threw.
  void run(int n, const std::function<void(int, int)>& job) {
    if (threads_ == 1 || n < 2) {
      job(0, n);
      return;
    }
    job_ = &job;
    n_ = n;
    chunk_ = std::max(1, std::min(kMaxChunk, n / (threads_ * kChunksPerThread)));
    const int chunks = (n + chunk_ - 1) / chunk_;
    chunks_.store(chunks, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    uint32_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (++generation_ == 0) ++generation_;  // 0 marks no call under way
      generation = generation_;
      // the generation and the next chunk in one word: a claim is of this call's chunks or fails
      next_.store(static_cast<uint64_t>(generation) << 32, std::memory_order_release);
    }
    wake_.notify_all();
    take(generation);
    // the chunks still running are the workers' last ones: a short wait
    while (done_.load(std::memory_order_acquire) < chunks) std::this_thread::yield();
    next_.store(0, std::memory_order_release);  // a worker still looking finds no call under way
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr int kMaxChunk = 64;         // games per chunk at most
  static constexpr int kChunksPerThread = 4;   // at least this many chunks per thread, where n allows

  // Claim and run chunks of call `generation` until none is left.
  void take(uint32_t generation) {
    for (;;) {
      uint64_t word = next_.load(std::memory_order_acquire);
      int chunk;
      do {
        if (static_cast<uint32_t>(word >> 32) != generation) return;  // a later call's
        chunk = static_cast<int>(word & 0xFFFFFFFFu);
        if (chunk >= chunks_.load(std::memory_order_relaxed)) return;
      } while (!next_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel, std::memory_order_acquire));
      const int begin = chunk * chunk_;
      const int end = std::min(n_, begin + chunk_);
      try {
        (*job_)(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      done_.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  void work() {
    uint32_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      take(seen);
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::function<void(int, int)>* job_ = nullptr;
  int n_ = 0, chunk_ = 1;               // read only by a thread holding one of the call's chunks
  std::atomic<int> chunks_{0};
  uint32_t generation_ = 0;            // the latest call (under mutex_)
  std::atomic<uint64_t> next_{0};      // that call's generation (high half) and next chunk (low half)
  std::atomic<int> done_{0};           // that call's chunks finished
  bool stop_ = false;
  std::exception_ptr error_;
};

// ----------------------------------------------------------------------------- bots in the core

enum class BotKind { kRandom = 0, kHeuristic = 1 };

// A game's native heuristic bot is its nested type Heuristic, with `void reset()` (a new
// episode) and `int act(const G&, const State&, int seat, Rng&)` (a legal action for the seat
// to move, read from what that seat may see). A game without one has NoHeuristic.
template <class G>
struct NoHeuristic {
  static constexpr bool exists = false;
  void reset() {}
  int act(const G&, const typename G::State&, int, Rng&) { throw std::logic_error("no native heuristic bot"); }
};

template <class G, class = void>
struct heuristic_of {
  using type = NoHeuristic<G>;
};
template <class G>
struct heuristic_of<G, std::void_t<typename G::Heuristic>> {
  using type = typename G::Heuristic;
};
template <class G>
using HeuristicOf = typename heuristic_of<G>::type;

// ----------------------------------------------------------------------------- the batch

// The seed of game `index`'s random stream: the same for a game whatever the batch around it.
inline uint64_t game_seed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

struct BatchConfig {
  int num_envs = 1;
  uint64_t seed = 0;
  int num_threads = 1;
  bool padded = false;          // observations in the layout every seat count shares
  bool score_reward = false;    // reward="score": game points as they are scored; else zero-sum at the end
  int max_cycles = 0;           // a seat's decisions before every seat is truncated (0: no cap)
  int learner = -1;             // -1: self-play; 0..n-1: the learner's seat; -2: drawn each episode
  std::vector<int> bots;        // learner face: the bot of each seat (BotKind), the learner's ignored
  bool forfeit = false;         // an illegal action ends that game (illegal_reward) instead of raising
  float illegal_reward = -1.0f;
};

// Where a step writes (numpy arrays the Python face owns; checked there and in the binding).
struct BatchBuffers {
  float* obs = nullptr;          // (N, obs_size)
  int8_t* mask = nullptr;        // (N, num_actions)
  float* rewards = nullptr;      // (N, seats) self-play, (N,) learner
  int32_t* to_move = nullptr;    // (N,) the seat whose decision obs is
  uint8_t* terminated = nullptr; // (N,)
  uint8_t* truncated = nullptr;  // (N,)
  uint8_t* illegal = nullptr;    // (N,) this step's action was illegal (forfeit)
};

template <class G, class Heuristic = HeuristicOf<G>>
class Batch {
 public:
  using State = typename G::State;

  Batch(const G& game, BatchConfig config, std::vector<int> pad_index, int pad_size, int pad_seats_at)
      : game_(game),
        config_(std::move(config)),
        pad_index_(std::move(pad_index)),
        pad_size_(pad_size),
        pad_seats_at_(pad_seats_at),
        pool_(config_.num_threads),
        games_(config_.num_envs) {
    const int n = game_.num_seats();
    for (int i = 0; i < config_.num_envs; ++i) {
      auto& g = games_[i];
      g.rng.reseed(game_seed(config_.seed, i));
      g.decisions.assign(n, 0);
      g.scores.assign(n, 0.0);
      g.bots.resize(n);
      g.legal.reserve(game_.num_actions());
      g.moves.reserve(game_.num_actions());
    }
    plain_.resize(static_cast<size_t>(config_.num_envs) * game_.observation_size());
  }

  int obs_size() const { return config_.padded ? pad_size_ : game_.observation_size(); }
  int num_envs() const { return config_.num_envs; }
  bool self_play() const { return config_.learner == -1; }

  // Start every game anew (seeded streams from the start) and write the first decisions.
  void reset(const BatchBuffers& out) {
    pool_.run(config_.num_envs, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        games_[i].rng.reseed(game_seed(config_.seed, i));
        games_[i].episodes = 0;
        start(i);
        float* reward = reward_row(out, i);
        std::fill(reward, reward + reward_width(), 0.0f);
        play_bots(i, reward);
        out.terminated[i] = out.truncated[i] = 0;
        if (out.illegal) out.illegal[i] = 0;
        write(i, out);
      }
    });
  }

  // Check every game's action before any is applied: the first illegal one (unless games
  // forfeit) is returned as its index, with nothing changed; -1 when all are legal.
  int first_illegal(const int64_t* actions) {
    if (config_.forfeit) return -1;
    for (int i = 0; i < config_.num_envs; ++i)
      if (!legal(i, actions[i])) return i;
    return -1;
  }

  // The legal actions of game i now (for messages).
  const std::vector<int>& legal_actions(int i) const { return games_[i].moves; }
  int mover(int i) const { return game_.to_move(games_[i].s); }

  void step(const int64_t* actions, const BatchBuffers& out) {
    pool_.run(config_.num_envs, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) step_one(i, actions[i], out);
    });
  }

  const State& state(int i) const { return games_[i].s; }
  int learner_of(int i) const { return games_[i].learner; }

 private:
  struct Game {
    State s;
    Rng rng;
    std::vector<int> decisions;   // per seat, this episode
    std::vector<double> scores;   // per seat, last paid (reward="score")
    std::vector<Heuristic> bots;  // per seat: a heuristic bot's memory
    std::vector<int> legal;       // scratch
    std::vector<int> moves;       // the legal moves of the decision pending (written with its mask)
    int learner = 0;
    long long episodes = 0;
  };

  int reward_width() const { return self_play() ? game_.num_seats() : 1; }
  float* reward_row(const BatchBuffers& out, int i) const { return out.rewards + static_cast<size_t>(i) * reward_width(); }

  // Whether `action` is legal in game i: one of the moves write() listed for its decision
  // (the game has not changed since; the caller's copy of the mask is not trusted).
  bool legal(int i, int64_t action) const {
    for (int a : games_[i].moves)
      if (a == action) return true;
    return false;
  }

  // A new episode of game i, resolved to its first decision.
  void start(int i) {
    auto& g = games_[i];
    g.s = initial_;  // a copy into the same state: its lists keep their room, nothing is allocated
    std::fill(g.decisions.begin(), g.decisions.end(), 0);
    std::fill(g.scores.begin(), g.scores.end(), 0.0);
    if (config_.score_reward) g.scores = game_.scores(g.s);
    for (auto& bot : g.bots) bot.reset();
    if (config_.learner == -2)
      g.learner = static_cast<int>(g.rng.below(game_.num_seats()));
    else
      g.learner = config_.learner < 0 ? 0 : config_.learner;
    ++g.episodes;
    advance(g);
  }

  int advance(Game& g) {
    int mover = game_.to_move(g.s);
    while (mover == kChance) {
      game_.apply_chance(g.s, game_.sample_chance(g.s, g.rng));
      mover = game_.to_move(g.s);
    }
    return mover;
  }

  // Apply one decision of seat `mover` and resolve chance; add the rewards it pays to
  // `reward` (every seat's, or the learner's).
  void decide(int i, int mover, int action, float* reward) {
    auto& g = games_[i];
    game_.apply(g.s, action);
    ++g.decisions[mover];
    advance(g);
    pay(i, reward);
  }

  void pay(int i, float* reward) {
    auto& g = games_[i];
    const int n = game_.num_seats();
    const bool over = game_.to_move(g.s) == kTerminal;
    if (config_.score_reward) {
      auto now = game_.scores(g.s);
      for (int seat = 0; seat < n; ++seat) add(reward, seat, g.learner, static_cast<float>(now[seat] - g.scores[seat]));
      g.scores = std::move(now);
    } else if (over) {
      // the winners share +1, the others share -1 (Game.returns)
      const auto winners = game_.winners(g.s);
      const int k = static_cast<int>(winners.size());
      if (k < n)
        for (int seat = 0; seat < n; ++seat) {
          bool won = false;
          for (int w : winners) won |= w == seat;
          add(reward, seat, g.learner, won ? 1.0f / k : -1.0f / (n - k));
        }
    }
  }

  void add(float* reward, int seat, int learner, float value) const {
    if (self_play())
      reward[seat] += value;
    else if (seat == learner)
      reward[0] += value;
  }

  bool truncated(const Game& g, int mover) const {
    return config_.max_cycles > 0 && mover >= 0 && g.decisions[mover] >= config_.max_cycles;
  }

  // Learner face: the bots play until the learner is to move or the game ends.
  void play_bots(int i, float* reward) {
    if (self_play()) return;
    auto& g = games_[i];
    for (int mover = game_.to_move(g.s); mover >= 0 && mover != g.learner; mover = game_.to_move(g.s)) {
      int action;
      if (config_.bots[mover] == static_cast<int>(BotKind::kHeuristic)) {
        action = g.bots[mover].act(game_, g.s, mover, g.rng);
      } else {
        g.legal.clear();
        game_.legal_actions(g.s, g.legal);
        action = g.legal[g.rng.below(g.legal.size())];
      }
      decide(i, mover, action, reward);
    }
  }

  void step_one(int i, int64_t action, const BatchBuffers& out) {
    auto& g = games_[i];
    float* reward = reward_row(out, i);
    std::fill(reward, reward + reward_width(), 0.0f);
    out.terminated[i] = out.truncated[i] = 0;
    if (out.illegal) out.illegal[i] = 0;
    const int mover = game_.to_move(g.s);
    if (!legal(i, action)) {  // only with forfeit (first_illegal has refused it otherwise)
      add(reward, mover, g.learner, config_.illegal_reward);
      if (out.illegal) out.illegal[i] = 1;
      out.terminated[i] = 1;
    } else {
      decide(i, mover, static_cast<int>(action), reward);
      play_bots(i, reward);
      const int next = game_.to_move(g.s);
      if (next == kTerminal)
        out.terminated[i] = 1;
      else if (truncated(g, mover) || (next >= 0 && truncated(g, next)))
        out.truncated[i] = 1;
    }
    if (out.terminated[i] || out.truncated[i]) {
      start(i);
      play_bots(i, reward_row_scratch(i));
    }
    write(i, out);
  }

  // Rewards paid while bots open a new episode belong to no step the learner sees (a bot
  // cannot score before the learner's first decision in these games); they go here.
  float* reward_row_scratch(int) {
    thread_local std::vector<float> scratch;
    scratch.assign(reward_width(), 0.0f);
    return scratch.data();
  }

  // Write game i's next decision: the observation and mask of the seat to move.
  void write(int i, const BatchBuffers& out) {
    auto& g = games_[i];
    const int mover = game_.to_move(g.s);
    out.to_move[i] = mover;
    const int a = game_.num_actions();
    int8_t* mask = out.mask + static_cast<size_t>(i) * a;
    std::fill(mask, mask + a, 0);
    float* obs = out.obs + static_cast<size_t>(i) * obs_size();
    const int seat = mover >= 0 ? mover : g.learner;
    g.moves.clear();
    if (mover >= 0) {
      game_.legal_actions(g.s, g.moves);
      for (int l : g.moves) mask[l] = 1;
    }
    if (!config_.padded) {
      game_.observe(g.s, seat, obs);
    } else {
      float* plain = plain_.data() + static_cast<size_t>(i) * game_.observation_size();
      game_.observe(g.s, seat, plain);
      std::fill(obs, obs + pad_size_, 0.0f);
      for (size_t k = 0; k < pad_index_.size(); ++k) obs[pad_index_[k]] = plain[k];
      obs[pad_seats_at_] = 1.0f;
    }
  }

  const G& game_;
  BatchConfig config_;
  const State initial_ = game_.initial_state();
  std::vector<int> pad_index_;
  int pad_size_, pad_seats_at_;
  Pool pool_;
  std::vector<Game> games_;
  std::vector<float> plain_;  // padded observations: the plain one first, per game
};

}  // namespace tablezoo
