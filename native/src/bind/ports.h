// The native ports of a game's Python bots, bound as Python classes.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "batch/batched.h"
#include "bound.h"

namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- native ports of bots

// A game's native ports of its Python bots are its heuristic (HeuristicPort, where the game
// has a native Heuristic) and the types its nested `Ports` lists (a std::tuple). A port P
// reads like its Python twin, which stays the reference, and has:
//
//   static constexpr const char* name;  // the Python bot's name (make_bot's)
//   void reset();                       // a new game: forget what was kept
//   int act(const G&, const State&, int seat, Rng&);  // the move of the seat to move
//
// and, where its twin values moves (search and solver bots, for expert iteration's targets):
//
//   void action_values(const G&, const State&, int seat, Rng&, std::vector<double>& out);
//                                       // the value of each legal move, in legal_actions' order
//
// A port is given the whole state and reads only what `seat` may know (a hidden-information
// bot plans on the game's determinize(s, seat, rng)), as its twin reads only a Seat. Its
// randomness is the Rng it is passed, the bot's own. bind_ports binds each as the Python class
// `<Game><Name>` (HeckmeckSolver), built from the native game and a seed; the game class's
// `ports` maps each name to its class.
template <class G, class = void>
struct ports_of {
  using type = std::tuple<>;
};
template <class G>
struct ports_of<G, std::void_t<typename G::Ports>> {
  using type = typename G::Ports;
};

// The game's native heuristic as a port (one fresh memory per bot).
template <class G>
struct HeuristicPort {
  static constexpr const char* name = "heuristic";
  HeuristicOf<G> bot;
  void reset() { bot.reset(); }
  int act(const G& game, const typename G::State& s, int seat, Rng& rng) { return bot.act(game, s, seat, rng); }
};

template <class G>
using PortsOf = decltype(std::tuple_cat(
    std::conditional_t<HeuristicOf<G>::exists, std::tuple<HeuristicPort<G>>, std::tuple<>>{},
    typename ports_of<G>::type{}));

// Whether port P values moves (has action_values).
template <class P, class = void>
struct values_moves : std::false_type {};
template <class P>
struct values_moves<P, std::void_t<decltype(&P::action_values)>> : std::true_type {};

// A mutex that a copy does not share: a copied port gets its own.
struct OwnMutex {
  std::mutex m;
  OwnMutex() = default;
  OwnMutex(const OwnMutex&) {}
  OwnMutex& operator=(const OwnMutex&) { return *this; }
};

// Whether port P thinks for long (a search, a solver, rollouts): its calls then run without the
// GIL, on a copy of the state. The heuristic answers in microseconds and keeps the GIL.
template <class P>
struct thinks_long : std::true_type {};
template <class G>
struct thinks_long<HeuristicPort<G>> : std::false_type {};

// A port with the game it plays (kept alive), its randomness and its scratch.
template <class G, class P>
struct BoundPort {
  py::object game_object;  // the Bound<G>
  P port;
  Rng rng;
  OwnMutex busy;  // one call at a time (they may run without the GIL, from several threads)

  const Bound<G>& bound() const { return game_object.cast<const Bound<G>&>(); }

  // The state of a decision of this game's configuration, or a Python error that says why not.
  const typename G::State& decision(py::handle state) const {
    if (!py::isinstance<Boxed<G>>(state))
      throw py::type_error(type_name(state) + " is not a native state of this game");
    const auto& s = bound().check(state.cast<const Boxed<G>&>());
    const int mover = bound().game.to_move(s);
    if (mover == kTerminal) throw py::value_error("the game is over: no seat is to move");
    if (mover == kChance) throw py::value_error("a chance outcome is due: no seat is to move");
    return s;
  }

  // f(game, state, seat to move, rng) on the decision `state`, the port to itself. A port that
  // thinks long runs without the GIL, on a copy of the state (the caller's may change meanwhile);
  // f must then touch no Python object.
  template <class F>
  auto think(py::handle state, F&& f) {
    const G& game = bound().game;
    if constexpr (thinks_long<P>::value) {
      const typename G::State s = decision(state);
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> held(busy.m);  // unlocked before the GIL is taken again
      return f(game, s, game.to_move(s));
    } else {
      const auto& s = decision(state);
      std::lock_guard<std::mutex> held(busy.m);
      return f(game, s, game.to_move(s));
    }
  }

  // The same for what changes the port outside a move (reset, copy): waits for a move to end.
  std::unique_lock<std::mutex> hold() { return std::unique_lock<std::mutex>(busy.m); }
  BoundPort copy() {
    auto held = hold();
    return *this;
  }
};

template <class G, class P>
void bind_port(py::module_& m, const std::string& game_name, py::dict& classes) {
  using BP = BoundPort<G, P>;
  std::string title = P::name;
  title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  const std::string doc = "The native port of " + game_name + "'s Python bot '" + P::name + "'.";
  py::class_<BP> cls(m, (game_name + title).c_str(), doc.c_str());
  cls.def(py::init([](py::object game_object, uint64_t seed) {
           if (!py::isinstance<Bound<G>>(game_object))
             throw py::type_error("a native " + std::string(py::str(py::type::of<Bound<G>>().attr("__name__"))) +
                                  " game is needed, not " +
                                  type_name(game_object));
           game_object.cast<const Bound<G>&>();  // a built game (a TypeError otherwise)
           return BP{game_object, P{}, Rng(seed), {}};
         }),
         py::arg("game"), py::arg("seed") = 0)
      .def_property_readonly_static("name", [](py::handle) { return P::name; })
      .def_property_readonly_static("values_moves", [](py::handle) { return values_moves<P>::value; })
      .def("__copy__", [](BP& bp) { return bp.copy(); })
      .def("__deepcopy__", [](BP& bp, py::handle) { return bp.copy(); }, py::arg("memo"))
      .def("reset", [](BP& bp, std::optional<uint64_t> seed) {
        auto held = bp.hold();
        bp.port.reset();
        if (seed) bp.rng.reseed(*seed);
      }, py::arg("seed") = py::none(), "A new game: forget what was kept (and reseed the bot's randomness, given a seed).")
      .def("act", [](BP& bp, py::handle state) {
        return bp.think(state, [&](const G& game, const auto& s, int seat) { return bp.port.act(game, s, seat, bp.rng); });
      }, py::arg("state"), "The move of the seat to move.");
  if constexpr (values_moves<P>::value)
    cls.def("action_values", [](BP& bp, py::handle state) {
      return bp.think(state, [&](const G& game, const auto& s, int seat) {
        std::vector<double> values;
        bp.port.action_values(game, s, seat, bp.rng, values);
        return values;
      });
    }, py::arg("state"), "The value of each legal move, in legal_actions' order.");
  classes[P::name] = cls;
}

template <class G, size_t... I>
py::dict bind_ports(py::module_& m, const std::string& game_name, std::index_sequence<I...>) {
  py::dict classes;
  (bind_port<G, std::tuple_element_t<I, PortsOf<G>>>(m, game_name, classes), ...);
  return classes;
}

}  // namespace tablezoo
