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

#include "batch/batched.h"
#include "bound.h"

namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- the batched env

// The buffers a batch writes into: the core's own memory, which Python sees only through
// read-only numpy views (BoundBatch's arrays). A view cannot be resized, made writable or
// pointed elsewhere, and keeps this memory alive (a capsule of the shared pointer is its base):
// what the core writes is always where and as large as it was made.
struct BatchStorage {
  std::vector<float> obs, rewards;
  std::vector<int8_t> mask;
  std::vector<int32_t> to_move;
  std::vector<uint8_t> terminated, truncated, illegal;
};

// A read-only numpy view of `data` (shape `shape`), its base a capsule that holds `storage`.
template <class T>
py::array_t<T> read_only_view(const std::shared_ptr<BatchStorage>& storage, T* data, std::vector<py::ssize_t> shape) {
  auto* held = new std::shared_ptr<BatchStorage>(storage);
  py::capsule base(held, [](void* p) { delete static_cast<std::shared_ptr<BatchStorage>*>(p); });
  py::array_t<T> view(shape, data, base);
  py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return view;
}

// A Batch with the buffers it writes into, kept alive with it.
template <class G>
struct BoundBatch {
  py::object game_object;  // the Bound<G> the batch plays (kept alive)
  uint64_t key;
  std::unique_ptr<Batch<G>> batch;
  std::shared_ptr<BatchStorage> storage;  // what the core writes (the views below read it)
  py::array_t<float> obs, rewards;
  py::array_t<int8_t> mask;
  py::array_t<int32_t> to_move;
  py::array_t<bool> terminated, truncated, illegal;
  std::vector<std::string> action_names;  // the game's, copied when the batch was built (may be none)
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
    BatchStorage& m = *storage;
    return {m.obs.data(), m.mask.data(), m.rewards.data(), m.to_move.data(), m.terminated.data(), m.truncated.data(),
            m.illegal.data()};
  }

  std::string action_name(int a) const {
    return a >= 0 && a < static_cast<int>(action_names.size()) ? action_names[static_cast<size_t>(a)] : std::to_string(a);
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
             auto bb = std::make_unique<BB>();
             bb->game_object = game_object;
             bb->key = b.key;
             bb->action_names = b.action_names;
             bb->batch = std::make_unique<Batch<G>>(b.game, config, b.pad_index, b.pad_size, b.pad_seats_at);
             const py::ssize_t N = num_envs, width = bb->batch->obs_size(), actions = b.game.num_actions();
             const py::ssize_t seats = learner == -1 ? n : 1;
             auto storage = std::make_shared<BatchStorage>();
             storage->obs.assign(static_cast<size_t>(N * width), 0.0f);
             storage->mask.assign(static_cast<size_t>(N * actions), 0);
             storage->rewards.assign(static_cast<size_t>(N * seats), 0.0f);
             storage->to_move.assign(static_cast<size_t>(N), 0);
             storage->terminated.assign(static_cast<size_t>(N), 0);
             storage->truncated.assign(static_cast<size_t>(N), 0);
             storage->illegal.assign(static_cast<size_t>(N), 0);
             static_assert(sizeof(bool) == sizeof(uint8_t), "numpy's bool is one byte");
             bb->obs = read_only_view(storage, storage->obs.data(), {N, width});
             bb->mask = read_only_view(storage, storage->mask.data(), {N, actions});
             if (learner == -1)
               bb->rewards = read_only_view(storage, storage->rewards.data(), {N, seats});
             else
               bb->rewards = read_only_view(storage, storage->rewards.data(), {N});
             bb->to_move = read_only_view(storage, storage->to_move.data(), {N});
             bb->terminated = read_only_view(storage, reinterpret_cast<bool*>(storage->terminated.data()), {N});
             bb->truncated = read_only_view(storage, reinterpret_cast<bool*>(storage->truncated.data()), {N});
             bb->illegal = read_only_view(storage, reinterpret_cast<bool*>(storage->illegal.data()), {N});
             bb->storage = std::move(storage);
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
        const auto actions_array = array_of<int64_t>(actions_in, "actions", "an array of whole numbers (int64)");
        if (actions_array.ndim() != 1 || actions_array.shape(0) != N)
          throw py::value_error("actions must be a 1-d array of " + std::to_string(N) + " whole numbers");
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
            moves += bb.action_name(l) + " (" + std::to_string(l) + ")";
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
