// The native network (tablezoo.bots.net.PolicyValueNet's forward pass) and AgentBot's search.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bound.h"
#include "ports.h"
#include "net/net.h"
#include "search/search.h"

namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- the network and the search

// `value` as a float32 array of `ndim` dimensions (any array of numbers is converted), or a
// Python error naming `what` and what it should be.
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

inline std::string shape_text(const py::array& a) { return std::string(py::str(a.attr("shape"))); }

inline FloatArray float_input(py::handle value, int ndim, const std::string& what) {
  FloatArray a = array_of<float>(value, what, "an array of numbers");
  if (a.ndim() != ndim)
    throw py::value_error(what + " should have " + std::to_string(ndim) + " dimension" + (ndim > 1 ? "s" : "") +
                          ", not shape " + shape_text(a));
  return a;
}

inline void require_shape(const FloatArray& a, std::vector<py::ssize_t> shape, const std::string& what,
                          const std::string& why) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (a.shape(static_cast<py::ssize_t>(d)) != shape[d]) {
      std::string want = "(";
      for (size_t k = 0; k < shape.size(); ++k) want += (k ? ", " : "") + std::to_string(shape[k]);
      want += shape.size() == 1 ? ",)" : ")";
      throw py::value_error(what + " has shape " + shape_text(a) + ", not " + want + ": " + why);
    }
}

inline std::vector<float> floats(const FloatArray& a) { return std::vector<float>(a.data(), a.data() + a.size()); }

// tablezoo.bots.net.PolicyValueNet from its arrays (as the .npz holds them), every shape checked.
// The entries of a list or tuple as held objects, read from its storage (a subclass's __len__
// and __getitem__ are not consulted), or a TypeError naming `what`.
inline std::vector<py::object> entries_of(py::handle value, const std::string& what) {
  PyObject* o = value.ptr();
  if (!PyList_Check(o) && !PyTuple_Check(o)) throw py::type_error(what + " should be a list or a tuple, not " + type_name(value));
  const Py_ssize_t n = PyList_Check(o) ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o);
  std::vector<py::object> out;
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i)
    out.push_back(py::reinterpret_borrow<py::object>(PyList_Check(o) ? PyList_GET_ITEM(o, i) : PyTuple_GET_ITEM(o, i)));
  return out;
}

