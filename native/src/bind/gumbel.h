// Search self-play's Python face: the batched Gumbel loop of search/gumbel.h, the network the caller's.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "search/gumbel.h"
#include "bound.h"
#include "net_search.h"
#include "ports.h"

namespace tablezoo {
namespace py = pybind11;

template <class G>
struct BoundGumbel {
  py::object game_object;  // the Bound<G> whose game the loop plays (kept alive)
  std::unique_ptr<GumbelSelfPlay<G>> loop;
  std::mutex busy;          // one call at a time (they run without the GIL)
  bool started = false;     // reset() has started the games
  bool asked = false;       // requests() has handed out the rows answer() answers

  std::unique_lock<std::mutex> lock() {
    std::unique_lock<std::mutex> held(busy, std::defer_lock);
    py::gil_scoped_release release;
    held.lock();
    return held;
  }

  void require_started(const char* what) const {
    if (!started) throw std::runtime_error(std::string(what) + " before reset(): reset() first, to start the games");
  }
};

template <class T>
py::array_t<T> numpy_copy(const std::vector<T>& v, std::vector<py::ssize_t> shape) {
  py::array_t<T> out(shape);
  if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
  return out;
}

// The opponent named `name` among the game's native bots (PortsOf<G>), or a Python error that lists them.
template <class G, size_t... I>
OpponentFactory<G> opponent_named(const std::string& name, std::index_sequence<I...>) {
  OpponentFactory<G> found;
  std::string names;
  auto visit = [&](auto tag) {
    using P = typename decltype(tag)::type;
    names += std::string(names.empty() ? "" : ", ") + P::name;
    if (name == P::name) found = [] { return std::make_unique<BotOpponent<G, P>>(); };
  };
  (visit(std::common_type<std::tuple_element_t<I, PortsOf<G>>>{}), ...);
  if (!found)
    throw py::value_error("no native bot named '" + name + "' to be the opponent" +
                          (names.empty() ? std::string(": this game has none") : "; there are: " + names));
  return found;
}

// Bound as `<Game>GumbelSelfPlay`, the game class's `gumbel_selfplay` (None where the game does
// not determinise in the core).
template <class G>
py::object bind_gumbel(py::module_& m, const std::string& name) {
  if constexpr (determinizes<G>::value) {
    using BG = BoundGumbel<G>;
    using B = Bound<G>;
    py::class_<BG> cls(m, (name + "GumbelSelfPlay").c_str(),
                   "Search self-play in the core: many games, a Gumbel root with sequential halving at every "
                   "decision, the network the caller's (tablezoo.training.search_selfplay).");
    cls.def(py::init([](py::object game_object, int num_games, uint64_t seed, int num_threads, int simulations,
                         int considered, int horizon, double c_visit, double c_scale, bool gumbel, bool padded,
                         int64_t max_decisions, bool chance_values, const std::string& opponent,
                         int opponent_games, const std::string& leaf, const std::string& others) {
               if (!py::isinstance<B>(game_object))
                 throw py::type_error("a native " + std::string(py::str(py::type::of<B>().attr("__name__"))) +
                                      " game is needed, not " + type_name(game_object));
               const B& b = game_object.cast<const B&>();
               if (num_games < 1 || num_games > 100000)
                 throw py::value_error("num_games is 1..100000, not " + std::to_string(num_games));
               if (num_threads < 1 || num_threads > 256)
                 throw py::value_error("num_threads is 1..256, not " + std::to_string(num_threads));
               if (simulations < 1 || simulations > 100000)
                 throw py::value_error("simulations are 1..100000, not " + std::to_string(simulations));
               if (considered < 1 || considered > 100000)
                 throw py::value_error("considered is 1..100000 (a decision considers at most its legal moves), not " +
                                       std::to_string(considered));
               if (horizon < 0 || horizon > 1000000)
                 throw py::value_error("horizon is 0 (two rounds of the others) to 1000000, not " +
                                       std::to_string(horizon));
               if (!(c_visit >= 0 && c_visit < 1e9)) throw py::value_error("c_visit is 0 or more, not " + std::to_string(c_visit));
               if (!(c_scale > 0 && c_scale < 1e9)) throw py::value_error("c_scale is above 0, not " + std::to_string(c_scale));
               if (max_decisions < 0)
                 throw py::value_error("max_decisions is 0 (no cap) or more, not " + std::to_string(max_decisions));
               if (opponent_games < 0 || opponent_games > num_games)
                 throw py::value_error("opponent_games is 0.." + std::to_string(num_games) + " (the games), not " +
                                       std::to_string(opponent_games));
               if (opponent_games > 0 && opponent.empty())
                 throw py::value_error("opponent_games needs an opponent: the native bot at their other seats");
               const Leaf leaf_is = leaf_named(leaf);
               const bool likeliest = others_likeliest_named(others);
               OpponentFactory<G> factory;
               if (!opponent.empty())
                 factory = opponent_named<G>(opponent, std::make_index_sequence<std::tuple_size_v<PortsOf<G>>>{});
               Reading reading;
               if (padded) {
                 if (b.pad_size == 0) throw py::value_error("set_padding first: the padded observation is asked for");
                 reading.index = b.pad_index;  // checked and narrowed when the padding was set
                 reading.size = b.pad_size;
                 reading.seats_at = b.pad_seats_at;
               }
               GumbelConfig config{num_games, seed, num_threads, simulations, considered, horizon, c_visit, c_scale, gumbel, max_decisions,
                                   chance_values, opponent_games, leaf_is, likeliest};
               auto bg = std::make_unique<BG>();
               bg->game_object = game_object;
               bg->loop = std::make_unique<GumbelSelfPlay<G>>(b.game, config, std::move(reading), factory);
               return bg;
             }),
             py::arg("game"), py::arg("num_games"), py::arg("seed"), py::arg("num_threads") = 1,
             py::arg("simulations") = 16, py::arg("considered") = 16, py::arg("horizon") = 0,
             py::arg("c_visit") = 50.0, py::arg("c_scale") = 1.0, py::arg("gumbel") = true, py::arg("padded") = true,
             py::arg("max_decisions") = 0, py::arg("chance_values") = true, py::arg("opponent") = "",
             py::arg("opponent_games") = 0, py::arg("leaf") = "head", py::arg("others") = "sample")
        .def_property_readonly("read_size", [](const BG& bg) { return bg.loop->read_size(); })
        .def_property_readonly("num_actions", [](const BG& bg) { return bg.loop->num_actions(); })
        .def_property_readonly("num_games", [](const BG& bg) { return bg.loop->num_games(); })
        .def("reset", [](BG& bg) {
          auto held = bg.lock();
          py::gil_scoped_release release;
          bg.loop->reset();
          bg.started = true;
          bg.asked = false;
        }, "Start every game anew from the seed (the samples not taken are dropped).")
        .def("requests", [](BG& bg) {
          auto held = bg.lock();
          bg.require_started("requests()");
          const int rows = bg.loop->pending();
          py::array_t<float> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(bg.loop->read_size())});
          bg.loop->requests(out.mutable_data());
          bg.asked = true;
          return out;
        }, "The observations waiting on the network: (rows, read_size) float32, one row per question.")
        .def("answer", [](BG& bg, py::handle logits_in, py::handle values_in) {
          const FloatArray logits = float_input(logits_in, 2, "logits");
          FloatArray values = array_of<float>(values_in, "values", "an array of numbers");
          if (values.ndim() == 2 && values.shape(1) == 1) values = array_of<float>(values.reshape({values.shape(0)}), "values", "an array of numbers");
          if (values.ndim() != 1)
            throw py::value_error("values should have shape (rows,) or (rows, 1), not " + shape_text(values));
          auto held = bg.lock();
          bg.require_started("answer()");
          if (!bg.asked) throw std::runtime_error("answer() before requests(): answer the rows requests() handed out");
          const py::ssize_t rows = bg.loop->pending();
          require_shape(logits, {rows, bg.loop->num_actions()}, "logits", "one row of logits per row requested");
          require_shape(values, {rows}, "values", "one win share per row requested");
          const std::string wrong = bg.loop->check(logits.data(), values.data());
          if (!wrong.empty()) throw py::value_error(wrong + " (nothing was applied)");
          {
            py::gil_scoped_release release;
            bg.loop->answer(logits.data(), values.data());
          }
          bg.asked = false;
        }, py::arg("logits"), py::arg("values"),
           "The network's answers to the rows of requests(): logits (rows, actions), win shares (rows,); every game "
           "then plays on until it waits on the network again.")
        .def("play", [](BG& bg, py::handle net_in, int64_t decisions) {
          if (!py::isinstance<PolicyValueNet>(net_in))
            throw py::type_error("a native PolicyValueNet is needed (tablezoo.bots.native.native_net), not " +
                                 type_name(net_in));
          auto net = net_in.cast<std::shared_ptr<PolicyValueNet>>();
          if (!net) throw py::type_error("a built PolicyValueNet is needed");
          if (!net->has_value_head()) throw py::value_error("a policy without a value head cannot guide a search");
          if (net->observation_size() != bg.loop->read_size() || net->num_actions() != bg.loop->num_actions())
            throw py::value_error("the network reads observations of " + std::to_string(net->observation_size()) +
                                  " entries and gives " + std::to_string(net->num_actions()) + " logits; the rows here have " +
                                  std::to_string(bg.loop->read_size()) + " entries and the game " +
                                  std::to_string(bg.loop->num_actions()) + " actions");
          if (decisions < 0 || decisions > 1000000000)
            throw py::value_error("decisions are 0..1000000000 per game, not " + std::to_string(decisions));
          auto held = bg.lock();
          bg.require_started("play()");
          py::gil_scoped_release release;
          bg.loop->play(*net, decisions);
          bg.asked = false;
        }, py::arg("net"), py::arg("decisions"),
           "Every game plays this many more searched decisions, the network the core's own (no rows handed out).")
        .def("take", [](BG& bg) {
          auto held = bg.lock();
          GumbelSamples s = bg.loop->take();
          const py::ssize_t n = s.rows, a = bg.loop->num_actions();
          py::dict out;
          out["obs"] = numpy_copy(s.obs, {n, static_cast<py::ssize_t>(bg.loop->read_size())});
          out["mask"] = numpy_copy(s.mask, {n, a}).attr("astype")("bool");
          out["policy"] = numpy_copy(s.policy, {n, a});
          out["visits"] = numpy_copy(s.visits, {n, a});
          out["q"] = numpy_copy(s.q, {n, a});
          out["root_value"] = numpy_copy(s.root_value, {n});
          out["value"] = numpy_copy(s.value, {n});
          out["seat"] = numpy_copy(s.seat, {n});
          out["action"] = numpy_copy(s.action, {n});
          out["game"] = numpy_copy(s.game, {n});
          return out;
        }, "The samples of the games finished since the last take: a dict of arrays, one row per searched decision "
           "(and per chance position, value only: no legal moves, action -1, root_value NaN).")
        .def("counts", [](BG& bg) {
          auto held = bg.lock();
          const GumbelCounts& c = bg.loop->counts();
          py::dict out;
          out["decisions"] = c.decisions;
          out["forced"] = c.forced;
          out["simulations"] = c.simulations;
          out["questions"] = c.questions;
          out["evaluations"] = c.evaluations;
          out["waves"] = c.waves;
          out["episodes"] = c.episodes;
          out["truncated"] = c.truncated;
          out["chance_values"] = c.chance_values;
          out["opponent_moves"] = c.opponent_moves;
          return out;
        }, "What the loop did since it was built: searched and forced decisions, simulations, observations "
           "asked about, rows answered (each distinct observation of a wave once), "
           "answers, games finished, games cut at max_decisions, value-only samples where chance was due, moves "
           "of the opponents' bots.")
        .def("searched", [](BG& bg, int i) {
          if (i < 0 || i >= bg.loop->num_games())
            throw py::value_error("no game " + std::to_string(i) + ": games are 0.." + std::to_string(bg.loop->num_games() - 1));
          auto held = bg.lock();
          bg.require_started("searched()");
          return bg.loop->searched(i);
        }, py::arg("index"), "The seat searched in game i's episode: -1 where every seat is (no opponent).")
        .def("state", [](BG& bg, int i) {
          if (i < 0 || i >= bg.loop->num_games())
            throw py::value_error("no game " + std::to_string(i) + ": games are 0.." + std::to_string(bg.loop->num_games() - 1));
          auto held = bg.lock();
          bg.require_started("state()");
          return bg.game_object.template cast<const B&>().box(bg.loop->state(i));
        }, py::arg("index"), "A copy of game i's real state (a native state of the game).");
    return cls;
  } else {
    (void)m;
    (void)name;
    return py::none();
  }
}

}  // namespace tablezoo
