// numpy's random bits: a numpy Generator as a source for the draws of core.h, so that a game
// sampled from it draws exactly what the Python reference draws from the same generator.
#pragma once

#include <pybind11/pybind11.h>
#include <cstdint>
#include <string>



namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- numpy's random bits

// numpy's C interface to a bit generator (numpy/random/bitgen.h), as its capsule holds it.
struct NumpyBitgen {
  void* state;
  uint64_t (*next_uint64)(void* st);
  uint32_t (*next_uint32)(void* st);
  double (*next_double)(void* st);
  uint64_t (*next_raw)(void* st);
};

// The bits of a numpy Generator, as a source for the draws of core.h: a game sampled from it
// draws exactly what the Python reference draws from the same generator. The GIL is held
// throughout, as numpy's own methods hold the generator's lock.
struct NumpyBits {
  NumpyBitgen* g;

  explicit NumpyBits(py::handle generator) {
    py::object bit_generator = py::getattr(generator, "bit_generator", py::none());
    if (bit_generator.is_none())
      throw py::type_error("a numpy random Generator is needed (numpy.random.default_rng), not " +
                           std::string(py::str(generator.get_type().attr("__name__"))));
    py::object capsule = bit_generator.attr("capsule");
    g = static_cast<NumpyBitgen*>(PyCapsule_GetPointer(capsule.ptr(), "BitGenerator"));
    if (g == nullptr) throw py::error_already_set();
  }
  uint32_t next_uint32() { return g->next_uint32(g->state); }
  uint64_t next_uint64() { return g->next_uint64(g->state); }
  uint64_t next_raw() { return g->next_raw(g->state); }
};

}  // namespace tablezoo
