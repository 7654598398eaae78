// bind_game<G>: the Python face of one native game, written once for every game.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "batch.h"
#include "fast.h"
#include "gumbel.h"
#include "ports.h"
#include "net_search.h"
#include "tablezoo/contract.h"

namespace tablezoo {
namespace py = pybind11;

template <class G>
void bind_game(py::module_& m, const char* name) {
  static_assert(contract::check_game<G>(), "G keeps the engine contract of core.h");
  using State = typename G::State;
  using Box = Boxed<G>;
  using B = Bound<G>;
  const std::string state_name = std::string(name) + "State";

  auto state_class = py::class_<Box>(m, state_name.c_str(), "A native state; its fields read as the Python dataclass's.");
  std::apply([&](auto... ref) {
    (state_class.def_property_readonly(ref.name, [ref](const Box& b) { return to_python(b.s.*(ref.member)); }), ...);
  }, State::fields());
  state_class
      .def("to_fields", [](const Box& b) { return to_python(b.s); }, "The state's fields as a dict (the dataclass's __dict__).")
      .def(py::pickle(
          [](const Box& b) { return py::make_tuple(b.num_seats, b.options, to_python(b.s)); },
          [](const py::tuple& t) {  // rebuilt and checked as a state read from JSON
            if (t.size() != 3) throw BadState("a pickled state is (num_seats, options, fields)");
            const int n = read_seats(t[0]);
            const Options options = read_options(t[1]);
            Bound<G> game(n, options);
            Box box{State{}, game.key, n, options};
            read_value(t[2], box.s, "");
            game.game.validate(box.s);
            return box;
          }))
      .def("__copy__", [](const Box& b) { return Box(b); })
      .def("__deepcopy__", [](const Box& b, py::handle) { return Box(b); }, py::arg("memo"))
      .def("__eq__", [](const Box& a, py::handle other) {
        if (!py::isinstance<Box>(other)) return false;
        const Box& b = other.cast<const Box&>();
        return a.key == b.key && to_python(a.s).equal(to_python(b.s));
      })
      .def("__repr__", [state_name](const Box& b) { return state_name + "(" + std::string(py::repr(to_python(b.s))) + ")"; });
  state_class.attr("__hash__") = py::none();
  reduce_by_state(state_class);

  Fast<G>::state_type = reinterpret_cast<PyTypeObject*>(state_class.ptr());
  Fast<G>::state_info = py::detail::get_type_info(typeid(Box));
  py::class_<B> game_class(m, name);
  Fast<G>::game_info = py::detail::get_type_info(typeid(B));
  // A game from its configuration, its action names and its padding (the three given together,
  // or none: a copy or a pickle carries them, so a batch or a search of the copy has them too).
  auto build = [](py::handle num_seats, py::handle options, py::handle names, py::handle padding) {
    B b(read_seats(num_seats), read_options(options));
    if (!names.is_none()) b.set_action_names(read_names(names));
    if (!padding.is_none()) {
      const std::vector<py::object> parts = tuple_entries(padding, 3, "padding", "(index, size, seats_at)");
      b.set_padding(read_index(parts[0]), read_whole(parts[1], "the padded size"), read_whole(parts[2], "the seat-count entry"));
    }
    return b;
  };
  game_class
      .def(py::init([build](py::handle num_seats, py::handle options, py::handle names, py::handle padding) {
             return build(num_seats, options, names, padding);
           }),
           py::arg("num_seats"), py::arg("options"), py::kw_only(), py::arg("action_names") = py::none(),
           py::arg("padding") = py::none(),
           "A game of num_seats seats and these options (a dict of names to True or False); action_names "
           "(one command word per action) and padding ((index, size, seats_at): Game._padded_index, "
           "padded_spec.size, the seat count's entry) name moves in refusals and lay out observe_padded.")
      .def(py::pickle([](const B& b) {
                        py::object padding = py::none();
                        if (b.pad_size > 0) padding = py::make_tuple(b.pad_index, b.pad_size, b.pad_seats_at);
                        py::object names = b.action_names.empty() ? py::object(py::none()) : py::object(py::cast(b.action_names));
                        return py::make_tuple(b.game.num_seats(), b.options, names, padding);
                      },
                      [build](const py::tuple& t) {
                        if (t.size() != 2 && t.size() != 4)
                          throw BadConfig("a pickled game is (num_seats, options) or (num_seats, options, action_names, padding)");
                        return t.size() == 2 ? build(t[0], t[1], py::none(), py::none()) : build(t[0], t[1], t[2], t[3]);
                      }))
      .def("fast_methods", [](py::handle self) {
             if (!py::isinstance<B>(self))
               throw py::type_error("fast_methods needs a " + std::string(py::str(py::type::of<B>().attr("__name__"))) + " game, not " + type_name(self));
             self.cast<const B&>();  // a built one (a TypeError otherwise); its part found by type
             return Fast<G>::methods(self);
           },
           "to_move, legal_actions, apply, advance and observe as fastcall functions bound to this game.")
      .def_property_readonly("num_seats", [](const B& b) { return b.game.num_seats(); })
      .def_property_readonly("num_actions", [](const B& b) { return b.game.num_actions(); })
      .def_property_readonly("observation_size", [](const B& b) { return b.game.observation_size(); })
      .def("initial_state", [](const B& b) { return b.box(b.game.initial_state()); })
      .def("to_move", [](const B& b, const Box& s) { return b.game.to_move(b.check(s)); })
      .def("is_terminal", [](const B& b, const Box& s) { return b.game.to_move(b.check(s)) == kTerminal; })
      .def("chance_context", [](const B& b, const Box& s) { return b.game.chance_context(b.check(s)); },
           "The part of the game the chance now due belongs to (Game.chance_context), as the search reads it.")
      .def("legal_actions", [](B& b, const Box& box) {
        const State& s = b.check(box);
        ScratchLease moves(b.legal);  // this call's own: making the list may run Python
        if (b.game.to_move(s) >= 0) b.game.legal_actions(s, moves.v);
        py::list out(moves.v.size());
        for (size_t i = 0; i < moves.v.size(); ++i) out[i] = py::int_(moves.v[i]);
        return out;
      })
      .def("legal_mask", [](B& b, const Box& box) {
        const State& s = b.check(box);
        py::array_t<int8_t> mask(b.game.num_actions());  // made first: no Python runs after the moves are found
        int8_t* data = mask.mutable_data();
        std::memset(data, 0, static_cast<size_t>(b.game.num_actions()));
        ScratchLease moves(b.legal);
        if (b.game.to_move(s) >= 0) b.game.legal_actions(s, moves.v);
        for (int a : moves.v) data[a] = 1;
        return mask;
      })
      .def("apply", [](B& b, Box& box, py::handle action, bool, py::handle) { b.apply_checked(b.check(box), action); },
           py::arg("state"), py::arg("action"), py::kw_only(), py::arg("check") = true, py::arg("legal") = py::none(),
           "Apply a legal action; an illegal one raises IllegalActionError naming the legal moves and changes "
           "nothing. The core checks every action (check and legal are taken for the contract's sake).")
      .def("set_action_names", [](B& b, py::handle names) { b.set_action_names(read_names(names)); },
           "One command word per action, for refusals (action_names= at construction does the same).")
      .def("chance_outcomes", [](const B& b, const Box& box) {
        const State& s = b.check(box);
        if (b.game.to_move(s) != kChance) throw BadOutcome("no chance outcome is due: a seat is to move or the game is over");
        py::list out;
        for (const auto& [outcome, p] : b.game.chance_outcomes(s)) out.append(py::make_tuple(to_python(outcome), p));
        return out;
      })
      .def("apply_chance", [](const B& b, Box& box, py::handle outcome) {
        State& s = b.check(box);
        if (b.game.to_move(s) != kChance) throw BadOutcome("no chance outcome is due: a seat is to move or the game is over");
        typename G::Outcome o{};
        try {
          read_value(outcome, o, "the outcome");  // may run Python (a key's __eq__), which may play s
        } catch (const BadState& e) {
          throw BadOutcome(e.what());
        }
        // checked again on the state as reading left it, then applied: no Python in between
        if (b.game.to_move(s) != kChance) throw BadOutcome("no chance outcome is due: a seat is to move or the game is over");
        b.game.check_outcome(s, o);
        b.game.apply_chance(s, o);
      }, "Apply a chance outcome (in the Python engine's normalised form), checked.")
      .def("sample_chance", [](const B& b, const Box& box, py::handle rng) {
        const State& s = b.check(box);
        if (b.game.to_move(s) != kChance) throw BadOutcome("no chance outcome is due: a seat is to move or the game is over");
        if (py::isinstance<Rng>(rng)) return to_python(b.game.sample_chance(s, rng.cast<Rng&>()));
        NumpyBits bits(rng);
        return to_python(b.game.sample_chance(s, bits));
      }, "Draw the chance node's outcome from a numpy Generator (as the reference draws it) or an Rng.")
      .def("advance", [](B& b, Box& box, py::handle rng) {
        State& s = b.check(box);
        if (py::isinstance<Rng>(rng)) return b.advance(s, rng.cast<Rng&>());
        return b.advance(s, b.numpy_bits(rng));
      }, "Resolve chance from a numpy Generator (as the reference) or an Rng until a seat is to move or the game ends.")
      .def("playout", [](B& b, Box& box, Rng& rng) {
        std::vector<int> moves;
        return b.playout(b.check(box), rng, moves);
      }, "Play the state to its end with random legal moves; the decisions made.")
      .def("random_games", [](const B& b, long long games, Rng& shared) {
        if (games < 0) throw py::value_error("games is a count, 0 or more, not " + std::to_string(games));
        // Without the GIL: everything written here is this call's own (the generator too,
        // copied in and back), so calls from several threads at once are safe.
        Rng rng = shared;
        long long decisions = 0;
        {
          py::gil_scoped_release release;
          const State start = b.game.initial_state();
          State s = start;
          std::vector<int> moves;
          for (long long g = 0; g < games; ++g) {
            s = start;  // a copy into the same state: its lists keep their room, nothing is allocated
            decisions += b.playout(s, rng, moves);
          }
        }
        shared = rng;
        return decisions;
      }, "Play whole games with random legal moves inside the core; the decisions made.")
      .def("observe", [](const B& b, const Box& box, py::handle seat) {
        const State& s = b.check(box);
        auto out = float_array(b.game.observation_size());
        b.game.observe(s, b.read_seat(seat), out.mutable_data());
        return out;
      })
      .def("observe_into", [](const B& b, const Box& box, py::handle seat_in, py::array_t<float, 0> out) {
        const State& s = b.check(box);
        const int seat = b.read_seat(seat_in);
        if (out.ndim() != 1 || out.shape(0) != b.game.observation_size() || !(out.flags() & py::array::c_style) ||
            !out.writeable())
          throw py::value_error("out must be a writable C-contiguous float32 array of shape (" +
                                std::to_string(b.game.observation_size()) + ",)");
        b.game.observe(s, seat, out.mutable_data());
      }, py::arg("state"), py::arg("seat"), py::arg("out").noconvert())
      .def("observe_batch", [](const B& b, py::handle states_in, py::handle seats_in) {
        // every argument read into values this call owns before a rule runs: the states held,
        // the seats as numbers (reading a seat may run Python, which may change a state)
        const std::vector<py::object> states = sequence_entries(states_in, "states");
        const std::vector<py::object> seat_objects = sequence_entries(seats_in, "seats");
        const size_t n = states.size();
        if (seat_objects.size() != n)
          throw py::value_error("observe_batch needs one seat per state: got " + std::to_string(n) + " states and " +
                                std::to_string(seat_objects.size()) + " seats");
        std::vector<int> seats(n);
        for (size_t i = 0; i < n; ++i) seats[i] = b.read_seat(seat_objects[i]);
        std::vector<const Box*> boxes(n);
        for (size_t i = 0; i < n; ++i) {
          if (!py::isinstance<Box>(states[i]))
            throw py::type_error("states[" + std::to_string(i) + "] is a " + type_name(states[i]) +
                                 ", not a native state of this game");
          boxes[i] = &states[i].template cast<const Box&>();
          b.check(*boxes[i]);
        }
        const py::ssize_t size = b.game.observation_size();
        py::array_t<float> out({static_cast<py::ssize_t>(n), size});
        float* data = out.mutable_data();
        for (size_t i = 0; i < n; ++i) b.game.observe(boxes[i]->s, seats[i], data + static_cast<py::ssize_t>(i) * size);
        return out;
      }, py::arg("states"), py::arg("seats"))
      .def("set_padding", [](B& b, py::handle index, py::handle size, py::handle seats_at) {
        b.set_padding(read_index(index), read_whole(size, "the padded size"), read_whole(seats_at, "the seat-count entry"));
      }, py::arg("index"), py::arg("size"), py::arg("seats_at"),
         "Where each entry of observe goes in observe_padded (Game._padded_index), the padded size and the seat "
         "count's entry (padding= at construction does the same).")
      .def("observe_padded", [](const B& b, const Box& box, py::handle seat_in) {
        const int seat = b.read_seat(seat_in);  // may run Python: before the rules
        const State& s = b.check(box);
        if (b.pad_size == 0) throw py::value_error("set_padding first");
        std::vector<float> plain(static_cast<size_t>(b.game.observation_size()));
        b.game.observe(s, seat, plain.data());
        py::array_t<float> out(b.pad_size);
        float* data = out.mutable_data();
        std::fill(data, data + b.pad_size, 0.0f);
        for (size_t i = 0; i < plain.size(); ++i) data[b.pad_index[i]] = plain[i];
        data[b.pad_seats_at] = 1.0f;
        return out;
      })
      .def("scores", [](const B& b, const Box& box) { return b.game.scores(b.check(box)); })
      .def("winners", [](const B& b, const Box& box) {
        const State& s = b.check(box);
        if (b.game.to_move(s) != kTerminal) throw py::value_error("winners are known only when the game is over");
        return b.game.winners(s);
      })
      .def("clone", [](const B& b, const Box& box) { return b.box(b.check(box)); })
      .def_property_readonly_static("has_heuristic", [](py::handle) { return HeuristicOf<G>::exists; })
      .def("heuristic", [](B& b, const Box& box, Rng& rng) {
        const State& s = b.check(box);
        if (!HeuristicOf<G>::exists) throw py::value_error("this game has no native heuristic bot yet");
        const int mover = b.game.to_move(s);
        if (mover < 0) throw py::value_error("no seat is to move");
        HeuristicOf<G> bot;
        return bot.act(b.game, s, mover, rng);
      }, "The native heuristic bot's move for the seat to move (a fresh bot: no memory of earlier moves).")
      .def("state_from_fields", [](const B& b, py::handle fields) {
        Box box = b.box(State{});
        read_value(fields, box.s, "");
        b.game.validate(box.s);
        return box;
      }, "A state from its fields (the dataclass's __dict__), checked; a malformed one raises StateError.");
  reduce_by_state(game_class);
  game_class.attr("ports") = bind_ports<G>(m, name, std::make_index_sequence<std::tuple_size_v<PortsOf<G>>>{});
  if constexpr (determinizes<G>::value)
    game_class.def("determinize", [](const B& b, const Box& box, py::handle seat_in, py::handle rng) {
      const State& s = b.check(box);
      const int seat = b.read_seat(seat_in);
      Box out = b.box(State{});
      if (py::isinstance<Rng>(rng)) {
        b.game.determinize(s, seat, rng.cast<Rng&>(), out.s);
      } else {
        NumpyBits bits(rng);
        b.game.determinize(s, seat, bits, out.s);
      }
      return out;
    }, py::arg("state"), py::arg("seat"), py::arg("rng"),
       "A state consistent with what the seat knows, the rest drawn anew: from a numpy Generator as the "
       "Python game's determinize draws it, or from an Rng as the native search draws its own.");
  game_class.attr("agent_search") = bind_search<G>(m, name);
  bind_batch<G>(m, name);
  game_class.attr("gumbel_selfplay") = bind_gumbel<G>(m, name);
}


// ----------------------------------------------------------------------------- the games of the module
// Each game's translation unit (bind/<game>.cc) registers the function that binds it, and
// module.cpp calls every registered one: adding a game adds files, and edits none.

using GameBinder = void (*)(py::module_&);

inline std::vector<std::pair<std::string, GameBinder>>& game_binders() {
  static std::vector<std::pair<std::string, GameBinder>> binders;
  return binders;
}

struct RegisterGame {
  RegisterGame(const char* name, GameBinder bind) { game_binders().emplace_back(name, bind); }
};

}  // namespace tablezoo

