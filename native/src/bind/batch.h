// The batched env's Python face: many games of one configuration stepped in the core.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../batched.h"
#include "bound.h"

namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- the batched env

// A Batch with the numpy buffers it writes into, kept alive with it.
template <class G>
struct BoundBatch {
  py::object game_object;  // the Bound<G> the batch plays (kept alive)
  uint64_t key;
  std::unique_ptr<Batch<G>> batch;
  py::array_t<float> obs, rewards;
  py::array_t<int8_t> mask;
  py::array_t<int32_t> to_move;
  py::array_t<bool> terminated, truncated, illegal;
  std::vector<std::string> action_names;
  std::mutex stepping;  // one step or reset at a time (they run without the GIL)
  bool started = false;  // reset() has started the games: step and state need it

  // The batch to itself (waiting, without the GIL, for a step of another thread to end).
  std::unique_lock<std::mutex> lock() {
    std::unique_lock<std::mutex> held(stepping, std::defer_lock);
    py::gil_scoped_release release;
    held.lock();
    return held;
  }

  // The batch's games, started: a RuntimeError that says so before the first reset().
  void require_started(const char* what) const {
    if (!started) throw std::runtime_error(std::string(what) + " before reset(): reset() the batch first, to start its games");
  }

  BatchBuffers buffers() {
    return {obs.mutable_data(), mask.mutable_data(), rewards.mutable_data(), to_move.mutable_data(),
            reinterpret_cast<uint8_t*>(terminated.mutable_data()), reinterpret_cast<uint8_t*>(truncated.mutable_data()),
            reinterpret_cast<uint8_t*>(illegal.mutable_data())};
  }
};

