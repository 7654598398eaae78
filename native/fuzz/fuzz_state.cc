// The fuzz target of one game (FUZZ_GAME: heckmeck, sechs_nimmt, diamant or court), for
// libFuzzer: its first byte picks a configuration, the next ones build a state field by field
// through State::fields() (fields.h: numbers biased to small ranges, lists of bounded length,
// enums by index), and the game's validate judges it. A state validate refuses is done with;
// one it accepts is played from the bytes that are left: legal moves and raw action ids (any
// number: one that is not legal is refused), chance sampled or forced (a forced outcome is
// checked first), every seat's observation, the bots' ports, scores and winners at the end.
// Whatever validate accepts must never crash nor trip AddressSanitizer or UBSan; a seat to
// move without a legal move, an observation that is not finite or a state the rules leave
// invalid stops the fuzzer as a crash too. `make fuzz` runs it (Makefile).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

#include "core/config.h"
#include "../tests/fields.h"
#include "../tests/games.h"

using namespace tablezoo;
using namespace tablezoo::testing;

#define GAME_heckmeck heckmeck::Heckmeck
#define GAME_sechs_nimmt sechs_nimmt::SechsNimmt
#define GAME_diamant diamant::Diamant
#define GAME_court court::Court
#define GAME_CAT(a, b) a##b
#define GAME_OF(x) GAME_CAT(GAME_, x)
using G = GAME_OF(FUZZ_GAME);
using State = G::State;

namespace {

[[noreturn]] void fail(const char* what, const State& s) {
  std::fprintf(stderr, "fuzz: %s\nstate: %s\n", what, describe(s).c_str());
  __builtin_trap();
}

// Each configuration's game, built once (the ports' own: To Court the King's heuristic
// without its rollouts, which would make an input take seconds).
struct Games {
  std::unique_ptr<G> game, ports;
};
const Games& games_of(int index) {
  static std::map<int, Games> built;
  const Config c = config_of<G>(index);
  const int key = static_cast<int>(index % configs<G>().size());
  auto it = built.find(key);
  if (it != built.end()) return it->second;
  Options port_options = c.options;
  if constexpr (std::is_same_v<G, court::Court>) port_options["heuristic_rollouts"] = false;
  Games g{std::make_unique<G>(c.seats, c.options), std::make_unique<G>(c.seats, port_options)};
  return built.emplace(key, std::move(g)).first->second;
}

void observe_all(const G& game, const State& s, std::vector<float>& obs) {
  const int size = game.observation_size();
  obs.assign(static_cast<size_t>(size) + 8, -7.0f);
  for (int seat = 0; seat < game.num_seats(); ++seat) {
    game.observe(s, seat, obs.data());
    for (int i = 0; i < size; ++i)
      if (!std::isfinite(obs[i])) fail("an observation entry is not finite", s);
    for (int i = size; i < size + 8; ++i)
      if (obs[i] != -7.0f) fail("observe wrote past its size", s);
  }
}

void play(const Games& games, State& s, Bytes& in) {
  const G& game = *games.game;
  std::vector<int> legal;
  std::vector<float> obs;
  Rng rng(in.word());
  bool ported = false;  // the ports (some plan with many playouts) choose once an input
  for (int step = 0; step < 400 && !in.empty(); ++step) {
    try {
      game.validate(s);
    } catch (const BadState& e) {
      fail((std::string("the rules led to a state validate refuses: ") + e.what()).c_str(), s);
    }
    observe_all(game, s, obs);
    const int mover = game.to_move(s);
    if (mover == kTerminal) {
      const auto scores = game.scores(s);
      for (double x : scores)
        if (!std::isfinite(x)) fail("a score is not finite", s);
      if (game.winners(s).empty()) fail("nobody wins", s);
      return;
    }
    if (mover < kChance || mover >= game.num_seats()) fail("to_move is out of range", s);
    const uint8_t how = in.byte();
    if (mover == kChance) {
      if (how % 16 == 0) {
        try {
          for (const auto& [o, p] : game.chance_outcomes(s)) game.check_outcome(s, o), (void)p;
        } catch (const NotEnumerable&) {
        }
      }
      if (how & 1) {  // forced: checked, or sampled where it is refused
        G::Outcome outcome{};
        decode(outcome, in);
        try {
          game.check_outcome(s, outcome);
          game.apply_chance(s, outcome);
          continue;
        } catch (const BadOutcome&) {
        }
      }
      game.apply_chance(s, game.sample_chance(s, rng));
      continue;
    }
    legal.clear();
    game.legal_actions(s, legal);
    if (legal.empty()) fail("a seat to move has no legal action", s);
    for (size_t i = 1; i < legal.size(); ++i)
      if (legal[i - 1] >= legal[i]) fail("legal actions are not ascending", s);
    for (int a : legal)
      if (a < 0 || a >= game.num_actions()) fail("a legal action is out of range", s);
    if (how % 32 == 1 && !ported) {  // the bots' ports choose a legal move (some are slow: seldom)
      ported = true;
      for_each_port<G>([&](auto& port) {
        const int a = port.act(*games.ports, s, mover, rng);
        if (std::find(legal.begin(), legal.end(), a) == legal.end()) fail("a bot's move is not legal", s);
      });
    }
    if (how & 2) {  // a raw action id: applied only when legal
      const int raw = in.number();
      if (std::find(legal.begin(), legal.end(), raw) != legal.end()) game.apply(s, raw);
      continue;
    }
    game.apply(s, legal[in.byte() % legal.size()]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in{data, size};
  const Games& games = games_of(in.byte());
  State s{};
  decode(s, in);
  try {
    games.game->validate(s);
  } catch (const BadState&) {
    return 0;  // refused: nothing else may be done with it
  }
  play(games, s, in);
  return 0;
}
