// numpy's random bits: a numpy Generator as a source for the draws of core.h, so that a game
// sampled from it draws exactly what the Python reference draws from the same generator.
#pragma once

#include <pybind11/pybind11.h>
#include <cstdint>
#include <string>

#include "values.h"



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
// draws exactly what the Python reference draws from the same generator. Only a
// numpy.random.Generator over a numpy BitGenerator is taken, and both are held while their
// bits are (the C interface points into the bit generator). The GIL is held throughout, as
// numpy's own methods hold it for small draws.
struct NumpyBits {
  py::object generator, bit_generator, capsule;  // held: g points into bit_generator
  NumpyBitgen* g = nullptr;

  explicit NumpyBits(py::handle rng) {
    static PyObject* generator_type = nullptr;
    static PyObject* bit_generator_type = nullptr;
    if (!generator_type) {  // once (the GIL is held); kept for the life of the process
      py::module_ random = py::module_::import("numpy.random");
      generator_type = py::object(random.attr("Generator")).release().ptr();
      bit_generator_type = py::object(random.attr("BitGenerator")).release().ptr();
    }
    const int is_generator = PyObject_IsInstance(rng.ptr(), generator_type);
    if (is_generator < 0) throw py::error_already_set();
    if (!is_generator)
      throw py::type_error("a numpy random Generator is needed (numpy.random.default_rng(seed)) or the core's Rng, not " +
                           type_name(rng));
    generator = py::reinterpret_borrow<py::object>(rng);
    bit_generator = generator.attr("bit_generator");
    const int is_bits = PyObject_IsInstance(bit_generator.ptr(), bit_generator_type);
    if (is_bits < 0) throw py::error_already_set();
    if (!is_bits)
      throw py::type_error("the Generator's bit_generator is a " + type_name(bit_generator) +
                           ", not a numpy BitGenerator");
    capsule = bit_generator.attr("capsule");
    if (!PyCapsule_IsValid(capsule.ptr(), "BitGenerator"))
      throw py::type_error("the Generator's bit generator has no numpy BitGenerator capsule");
    g = static_cast<NumpyBitgen*>(PyCapsule_GetPointer(capsule.ptr(), "BitGenerator"));
    if (g == nullptr || g->next_uint32 == nullptr || g->next_uint64 == nullptr || g->next_raw == nullptr)
      throw py::type_error("the Generator's bit generator gives no bits");
  }
  uint32_t next_uint32() { return g->next_uint32(g->state); }
  uint64_t next_uint64() { return g->next_uint64(g->state); }
  uint64_t next_raw() { return g->next_raw(g->state); }
};

}  // namespace tablezoo