template <class G>
void bind_batch(py::module_& m, const std::string& name) {
  using BB = BoundBatch<G>;
  using B = Bound<G>;
  py::class_<BB>(m, (name + "Batch").c_str(), "Many games of one configuration stepped in the core (tablezoo.envs.batched).")
      .def(py::init([](py::object game_object, int num_envs, uint64_t seed, int num_threads, bool padded,
                       bool score_reward, int max_cycles, int learner, std::vector<int> bots, bool forfeit,
                       float illegal_reward) {
             if (!py::isinstance<B>(game_object))
               throw py::type_error("a native " + std::string(py::str(py::type::of<B>().attr("__name__"))) +
                                    " game is needed, not " + type_name(game_object));
             B& b = game_object.cast<B&>();
             const int n = b.game.num_seats();
             if (num_envs < 1 || num_envs > 1000000) throw py::value_error("num_envs must be 1..1000000");
             if (num_threads < 1 || num_threads > 256) throw py::value_error("num_threads must be 1..256");
             if (max_cycles < 0) throw py::value_error("max_cycles must be 0 (no cap) or positive");
             if (learner < -2 || learner >= n) throw py::value_error("learner must be a seat, -1 (self-play) or -2 (drawn)");
             if (learner != -1) {
               if (static_cast<int>(bots.size()) != n) throw py::value_error("one bot per seat");
               for (int k : bots) {
                 if (k != static_cast<int>(BotKind::kRandom) && k != static_cast<int>(BotKind::kHeuristic))
                   throw py::value_error("a bot is 0 (random) or 1 (heuristic)");
                 if (k == static_cast<int>(BotKind::kHeuristic) && !HeuristicOf<G>::exists)
                   throw py::value_error("this game has no native heuristic bot yet");
               }
             }
             if (padded && b.pad_size == 0) throw py::value_error("set_padding first");
             BatchConfig config{num_envs, seed, num_threads, padded, score_reward, max_cycles, learner, bots, forfeit, illegal_reward};
             std::vector<int> pad(b.pad_index.begin(), b.pad_index.end());
             auto bb = std::make_unique<BB>();
             bb->game_object = game_object;
             bb->key = b.key;
             bb->action_names = b.action_names;
             bb->batch = std::make_unique<Batch<G>>(b.game, config, pad, static_cast<int>(b.pad_size), b.pad_seats_at);
             const py::ssize_t N = num_envs;
             bb->obs = py::array_t<float>({N, static_cast<py::ssize_t>(bb->batch->obs_size())});
             bb->mask = py::array_t<int8_t>({N, static_cast<py::ssize_t>(b.game.num_actions())});
             if (learner == -1)
               bb->rewards = py::array_t<float>({N, static_cast<py::ssize_t>(n)});
             else
               bb->rewards = py::array_t<float>(N);
             bb->to_move = py::array_t<int32_t>(N);
             bb->terminated = py::array_t<bool>(N);
             bb->truncated = py::array_t<bool>(N);
             bb->illegal = py::array_t<bool>(N);
             return bb;
           }),
           py::arg("game"), py::arg("num_envs"), py::arg("seed"), py::arg("num_threads"), py::arg("padded"),
           py::arg("score_reward"), py::arg("max_cycles"), py::arg("learner"), py::arg("bots"), py::arg("forfeit"),
           py::arg("illegal_reward"))
      .def_readonly("obs", &BB::obs)
      .def_readonly("mask", &BB::mask)
      .def_readonly("rewards", &BB::rewards)
      .def_readonly("to_move", &BB::to_move)
      .def_readonly("terminated", &BB::terminated)
      .def_readonly("truncated", &BB::truncated)
      .def_readonly("illegal", &BB::illegal)
      .def("reset", [](BB& bb) {
        auto one_at_a_time = bb.lock();
        auto buffers = bb.buffers();
        py::gil_scoped_release release;
        bb.batch->reset(buffers);
        bb.started = true;
      }, "Start every game anew from the seed; writes the first decisions into the buffers.")
      .def("step", [](BB& bb, py::array actions_in) {
        const py::ssize_t N = bb.batch->num_envs();
        if (actions_in.ndim() != 1 || actions_in.shape(0) != N)
          throw py::value_error("actions must be a 1-d array of " + std::to_string(N) + " whole numbers, not shape " +
                                std::string(py::str(actions_in.attr("shape"))));
        if (actions_in.dtype().kind() != 'i' && actions_in.dtype().kind() != 'u')
          throw py::type_error("actions must be whole numbers, not dtype " + std::string(py::str(actions_in.dtype())));
        auto actions_array = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(actions_in);
        if (!actions_array) throw py::type_error("actions cannot be read as int64");
        // a copy, checked and applied as it is: the caller's array may change while the core steps
        const std::vector<int64_t> actions(actions_array.data(), actions_array.data() + N);
        auto one_at_a_time = bb.lock();
        bb.require_started("step()");
        const int bad = bb.batch->first_illegal(actions.data());
        if (bad >= 0) {
          const int mover = bb.batch->mover(bad);
          std::string moves;
          for (int l : bb.batch->legal_actions(bad)) {
            if (!moves.empty()) moves += ", ";
            moves += bb.action_names[l] + " (" + std::to_string(l) + ")";
          }
          throw IllegalAction("game " + std::to_string(bad) + ": action " + std::to_string(actions.data()[bad]) +
                              " is not legal for seat " + std::to_string(mover) + " now; legal moves: " + moves +
                              " (nothing was applied)");
        }
        auto buffers = bb.buffers();
        py::gil_scoped_release release;
        bb.batch->step(actions.data(), buffers);
      }, py::arg("actions"), "Apply one action per game (the seat to move's) and write the next decisions.")
      .def("state", [](BB& bb, int i) {
        if (i < 0 || i >= bb.batch->num_envs()) throw py::value_error("no game " + std::to_string(i));
        auto lock = bb.lock();
        bb.require_started("state()");
        return bb.game_object.template cast<const Bound<G>&>().box(bb.batch->state(i));
      }, "A copy of game i's state (a native state of the game).")
      .def("learner", [](BB& bb, int i) {
        if (i < 0 || i >= bb.batch->num_envs()) throw py::value_error("no game " + std::to_string(i));
        auto lock = bb.lock();
        bb.require_started("learner()");
        return bb.batch->learner_of(i);
      }, "The learner's seat in game i's current episode.")
      .def_property_readonly("has_heuristic", [](const BB&) { return HeuristicOf<G>::exists; });
}

}  // namespace tablezoo