inline std::shared_ptr<PolicyValueNet> make_net(py::handle weights_in, py::handle biases_in,
                                                py::handle value_w, py::handle value_b, py::handle scale_in,
                                                py::handle head_in, const std::string& activation, bool padded) {
  if (activation != "relu" && activation != "tanh")
    throw py::value_error("activation is 'relu' or 'tanh', not '" + activation + "'");
  const std::vector<py::object> weights = entries_of(weights_in, "weights"), biases = entries_of(biases_in, "biases");
  const FloatArray scale = float_input(scale_in, 1, "scale");
  if (scale.size() < 1) throw py::value_error("scale needs one entry per observation entry, not none");
  const size_t layers = weights.size();
  if (layers < 1 || biases.size() != layers)
    throw py::value_error("a network needs one bias per weight matrix and at least one layer: got " +
                          std::to_string(layers) + " weights and " + std::to_string(biases.size()) + " biases");
  std::vector<std::vector<float>> w, b;
  std::vector<std::pair<int, int>> shapes;
  py::ssize_t width = scale.size();  // what the next layer reads
  std::vector<py::ssize_t> widths;
  for (size_t l = 0; l < layers; ++l) {
    const std::string name = "w" + std::to_string(l), bias = "b" + std::to_string(l);
    const FloatArray wl = float_input(weights[l], 2, name);
    if (wl.shape(0) < 1) throw py::value_error(name + " has shape " + shape_text(wl) + ": a layer has an output");
    require_shape(wl, {wl.shape(0), width}, name, "it reads " + std::to_string(width) + " inputs");
    const FloatArray bl = float_input(biases[l], 1, bias);
    require_shape(bl, {wl.shape(0)}, bias, "one per output of " + name);
    w.push_back(floats(wl));
    b.push_back(floats(bl));
    shapes.emplace_back(narrowed(wl.shape(0), 1, INT_MAX, name + "'s outputs"), narrowed(wl.shape(1), 1, INT_MAX, name + "'s inputs"));
    width = wl.shape(0);
    widths.push_back(width);
  }
  std::optional<ActionHead> head;
  const int hidden = static_cast<int>(layers) - (head_in.is_none() ? 1 : 0);
  const py::ssize_t context = hidden > 0 ? widths[hidden - 1] : scale.size();  // what the heads read
  if (!head_in.is_none()) {
    if (!py::isinstance<py::dict>(head_in))
      throw py::type_error("head is None or a dict of the ActionHead's arrays and size");
    py::dict d = py::reinterpret_borrow<py::dict>(head_in);
    for (const char* key : {"offsets", "size", "card", "context", "bias", "out", "out_bias", "rest", "rest_bias"})
      if (!d.contains(key)) throw py::value_error(std::string("head has no '") + key + "'");
    ActionHead h;
    py::object size_in = d["size"];
    if ((!PyLong_Check(size_in.ptr()) && !PyIndex_Check(size_in.ptr())) || PyBool_Check(size_in.ptr()))
      throw py::type_error("head size is a whole number, not " + Reader::shown(size_in));
    const long long size = PyNumber_AsSsize_t(size_in.ptr(), nullptr);
    if (size == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (size < 1 || size > scale.size())
      throw py::value_error("head size is 1.." + std::to_string(scale.size()) + ", not " + std::to_string(size));
    h.size = narrowed(size, 1, INT_MAX, "head size");
    const auto offsets = array_of<int64_t>(d["offsets"], "head offsets", "an array of whole numbers");
    if (offsets.ndim() != 1 || offsets.size() < 1)
      throw py::value_error("head offsets are a 1-d array of whole numbers, one per action field");
    for (py::ssize_t f = 0; f < offsets.size(); ++f) {
      const int64_t at = offsets.data()[f];
      if (at < 0 || at + size > scale.size())
        throw py::value_error("head offsets[" + std::to_string(f) + "] is " + std::to_string(at) + ": a field of " +
                              std::to_string(size) + " entries starts at 0.." + std::to_string(scale.size() - size));
      h.offsets.push_back(narrowed(at, 0, INT_MAX, "head offsets[" + std::to_string(f) + "]"));
    }
    const py::ssize_t fields = offsets.size();
    const FloatArray card = float_input(d["card"], 2, "head card");
    if (card.shape(0) < 1) throw py::value_error("head card has shape " + shape_text(card) + ": no hidden unit");
    const py::ssize_t units = card.shape(0);
    require_shape(card, {units, fields + 1}, "head card", "one weight per action field and the position");
    const FloatArray ctx = float_input(d["context"], 2, "head context");
    require_shape(ctx, {units, context}, "head context", "it reads the last hidden layer");
    const FloatArray hb = float_input(d["bias"], 1, "head bias");
    require_shape(hb, {units}, "head bias", "one per hidden unit");
    const FloatArray out = float_input(d["out"], 1, "head out");
    require_shape(out, {units}, "head out", "one per hidden unit");
    const FloatArray out_bias = float_input(d["out_bias"], 1, "head out_bias");
    require_shape(out_bias, {1}, "head out_bias", "one score's bias");
    const FloatArray rest = float_input(d["rest"], 2, "head rest");
    require_shape(rest, {rest.shape(0), context}, "head rest", "it reads the last hidden layer");
    const FloatArray rest_bias = float_input(d["rest_bias"], 1, "head rest_bias");
    require_shape(rest_bias, {rest.shape(0)}, "head rest_bias", "one per row of head rest");
    h.hidden = narrowed(units, 1, INT_MAX, "head card's hidden units");
    h.card = floats(card);
    h.bias = floats(hb);
    h.out = floats(out);
    h.out_bias = out_bias.data()[0];
    h.rest_bias = floats(rest_bias);
    h.context_t.resize(static_cast<size_t>(context) * units);
    for (py::ssize_t u = 0; u < units; ++u)
      for (py::ssize_t g = 0; g < context; ++g) h.context_t[g * units + u] = ctx.data()[u * context + g];
    const py::ssize_t others = rest.shape(0);
    h.rest_t.resize(static_cast<size_t>(context) * others);
    for (py::ssize_t a = 0; a < others; ++a)
      for (py::ssize_t g = 0; g < context; ++g) h.rest_t[g * others + a] = rest.data()[a * context + g];
    head = std::move(h);
  }
  if (value_w.is_none() != value_b.is_none()) throw py::value_error("a value head needs both value_w and value_b");
  const bool has_value = !value_w.is_none();
  if (has_value && !head && layers < 2)
    throw py::value_error("a network with a value head needs hidden layers and the policy layer");
  std::vector<float> vw;
  float vb = 0.0f;
  if (has_value) {
    const FloatArray v = float_input(value_w, 1, "value_w");
    require_shape(v, {context}, "value_w", "it reads the last hidden layer");
    vw = floats(v);
    const FloatArray c = float_input(value_b, 1, "value_b");
    require_shape(c, {1}, "value_b", "the value head's one bias");
    vb = c.data()[0];
  }
  return std::make_shared<PolicyValueNet>(w, shapes, b, std::move(vw), vb, has_value, floats(scale), std::move(head),
                                          activation == "relu" ? Activation::kRelu : Activation::kTanh, padded);
}

// The search's `leaf` and `others` settings by name (search.py's LEAVES and OTHERS), checked.
inline Leaf leaf_named(const std::string& leaf) {
  if (leaf == "head") return Leaf::kHead;
  if (leaf == "turn") return Leaf::kTurn;
  if (leaf == "end") return Leaf::kEnd;
  throw py::value_error("leaf is head, turn or end, not " + std::string(py::repr(py::str(leaf))));
}

inline bool others_likeliest_named(const std::string& others) {
  if (others != "sample" && others != "likeliest")
    throw py::value_error("others is sample or likeliest, not " + std::string(py::repr(py::str(others))));
  return others == "likeliest";
}

// The seat's own moves in the search's simulations by name (search.py think's `own`): empty for
// "network" (its likeliest), else the game's native port of that name (ports.h PortsOf), a copy
// of it kept in the search (a copied search copies it); another name is refused, naming those
// the core has.
template <class G, class P>
void own_port(const std::string& own, typename AgentSearch<G>::Own& found, std::string& names) {
  names += std::string(", ") + P::name;
  if (!found && own == P::name)
    found = [port = P{}](const G& game, const typename G::State& x, int seat, Rng& rng) mutable {
      return port.act(game, x, seat, rng);
    };
}

template <class G, class... P>
typename AgentSearch<G>::Own own_named(const std::string& own, std::tuple<P...>*) {
  typename AgentSearch<G>::Own found;
  std::string names = "network";
  (own_port<G, P>(own, found, names), ...);
  if (own != "network" && !found)
    throw py::value_error("own is one of " + names + " (the core's bots of this game), not " +
                          std::string(py::repr(py::str(own))));
  return found;
}

// The bot advising the search's root by name (search.py think's `advice`): empty for "none", else
// the game's native port of that name that values moves (ports.h values_moves), a copy of it kept
// in the search; another name is refused, naming those the core has.
template <class G, class P>
void advice_port(const std::string& advice, typename AgentSearch<G>::Advice& found, std::string& names) {
  if constexpr (values_moves<P>::value) {
    names += std::string(", ") + P::name;
    if (!found && advice == P::name)
      found = [port = P{}](const G& game, const typename G::State& x, int seat, Rng& rng,
                           std::vector<double>& out) mutable { port.action_values(game, x, seat, rng, out); };
  }
}

template <class G, class... P>
typename AgentSearch<G>::Advice advice_named(const std::string& advice, std::tuple<P...>*) {
  typename AgentSearch<G>::Advice found;
  std::string names = "none";
  (advice_port<G, P>(advice, found, names), ...);
  if (advice != "none" && !found)
    throw py::value_error("advice is one of " + names + " (the core's bots of this game that value moves), not " +
                          std::string(py::repr(py::str(advice))));
  return found;
}

// The native network as the Python class tablezoo.games._native.PolicyValueNet (built by
// tablezoo.bots.native.native_net from a tablezoo.bots.net.PolicyValueNet).
inline void bind_net(py::module_& m) {
  py::class_<PolicyValueNet, std::shared_ptr<PolicyValueNet>>(
      m, "PolicyValueNet", "The forward pass of tablezoo.bots.net.PolicyValueNet in the core, from the same arrays.")
      .def(py::init(&make_net), py::arg("weights"), py::arg("biases"), py::arg("value_w"), py::arg("value_b"),
           py::arg("scale"), py::arg("head"), py::arg("activation"), py::arg("padded"))
      .def_property_readonly("observation_size", &PolicyValueNet::observation_size)
      .def_property_readonly("num_actions", &PolicyValueNet::num_actions)
      .def_property_readonly("has_value_head", &PolicyValueNet::has_value_head)
      .def_property_readonly("padded", &PolicyValueNet::padded)
      .def("evaluate", [](const PolicyValueNet& net, py::handle x_in, py::handle only_in) {
        // `only` is read first: reading it may run Python, and nothing after x is converted does
        std::optional<std::vector<int>> only;
        if (!only_in.is_none()) read_value(only_in, only.emplace(), "only");
        const FloatArray x = float_input(x_in, 1, "the observation");
        require_shape(x, {net.observation_size()}, "the observation", "the network reads that many entries");
        if (only)
          for (int a : *only)
            if (a < 0 || a >= net.num_actions())
              throw py::value_error("only lists actions 0.." + std::to_string(net.num_actions() - 1) + ", not " +
                                    std::to_string(a));
        py::array_t<float> logits(net.num_actions());
        std::fill(logits.mutable_data(), logits.mutable_data() + net.num_actions(), std::nanf(""));
        PolicyValueNet::Work work;
        const double value = net.evaluate(x.data(), logits.mutable_data(), work, only ? &*only : nullptr);
        return py::make_tuple(logits, value);
      }, py::arg("x"), py::arg("only") = py::none(),
      "Logits and win share of one observation (PolicyValueNet.evaluate; 0 without a value head). `only`: "
      "the actions whose logits are computed (the others NaN; an empty list: the win share alone); all by default.");
}

// AgentBot's search on this game, a port (BoundPort) built from the game, a native network and
// the search's settings: bound as `<Game>AgentSearch`, the game class's `agent_search` (None
// where the game does not determinise in the core).
template <class G>
py::object bind_search(py::module_& m, const std::string& game_name) {
  if constexpr (!determinizes<G>::value) {
    return py::none();
  } else {
    using BP = BoundPort<G, AgentSearch<G>>;
    const std::string doc = "The native search of " + game_name + " (tablezoo.bots.search.AgentBot's).";
    py::class_<BP> cls(m, (game_name + "AgentSearch").c_str(), doc.c_str());
    cls.def(py::init([](py::object game_object, py::handle net_in, int simulations, double c_puct, int horizon,
                        uint64_t seed, const std::string& root, int considered, double confidence,
                        const std::string& leaf, double seconds, const std::string& others, double bias, double fresh,
                        const std::string& spread, const std::string& chance, const std::string& own,
                        const std::string& advice, double heed) {
             if (!py::isinstance<Bound<G>>(game_object))
               throw py::type_error("a native " + std::string(py::str(py::type::of<Bound<G>>().attr("__name__"))) +
                                    " game is needed, not " +
                                    type_name(game_object));
             if (!py::isinstance<PolicyValueNet>(net_in))
               throw py::type_error("a native PolicyValueNet is needed (tablezoo.bots.native.native_net), not " +
                                    type_name(net_in));
             net_in.cast<const PolicyValueNet&>();  // a built one (a TypeError otherwise)
             auto net = net_in.cast<std::shared_ptr<PolicyValueNet>>();
             const Bound<G>& b = game_object.cast<const Bound<G>&>();
             if (!net->has_value_head()) throw py::value_error("a policy without a value head cannot guide a search");
             if (simulations < 1 || simulations > 10000000)
               throw py::value_error("simulations are 1..10000000, not " + std::to_string(simulations));
             if (!(c_puct > 0 && c_puct < 1e9)) throw py::value_error("c_puct is above 0, not " + std::to_string(c_puct));
             if (horizon < 0 || horizon > 1000000)
               throw py::value_error("horizon is 0 (two rounds of the others) to 1000000, not " + std::to_string(horizon));
             ThinkConfig think;
             if (root != "gumbel" && root != "puct")
               throw py::value_error("root is gumbel or puct, not " + std::string(py::repr(py::str(root))));
             think.gumbel_root = root == "gumbel";
             if (considered < 1 || considered > 1000000)
               throw py::value_error("considered is 1..1000000, not " + std::to_string(considered));
             think.considered = considered;
             if (!(confidence > 0 && confidence < 1e9))
               throw py::value_error("confidence is above 0, not " + std::to_string(confidence));
             think.confidence = confidence;
             think.leaf = leaf_named(leaf);
             think.others_likeliest = others_likeliest_named(others);
             if (!(seconds >= 0 && seconds < 1e6))
               throw py::value_error("seconds is 0 (no time budget) or more, not " + std::to_string(seconds));
             think.seconds = seconds;
             if (!(bias >= 0 && bias <= 1)) throw py::value_error("bias is a win share, 0 to 1, not " + std::to_string(bias));
             think.bias = bias;
             if (!(fresh >= 0 && fresh < 1))
               throw py::value_error("fresh is the share of the simulations the last phase runs, 0 to below 1, not " +
                                     std::to_string(fresh));
             think.fresh = fresh;
             if (spread != "pooled" && spread != "paired")
               throw py::value_error("spread is one of pooled, paired, not " + std::string(py::repr(py::str(spread))));
             think.paired = spread == "paired";
             if (chance != "world" && chance != "turn")
               throw py::value_error("chance is one of world, turn, not " + std::string(py::repr(py::str(chance))));
             if (chance == "turn" && !think.gumbel_root)
               throw py::value_error("chance (how a simulation draws chance) is the gumbel root's");
             think.chance_turn = chance == "turn";
             auto own_move = own_named<G>(own, static_cast<PortsOf<G>*>(nullptr));
             if (own_move && !think.gumbel_root)
               throw py::value_error("own (the seat's own moves in a simulation) is the gumbel root's");
             auto advice_values = advice_named<G>(advice, static_cast<PortsOf<G>*>(nullptr));
             if (advice_values && !think.gumbel_root)
               throw py::value_error("advice (a bot's values added to the root's logits) is the gumbel root's");
             if (!(heed >= 0 && heed < 1e9))
               throw py::value_error("heed is the logits a unit of the advice's value weighs, 0 or more, not " +
                                     std::to_string(heed));
             Reading reading;
             if (net->padded()) {
               if (b.pad_size == 0) throw py::value_error("set_padding first: the network reads the padded observation");
               reading.index = b.pad_index;  // checked and narrowed when the padding was set
               reading.size = b.pad_size;
               reading.seats_at = b.pad_seats_at;
             }
             const int size = net->padded() ? reading.size : b.game.observation_size();
             if (net->observation_size() != size || net->num_actions() != b.game.num_actions())
               throw py::value_error("the network reads observations of " + std::to_string(net->observation_size()) +
                                     " entries and gives " + std::to_string(net->num_actions()) + " logits; this game's " +
                                     (net->padded() ? "padded " : "") + "observation has " + std::to_string(size) +
                                     " entries and " + std::to_string(b.game.num_actions()) + " actions");
             AgentSearch<G> search(std::move(net), std::move(reading), simulations, c_puct, horizon, think);
             search.set_own(std::move(own_move));
             search.set_advice(std::move(advice_values), heed);
             search.reseed_own(seed);
             return BP{game_object, std::move(search), Rng(seed), {}};
           }),
           py::arg("game"), py::arg("net"), py::arg("simulations"), py::arg("c_puct") = 1.5, py::arg("horizon") = 0,
           py::arg("seed") = 0, py::kw_only(), py::arg("root") = "gumbel", py::arg("considered") = 16,
           py::arg("confidence") = 0.25, py::arg("leaf") = "turn", py::arg("seconds") = 0.0,
           py::arg("others") = "sample", py::arg("bias") = 0.0, py::arg("fresh") = 0.0,
           py::arg("spread") = "pooled", py::arg("chance") = "world", py::arg("own") = "network",
           py::arg("advice") = "none", py::arg("heed") = 10.0)
        .def("__copy__", [](BP& bp) { return bp.copy(); })
        .def("__deepcopy__", [](BP& bp, py::handle) { return bp.copy(); }, py::arg("memo"))
        .def("reset", [](BP& bp, std::optional<uint64_t> seed) {
          auto held = bp.hold();
          bp.port.reset();
          if (seed) {
            bp.rng.reseed(*seed);
            bp.port.reseed_own(*seed);
          }
        }, py::arg("seed") = py::none(), "A new game (and reseed the search's randomness, given a seed).")
        .def("act", [](BP& bp, py::handle state) {
          return bp.think(state, [&](const G& game, const auto& s, int seat) { return bp.port.act(game, s, seat, bp.rng); });
        }, py::arg("state"), "The search's move for the seat to move.")
        .def("root", [](BP& bp, py::handle state, double noise, double dirichlet_alpha) {
          if (!(noise >= 0.0 && noise <= 1.0)) throw py::value_error("noise is a weight, 0 to 1, not " + std::to_string(noise));
          if (!(dirichlet_alpha > 0.0 && dirichlet_alpha < 1e6))
            throw py::value_error("dirichlet_alpha is above 0, not " + std::to_string(dirichlet_alpha));
          auto [legal, prior, visits] = bp.think(state, [&](const G& game, const auto& s, int seat) {
            const auto& root = bp.port.search(game, s, seat, bp.rng, noise, dirichlet_alpha);
            return std::make_tuple(root.legal, root.prior, root.visits);  // copies, made before the port is let go
          });
          return py::make_tuple(legal, prior, visits);
        }, py::arg("state"), py::arg("noise") = 0.0, py::arg("dirichlet_alpha") = 0.3,
        "The searched root of the seat to move: its legal moves, priors (noise mixed in) and visits.")
        .def("think", [](BP& bp, py::handle state, double gumbel) {
          if (!(gumbel >= 0.0 && gumbel < 1e6)) throw py::value_error("gumbel is a scale, 0 or more, not " + std::to_string(gumbel));
          auto root = bp.think(state, [&](const G& game, const auto& s, int seat) {
            return bp.port.think(game, s, seat, bp.rng, gumbel);  // a copy, made before the port is let go
          });
          py::dict out;
          out["legal"] = root.legal;
          out["logits"] = root.logits;
          out["value0"] = root.value0;
          out["visits"] = root.visits;
          out["q"] = root.q;
          out["score"] = root.score;
          out["choice"] = root.choice;
          out["simulations"] = root.simulations;
          out["settled"] = root.settled;
          return out;
        }, py::arg("state"), py::arg("gumbel") = 0.0,
        "The Gumbel root of the seat to move (tablezoo.bots.search.think's Root, as a dict): legal, logits, "
        "value0, visits, q, score, choice, simulations, settled.");
    return cls;
  }
}

}  // namespace tablezoo
