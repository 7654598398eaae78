// The native core's own tests, with no Python: for every game and configuration, random games
// with an invariant check after every step, round trips of states, and the refusals of bad
// configurations and states. `make native-test` builds and runs it (and `make sanitize`, with
// AddressSanitizer and UndefinedBehaviorSanitizer). The last line is `N passed, M failed`.
//
//   test_core [--games N] [--seed S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.h"
#include "search/gumbel.h"
#include "fields.h"
#include "games.h"

using namespace tablezoo;
using namespace tablezoo::testing;

namespace {

int passed = 0, failed = 0;

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(bool ok, const std::string& what) {
  if (!ok) throw Failure(what);
}

// Whether body refuses: throws std::invalid_argument.
template <class F>
bool throws(F&& body) {
  try {
    body();
  } catch (const std::invalid_argument&) {
    return true;
  }
  return false;
}

// One test case: a name and a body that throws on failure.
void run(const std::string& name, const std::function<void()>& body) {
  try {
    body();
    ++passed;
  } catch (const std::exception& e) {
    ++failed;
    std::printf("FAILED %s: %s\n", name.c_str(), e.what());
  }
}

template <class G>
void check_state(const G& game, const typename G::State& s, const std::string& where) {
  using State = typename G::State;
  try {
    game.validate(s);
  } catch (const BadState& e) {
    throw Failure(where + ": validate refuses a state the game reached: " + e.what());
  }
  const int n = game.num_seats(), mover = game.to_move(s);
  check(mover == kChance || mover == kTerminal || (mover >= 0 && mover < n), where + ": to_move out of range");
  if (mover >= 0) {
    std::vector<int> legal;
    game.legal_actions(s, legal);
    check(!legal.empty(), where + ": a seat to move has no legal action");
    for (size_t i = 0; i < legal.size(); ++i) {
      check(legal[i] >= 0 && legal[i] < game.num_actions(), where + ": a legal action out of range");
      check(i == 0 || legal[i - 1] < legal[i], where + ": legal actions not ascending");
    }
  }
  // observe writes exactly observation_size finite values
  const int size = game.observation_size();
  check(size > 0, where + ": observation size is not positive");
  constexpr int kGuard = 16;
  constexpr float kSentinel = -12345.5f;
  std::vector<float> obs(static_cast<size_t>(size) + kGuard);
  for (int seat = 0; seat < n; ++seat) {
    std::fill(obs.begin(), obs.end(), kSentinel);
    game.observe(s, seat, obs.data());
    for (int i = 0; i < size; ++i) check(std::isfinite(obs[i]), where + ": an observation entry is not finite");
    for (int i = size; i < size + kGuard; ++i) check(obs[i] == kSentinel, where + ": observe wrote past its size");
  }
  // copies and round trips
  const State copy = s;
  check(same(copy, s), where + ": a copy differs from the state");
  const Tape tape = tape_of(s);
  State back{};
  TapeReader in{tape};
  read(back, in);
  check(in.done(), where + ": the tape was not read to its end");
  check(same(back, s), where + ": the state read back from its fields differs");
  ByteWriter bytes;
  encode(s, bytes);
  Bytes from{bytes.out.data(), bytes.out.size()};
  State decoded{};
  decode(decoded, from);
  check(from.at == bytes.out.size(), where + ": the bytes were not read to their end");
  State plain = s;
  clear_texts(plain);
  check(same(decoded, plain), where + ": the state decoded from its bytes differs");
  game.validate(decoded);
  if (mover == kTerminal) {
    const auto scores = game.scores(s);
    check(static_cast<int>(scores.size()) == n, where + ": scores has not one entry per seat");
    for (double x : scores) check(std::isfinite(x), where + ": a score is not finite");
    const auto winners = game.winners(s);
    check(!winners.empty(), where + ": nobody wins");
    for (size_t i = 0; i < winners.size(); ++i)
      check(winners[i] >= 0 && winners[i] < n && (i == 0 || winners[i - 1] < winners[i]),
            where + ": winners out of range or not ascending");
  }
}

// Every port's move at a decision is legal.
template <class G>
void check_ports(const G& game, const typename G::State& s, Rng& rng, const std::string& where) {
  const int mover = game.to_move(s);
  if (mover < 0) return;
  std::vector<int> legal;
  game.legal_actions(s, legal);
  for_each_port<G>([&](auto& port) {
    const int a = port.act(game, s, mover, rng);
    check(std::find(legal.begin(), legal.end(), a) != legal.end(), where + ": a bot's move is not legal");
  });
}

// Play `games` random games of one configuration, every step checked.
template <class G>
void random_games(const Config& config, int games, uint64_t seed, bool ports) {
  const G game(config.seats, config.options);
  Rng rng(seed);
  for (int g = 0; g < games; ++g) {
    auto s = game.initial_state();
    const std::string name = std::string(Spec<G>::name) + " " + config.text() + " game " + std::to_string(g);
    int step = 0;
    check_state(game, s, name + " start");
    for (int mover = game.to_move(s); mover != kTerminal; mover = game.to_move(s), ++step) {
      check(step < 100000, name + ": no end after 100000 steps");
      const std::string where = name + " step " + std::to_string(step);
      if (mover == kChance) {
        if (step % 13 == 0) {  // the listed outcomes (where the game lists them) add up to 1, each checks
          try {
            double total = 0;
            for (const auto& [outcome, p] : game.chance_outcomes(s)) {
              game.check_outcome(s, outcome);
              total += p;
            }
            check(std::fabs(total - 1.0) < 1e-9, where + ": the chance outcomes do not add up to 1");
          } catch (const NotEnumerable&) {
          }
        }
        const auto outcome = game.sample_chance(s, rng);
        try {
          game.check_outcome(s, outcome);
        } catch (const BadOutcome& e) {
          throw Failure(where + ": a sampled outcome is refused: " + e.what());
        }
        game.apply_chance(s, outcome);
      } else {
        if (ports && step % 5 == 0) check_ports(game, s, rng, where);
        std::vector<int> legal;
        game.legal_actions(s, legal);
        game.apply(s, legal[rng.below(legal.size())]);
      }
      check_state(game, s, where);
    }
  }
}

// A state changed in one number of its fields (a hostile state): validate refuses it, or
// everything the engine does with it stays in bounds (the sanitizers watch).
template <class G>
void mutated_states(const Config& config, int games, uint64_t seed) {
  const G game(config.seats, config.options);
  Rng rng(seed);
  int accepted = 0, refused = 0;
  for (int g = 0; g < games; ++g) {
    auto s = game.initial_state();
    for (int mover = game.to_move(s), step = 0; mover != kTerminal; mover = game.to_move(s), ++step) {
      Tape tape = tape_of(s);
      if (!tape.numbers.empty()) {
        auto& x = tape.numbers[rng.below(tape.numbers.size())];
        const int64_t deltas[] = {-1, 1, -2, 2, 10, -10, 100};
        x += deltas[rng.below(7)];
        typename G::State bad{};
        TapeReader in{tape};
        bool read_ok = true;
        try {
          read(bad, in);
        } catch (const std::runtime_error&) {
          read_ok = false;
        }
        bool valid = false;
        if (read_ok) {
          try {
            game.validate(bad);
            valid = true;
          } catch (const BadState&) {
          }
        }
        if (valid) {
          ++accepted;
          check_state(game, bad, std::string(Spec<G>::name) + " " + config.text() + " mutated state " + describe(bad));
        } else {
          ++refused;
        }
      }
      if (mover == kChance) {
        game.apply_chance(s, game.sample_chance(s, rng));
      } else {
        std::vector<int> legal;
        game.legal_actions(s, legal);
        game.apply(s, legal[rng.below(legal.size())]);
      }
    }
  }
  check(refused > 0, "no mutated state was refused");
  (void)accepted;
}

template <class G>
void refusals() {
  const std::string title = Spec<G>::name;
  for (int n : {Spec<G>::min_seats - 1, Spec<G>::max_seats + 1, 0, -1, 200000000, -2147483647 - 1})
    run(title + " refuses " + std::to_string(n) + " seats", [&] {
      try {
        G game(n, {});
      } catch (const BadConfig& e) {
        const std::string range =
            " is for " + std::to_string(Spec<G>::min_seats) + " to " + std::to_string(Spec<G>::max_seats) + " players";
        check(std::string(e.what()).find(range) != std::string::npos, std::string("the message: ") + e.what());
        return;
      }
      throw Failure("built a game of " + std::to_string(n) + " seats");
    });
  run(title + " refuses an unknown option", [&] {
    try {
      G game(Spec<G>::min_seats, {{"bogus", true}});
    } catch (const BadConfig& e) {
      check(std::string(e.what()).find("has no option 'bogus'; its options are: ") != std::string::npos,
            std::string("the message: ") + e.what());
      return;
    }
    throw Failure("built a game with the option 'bogus'");
  });
}

void heckmeck_dice() {
  using namespace heckmeck;
  const Heckmeck game(2, {{"quick", false}});
  auto refused = [&](State s, const char* what) {
    run(std::string("heckmeck refuses ") + what, [&] {
      try {
        game.validate(s);
      } catch (const BadState&) {
        return;
      }
      throw Failure("validate accepted it");
    });
  };
  State s = game.initial_state();
  s.phase = kKeeping;
  refused(s, "phase keep with an empty roll");
  s.roll = {1, 1, 1, 1, 1, 1};
  refused(s, "a roll of 6 dice with 8 left");
  s.roll = {0, 0, 0, 0, 0, 8};
  s.kept = {0, 0, 0, 0, 0, 0};
  run("heckmeck accepts a roll of the dice left", [&] { game.validate(s); });
  State k = s;
  k.kept = {0, 0, 0, 0, 0, 2};
  k.left = 6;
  k.roll = {0, 0, 0, 0, 0, 6};
  k.total = 10;
  refused(k, "a roll of faces all kept");
  State t = game.initial_state();
  t.total = 5;
  refused(t, "a sum the kept dice do not make");
  State c = game.initial_state();
  c.phase = kClaiming;
  c.kept = {8, 0, 0, 0, 0, 0};
  c.left = 0;
  c.total = 8;
  refused(c, "a claim with no tile to claim");
  State d = game.initial_state();
  d.grill.pop_back();
  refused(d, "a tile missing");
}

// A bot that plays a random legal move (an opponent in search self-play's tests).
template <class G>
struct RandomBot {
  int act(const G& game, const typename G::State& s, int, Rng& rng) {
    std::vector<int> legal;
    game.legal_actions(s, legal);
    return legal[rng.below(legal.size())];
  }
  void reset() {}
};

// Search self-play (search/gumbel.h) answered by a stand-in network: random logits and win shares, at
// every leaf setting and model of the others. The loop must keep every game legal, make samples that
// follow their definition, and refuse answers that are not numbers it can use. Game 0 has a random opponent: its samples are all of the seat
// searched, and the loop refuses opponents it cannot seat.
template <class G>
void gumbel_selfplay(const Config& config, uint64_t seed) {
  const G game(config.seats, config.options);
  GumbelConfig settings;
  settings.num_games = 3;
  settings.seed = seed;
  settings.num_threads = 2;
  settings.simulations = 8;
  settings.considered = 4;
  settings.max_decisions = 300;
  settings.opponent_games = 1;
  // each configuration its own leaf and model of the others; games played out are cut sooner (every
  // simulation of theirs plays to the end, a wave a decision)
  settings.leaf = static_cast<Leaf>(seed % 3);
  settings.others_likeliest = seed / 3 % 2 == 1;
  if (settings.leaf == Leaf::kEnd) settings.max_decisions = 20;
  const OpponentFactory<G> random_bot = [] { return std::make_unique<BotOpponent<G, RandomBot<G>>>(); };
  for (int wrong : {-1, 4}) {
    GumbelConfig bad = settings;
    bad.opponent_games = wrong;
    check(throws([&] { GumbelSelfPlay<G>(game, bad, Reading{}, random_bot); }), "opponent_games out of range");
  }
  check(throws([&] { GumbelSelfPlay<G>(game, settings, Reading{}); }), "opponent games without an opponent");
  GumbelSelfPlay<G> loop(game, settings, Reading{}, random_bot);
  loop.reset();
  check(loop.searched(1) == -1 && loop.searched(0) >= 0 && loop.searched(0) < game.num_seats(),
        "the seat searched: one seat in a game with an opponent, -1 elsewhere");
  Rng rng(seed);
  const int actions = game.num_actions();
  std::vector<float> rows, logits, values;
  int64_t samples = 0;
  for (int wave = 0; wave < 400000 && loop.counts().episodes + loop.counts().truncated < 2; ++wave) {
    const int n = loop.pending();
    check(n >= 1, "every game waits on the network");
    rows.resize(static_cast<size_t>(n) * loop.read_size());
    loop.requests(rows.data());
    logits.resize(static_cast<size_t>(n) * actions);
    values.resize(n);
    for (float& x : logits) x = static_cast<float>(4.0 * uniform(rng) - 2.0);
    for (float& v : values) v = static_cast<float>(uniform(rng));
    if (wave % 7 == 3) {  // extreme numbers a network may give: the largest floats, the smallest, 0 and 1
      const float extremes[] = {3.4e38f, -3.4e38f, 1e-38f, -1e30f, 0.0f};
      for (float& x : logits) x = extremes[rng.below(5)];
      for (float& v : values) v = rng.below(2) ? 0.0f : 1.0f;
    }
    check(loop.check(logits.data(), values.data()).empty(), "an answer of numbers is refused");
    if (wave % 50 == 0) {
      // every row is read for its logits, its win share or both: one of them is refused
      std::vector<float> nan_logits(logits.size(), NAN), twos(values.size(), 2.0f);
      check(!loop.check(nan_logits.data(), twos.data()).empty(), "NaN logits and win shares of 2 are accepted");
    }
    const int searched = loop.searched(0);
    loop.answer(logits.data(), values.data());
    for (int i = 0; i < loop.num_games(); ++i) check_state(game, loop.state(i), "a game of the loop");
    const GumbelSamples s = loop.take();
    for (int r = 0; r < s.rows; ++r) {
      check(s.game[r] != 0 || s.seat[r] == searched, "a sample of a seat the opponent played");
      double total = 0.0;
      int legal = 0;
      for (int a = 0; a < actions; ++a) {
        const size_t at = static_cast<size_t>(r) * actions + a;
        total += s.policy[at];
        legal += s.mask[at];
        check(s.mask[at] || s.policy[at] == 0.0f, "policy off the legal moves");
      }
      check(s.value[r] >= 0.0f && s.value[r] <= 1.0f, "a win share outside [0, 1]");
      if (s.action[r] < 0) {  // a value-only sample where chance was due
        check(legal == 0 && total == 0.0 && std::isnan(s.root_value[r]), "a value-only sample with a policy");
        continue;
      }
      check(legal >= 2 && std::fabs(total - 1.0) < 1e-4, "a sample's policy does not sum to 1 over 2+ moves");
      check(s.mask[static_cast<size_t>(r) * actions + s.action[r]] == 1, "the move played is not legal");
      check(s.value[r] >= 0.0f && s.value[r] <= 1.0f, "a win share outside [0, 1]");
    }
    samples += s.rows;
  }
  check(loop.counts().episodes + loop.counts().truncated >= 2, "no game ended");
  check(loop.counts().opponent_moves > 0, "the opponent never moved");
  check(samples > 0 || loop.counts().episodes == 0, "finished games without samples");
}

// The fuzzer's seed corpus: for each game, states along random games of every configuration,
// each as the fuzz target reads it (the configuration's index, the state's bytes, then bytes
// that choose moves), so that fuzzing starts from states the game reaches.
template <class G>
void write_seeds(const std::string& folder, int per_config, uint64_t seed) {
  const auto all = configs<G>();
  Rng rng(seed);
  int written = 0;
  // at most 40 seeds a game: the configurations taken in turn
  const int every = std::max<int>(1, static_cast<int>(all.size() * per_config) / 40);
  for (size_t k = 0; k < all.size(); ++k) {
    const G game(all[k].seats, all[k].options);
    for (int g = 0; g < per_config; ++g) {
      if ((static_cast<int>(k) * per_config + g) % every) continue;
      auto s = game.initial_state();
      const int stop = static_cast<int>(rng.below(60));
      for (int step = 0; step < stop && game.to_move(s) != kTerminal; ++step) {
        if (game.to_move(s) == kChance) {
          game.apply_chance(s, game.sample_chance(s, rng));
        } else {
          std::vector<int> legal;
          game.legal_actions(s, legal);
          game.apply(s, legal[rng.below(legal.size())]);
        }
      }
      ByteWriter out;
      out.byte(static_cast<int>(k));
      encode(s, out);
      for (int i = 0; i < 64; ++i) out.byte(static_cast<int>(rng.below(256)));
      const std::string path = folder + "/" + Spec<G>::name + "/seed-" + std::to_string(written++);
      FILE* f = std::fopen(path.c_str(), "wb");
      check(f != nullptr, "cannot write " + path);
      std::fwrite(out.out.data(), 1, out.out.size(), f);
      std::fclose(f);
    }
  }
}

// The known answer of the search (tests/bots/test_think.py's, in the core): mid-turn Heckmeck
// positions with at most four dice left, where only the mover decides until its turn ends. With
// the exact turn solver's value as its leaf (the worms the turn brings, scaled into 0..1) the
// Gumbel root must choose a move the solver values best, and its mean values must come close
// to the solver's.
void search_known_answers() {
  using namespace heckmeck;
  const Heckmeck game(2, {{"quick", false}});
  Rng rng(7);
  int solved = 0, settled = 0;
  for (int g = 0; g < 40 && solved < 12; ++g) {
    State s = game.initial_state();
    std::vector<int> legal;
    while (true) {
      const int mover = resolve_chance(game, s, rng);
      if (mover == kTerminal) break;
      legal.clear();
      game.legal_actions(s, legal);
      if (legal.size() > 1 && s.left <= 4 && solved < 12) {
        ++solved;
        run("the search's known answer, heckmeck position " + std::to_string(solved), [&] {
          const int seat = mover;
          int before = 0;
          for (int t : s.stacks[seat]) before += worms(t);
          TurnSolver solver = TurnSolver::for_state(s);
          auto mask = [](const State& x) {
            int m = 0;
            for (int f = 0; f < 6; ++f) m |= (x.kept[f] > 0) << f;
            return m;
          };
          auto exact = [&](const State& x, int who, std::vector<float>&) {
            if (who != seat) return 0.5;  // the other seat's moves: uniform priors, its value unread
            int now = 0;
            for (int t : x.stacks[seat]) now += worms(t);
            double v = now - before;
            if (x.turn == seat && game.to_move(x) == seat) {
              const int kept = mask(x);
              if (x.phase == kKeeping) {
                double best = -INFINITY;
                for (int f = 0; f < 6; ++f)
                  if (x.roll[f] && !(kept >> f & 1))
                    best = std::max(best, solver.after_keep(kept | 1 << f, x.left - x.roll[f],
                                                            x.total + x.roll[f] * kFaceValue[f]));
                v += best;
              } else {
                v += solver.after_keep(kept, x.left, x.total);
              }
            }
            return (v + 4.0) / 8.0;
          };
          std::vector<double> values;
          Heckmeck::Solver bot;
          bot.action_values(game, s, seat, rng, values);
          ThinkConfig think;
          think.leaf = Leaf::kHead;
          AgentSearch<Heckmeck> search(nullptr, Reading{}, 400, 1.5, 1, think);  // one decision of the other
          search.set_oracle(exact);
          Rng same = rng;  // the timed search below draws the same worlds
          const auto root = search.think(game, s, seat, rng);
          const double best = *std::max_element(values.begin(), values.end());
          check(values[root.choice] >= best - 1e-9, "the search chose a move worth " +
                                                        std::to_string(values[root.choice]) + ", the best is worth " +
                                                        std::to_string(best));
          for (size_t i = 0; i < values.size(); ++i)
            if (root.visits[i] > 0)
              check(std::fabs(root.q[i] - (values[i] + 4.0) / 8.0) < 0.08,
                    "a move's mean value is far from the solver's: " + std::to_string(root.q[i] * 8 - 4) + " against " +
                        std::to_string(values[i]));
          // A time budget that does not run out: the same halving, stopped early only where the
          // choice is settled, and then on the same move.
          ThinkConfig timed_config = think;
          timed_config.seconds = 600.0;
          AgentSearch<Heckmeck> timed(nullptr, Reading{}, 400, 1.5, 1, timed_config);
          timed.set_oracle(exact);
          const auto& early = timed.think(game, s, seat, same);
          check(early.choice == root.choice, "the timed search chose another move than the untimed one");
          if (early.settled) {
            ++settled;
            check(early.simulations < root.simulations, "a settled search ran its whole budget");
          } else {
            check(early.visits == root.visits, "a time that did not run out changed the halving's plan");
          }
          // The last phase on worlds of its own (fresh): a best move too, the two moves it judged
          // valued on those worlds alone, half the budget.
          ThinkConfig fresh_config = think;
          fresh_config.fresh = 0.5;
          AgentSearch<Heckmeck> fresh(nullptr, Reading{}, 400, 1.5, 1, fresh_config);
          fresh.set_oracle(exact);
          Rng fresh_rng = rng;  // a copy: the positions tested stay those drawn before
          const auto& judged = fresh.think(game, s, seat, fresh_rng);
          check(values[judged.choice] >= best - 1e-9, "the search judging on fresh worlds chose a move worth " +
                                                          std::to_string(values[judged.choice]) + ", the best is worth " +
                                                          std::to_string(best));
          int finalists = 0;
          for (size_t i = 0; i < values.size(); ++i)
            if (std::isfinite(judged.score[i])) {
              ++finalists;
              check(judged.visits[i] >= 100, "a move judged on fresh worlds had " + std::to_string(judged.visits[i]));
            }
          check(finalists <= 2, "more than two moves left to judge");
          check(judged.simulations == 400, "the fresh search spent another budget");
          // The spread of the values about their world's mean (paired): a best move too.
          ThinkConfig paired_config = think;
          paired_config.paired = true;
          AgentSearch<Heckmeck> paired(nullptr, Reading{}, 400, 1.5, 1, paired_config);
          paired.set_oracle(exact);
          Rng paired_rng = rng;
          const auto& compared = paired.think(game, s, seat, paired_rng);
          check(values[compared.choice] >= best - 1e-9, "the search with the paired spread chose a move worth " +
                                                            std::to_string(values[compared.choice]) +
                                                            ", the best is worth " + std::to_string(best));
          // Chance drawn by the turn (each part of the game its own stream): a best move too.
          ThinkConfig turn_config = think;
          turn_config.chance_turn = true;
          AgentSearch<Heckmeck> by_turn(nullptr, Reading{}, 400, 1.5, 1, turn_config);
          by_turn.set_oracle(exact);
          Rng turn_rng = rng;
          const auto& drawn = by_turn.think(game, s, seat, turn_rng);
          check(values[drawn.choice] >= best - 1e-9, "the search drawing chance by the turn chose a move worth " +
                                                         std::to_string(values[drawn.choice]) + ", the best is worth " +
                                                         std::to_string(best));
        });
      }
      game.apply(s, legal[rng.below(legal.size())]);
    }
  }
  run("the search's known answers: enough positions", [&] { check(solved >= 8, "too few positions"); });
  run("the timed search settles some of them early", [&] { check(settled >= 1, "no timed search settled"); });
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int games = 6;
  uint64_t seed = 1;
  const char* seeds = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--games")) games = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--seeds")) seeds = argv[i + 1];
  }
  if (seeds) {
    run("the fuzzer's seeds", [&] {
      write_seeds<heckmeck::Heckmeck>(seeds, 4, seed);
      write_seeds<sechs_nimmt::SechsNimmt>(seeds, 1, seed);
      write_seeds<diamant::Diamant>(seeds, 7, seed);
      write_seeds<court::Court>(seeds, 10, seed);
    });
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
  }
  auto all = [&](auto tag) {
    using G = typename decltype(tag)::type;
    refusals<G>();
    int k = 0;
    for (const Config& c : configs<G>()) {
      const std::string name = std::string(Spec<G>::name) + " " + c.text();
      // the ports in one configuration of each seat count (they plan with many playouts)
      const bool ports = c.options.empty() || std::all_of(c.options.begin(), c.options.end(),
                                                          [](const auto& kv) { return !kv.second; });
      run(name + ": random games", [&] { random_games<G>(c, games, seed + k, ports); });
      run(name + ": mutated states", [&] { mutated_states<G>(c, 1, seed + 1000 + k); });
      if constexpr (determinizes<G>::value)
        if (ports) run(name + ": search self-play", [&] { gumbel_selfplay<G>(c, seed + 2000 + k); });
      ++k;
    }
  };
  all(std::common_type<heckmeck::Heckmeck>{});
  all(std::common_type<sechs_nimmt::SechsNimmt>{});
  all(std::common_type<diamant::Diamant>{});
  all(std::common_type<court::Court>{});
  heckmeck_dice();
  search_known_answers();
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
