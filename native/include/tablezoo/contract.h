// The engine contract of core.h, checked by the compiler: check_game<G>() fails to compile,
// naming the first thing G lacks, where the comment of core.h would only have been read.
// bind_game<G> calls it, so a game that does not keep the contract cannot be bound.
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo::contract {

// A detection trait: Op<G> is well-formed (C++17's std::experimental::is_detected, by hand).
template <class, template <class> class, class = void>
struct detected : std::false_type {};
template <class G, template <class> class Op>
struct detected<G, Op, std::void_t<Op<G>>> : std::true_type {};
template <class G, template <class> class Op>
constexpr bool has = detected<G, Op>::value;

template <class G>
using state_t = typename G::State;
template <class G>
using outcome_t = typename G::Outcome;
template <class G>
using fields_t = decltype(G::State::fields());
template <class G>
using constructor_t = decltype(G(std::declval<int>(), std::declval<const Options&>()));
template <class G>
using num_seats_t = std::enable_if_t<std::is_same_v<decltype(std::declval<const G&>().num_seats()), int>>;
template <class G>
using num_actions_t = std::enable_if_t<std::is_same_v<decltype(std::declval<const G&>().num_actions()), int>>;
template <class G>
using observation_size_t =
    std::enable_if_t<std::is_same_v<decltype(std::declval<const G&>().observation_size()), int>>;
template <class G>
using initial_state_t =
    std::enable_if_t<std::is_same_v<decltype(std::declval<const G&>().initial_state()), typename G::State>>;
template <class G>
using to_move_t =
    std::enable_if_t<std::is_same_v<decltype(std::declval<const G&>().to_move(std::declval<const typename G::State&>())), int>>;
template <class G>
using legal_actions_t = decltype(std::declval<const G&>().legal_actions(std::declval<const typename G::State&>(),
                                                                         std::declval<std::vector<int>&>()));
template <class G>
using apply_t = decltype(std::declval<const G&>().apply(std::declval<typename G::State&>(), 0));
template <class G>
using sample_chance_t = std::enable_if_t<std::is_same_v<
    decltype(std::declval<const G&>().sample_chance(std::declval<const typename G::State&>(), std::declval<Rng&>())),
    typename G::Outcome>>;
template <class G>
using chance_outcomes_t = std::enable_if_t<std::is_same_v<
    decltype(std::declval<const G&>().chance_outcomes(std::declval<const typename G::State&>())),
    std::vector<std::pair<typename G::Outcome, double>>>>;
template <class G>
using check_outcome_t = decltype(std::declval<const G&>().check_outcome(std::declval<const typename G::State&>(),
                                                                         std::declval<const typename G::Outcome&>()));
template <class G>
using apply_chance_t = decltype(std::declval<const G&>().apply_chance(std::declval<typename G::State&>(),
                                                                       std::declval<const typename G::Outcome&>()));
template <class G>
using observe_t = decltype(std::declval<const G&>().observe(std::declval<const typename G::State&>(), 0,
                                                             std::declval<float*>()));
template <class G>
using scores_t = std::enable_if_t<
    std::is_same_v<decltype(std::declval<const G&>().scores(std::declval<const typename G::State&>())), std::vector<double>>>;
template <class G>
using winners_t = std::enable_if_t<
    std::is_same_v<decltype(std::declval<const G&>().winners(std::declval<const typename G::State&>())), std::vector<int>>>;
template <class G>
using validate_t = decltype(std::declval<const G&>().validate(std::declval<const typename G::State&>()));

// Every requirement of core.h's contract, each with the message that names it.
template <class G>
constexpr bool check_game() {
  static_assert(has<G, state_t>, "a game declares `using State = ...;`");
  static_assert(has<G, outcome_t>, "a game declares `using Outcome = ...;` (its chance outcome)");
  if constexpr (has<G, state_t> && has<G, outcome_t>) {
    static_assert(has<G, fields_t>, "State has `static constexpr auto fields()`: its field table (core.h)");
    static_assert(std::is_copy_constructible_v<typename G::State>, "a State is copied by its copy constructor");
    static_assert(std::is_default_constructible_v<typename G::State>, "a State is default-constructible (then read)");
    static_assert(has<G, constructor_t>, "a game is built as G(int num_seats, const Options& options)");
    static_assert(has<G, num_seats_t>, "int num_seats() const");
    static_assert(has<G, num_actions_t>, "int num_actions() const");
    static_assert(has<G, observation_size_t>, "int observation_size() const");
    static_assert(has<G, initial_state_t>, "State initial_state() const");
    static_assert(has<G, to_move_t>, "int to_move(const State&) const: a seat, kChance or kTerminal");
    static_assert(has<G, legal_actions_t>, "void legal_actions(const State&, std::vector<int>&) const, ascending");
    static_assert(has<G, apply_t>, "void apply(State&, int action) const");
    static_assert(has<G, sample_chance_t>, "template <class Bits> Outcome sample_chance(const State&, Bits&) const");
    static_assert(has<G, chance_outcomes_t>,
                  "std::vector<std::pair<Outcome, double>> chance_outcomes(const State&) const");
    static_assert(has<G, check_outcome_t>, "void check_outcome(const State&, const Outcome&) const: throws BadOutcome");
    static_assert(has<G, apply_chance_t>, "void apply_chance(State&, const Outcome&) const");
    static_assert(has<G, observe_t>, "void observe(const State&, int seat, float* out) const");
    static_assert(has<G, scores_t>, "std::vector<double> scores(const State&) const");
    static_assert(has<G, winners_t>, "std::vector<int> winners(const State&) const");
    static_assert(has<G, validate_t>, "void validate(const State&) const: throws BadState (core.h)");
  }
  return true;
}

}  // namespace tablezoo::contract
