// The four games of the native core, with every configuration the tests and the fuzzer build.
#pragma once

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "batch/batched.h"
#include "games/court/court.h"
#include "games/diamant/diamant.h"
#include "games/heckmeck/heckmeck.h"
#include "games/sechs_nimmt/sechs_nimmt.h"
#include "tablezoo/core.h"

namespace tablezoo::testing {

struct Config {
  int seats;
  Options options;
  std::string text() const {
    std::string out = std::to_string(seats) + " seats";
    for (const auto& [name, on] : options)
      if (on) out += " " + name;
    return out;
  }
};

// Every option's name and its seat range, per game.
template <class G>
struct Spec;
template <>
struct Spec<heckmeck::Heckmeck> {
  static constexpr const char* name = "heckmeck";
  static constexpr int min_seats = 2, max_seats = 7;
  static std::vector<std::string> options() { return {"quick"}; }
};
template <>
struct Spec<sechs_nimmt::SechsNimmt> {
  static constexpr const char* name = "sechs_nimmt";
  static constexpr int min_seats = 2, max_seats = 10;
  static std::vector<std::string> options() { return {"logic", "profi", "tactic"}; }
};
template <>
struct Spec<diamant::Diamant> {
  static constexpr const char* name = "diamant";
  static constexpr int min_seats = 3, max_seats = 8;
  static std::vector<std::string> options() { return {}; }
};
template <>
struct Spec<court::Court> {
  static constexpr const char* name = "court";
  static constexpr int min_seats = 2, max_seats = 5;
  static std::vector<std::string> options() { return {}; }
};

// Every configuration: each seat count with each combination of the options.
template <class G>
std::vector<Config> configs() {
  std::vector<Config> out;
  const auto names = Spec<G>::options();
  for (int n = Spec<G>::min_seats; n <= Spec<G>::max_seats; ++n)
    for (unsigned bits = 0; bits < (1u << names.size()); ++bits) {
      Config c{n, {}};
      for (size_t i = 0; i < names.size(); ++i) c.options[names[i]] = bits >> i & 1;
      out.push_back(c);
    }
  return out;
}

// The configuration `index` names (the fuzzer's first byte), wrapped around.
template <class G>
Config config_of(int index) {
  static const std::vector<Config> all = configs<G>();
  return all[static_cast<size_t>(index) % all.size()];
}

template <class G, class = void>
struct ports_of {
  using type = std::tuple<>;
};
template <class G>
struct ports_of<G, std::void_t<typename G::Ports>> {
  using type = typename G::Ports;
};

// Call f(port) for a fresh instance of every native port of G's Python bots (its heuristic
// first, where it has one).
template <class G, class F>
void for_each_port(F&& f) {
  if constexpr (HeuristicOf<G>::exists) {
    HeuristicOf<G> heuristic;
    f(heuristic);
  }
  std::apply([&](auto... port) { (f(port), ...); }, typename ports_of<G>::type{});
}

}  // namespace tablezoo::testing
