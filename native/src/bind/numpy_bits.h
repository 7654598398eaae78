// numpy's random bits: a numpy Generator as a source for the draws of core.h, so that a game
// sampled from it draws exactly what the Python reference draws from the same generator.
#pragma once

#include <pybind11/pybind11.h>
#include <cstdint>
#include <stdexcept>
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
// numpy.random.Generator over a numpy BitGenerator is taken. Nothing a subclass overrides is
// consulted: the Generator's bit generator and the bit generator's capsule are read through
// numpy's own descriptors (Generator.bit_generator, BitGenerator.capsule, looked up on numpy's
// classes, never on the object), and the capsule must point into the very bit generator read
// (its C state lives inside the object), which is held while its bits are: a capsule of
// another, perhaps freed, generator is refused. The GIL is held throughout, as numpy's own
// methods hold it for small draws.
struct NumpyBits {
  py::object generator, bit_generator, capsule;  // held: g points into bit_generator
  NumpyBitgen* g = nullptr;

  // numpy's classes and their descriptors, once (the GIL is held); kept for the life of the process
  struct Numpy {
    PyObject* generator_type = nullptr;
    PyObject* bit_generator_type = nullptr;
    PyObject* bit_generator_of = nullptr;  // Generator.__dict__["bit_generator"]
    PyObject* capsule_of = nullptr;        // BitGenerator.__dict__["capsule"]
  };
  static const Numpy& numpy() {
    static Numpy n = [] {
      py::module_ random = py::module_::import("numpy.random");
      Numpy out;
      py::object generator = random.attr("Generator"), bit_generator = random.attr("BitGenerator");
      out.generator_type = generator.release().ptr();
      out.bit_generator_type = bit_generator.release().ptr();
      auto descriptor = [](PyObject* type, const char* name) {
        PyObject* found = PyDict_GetItemString(reinterpret_cast<PyTypeObject*>(type)->tp_dict, name);  // borrowed
        if (!found || !Py_TYPE(found)->tp_descr_get)
          throw std::runtime_error(std::string("numpy's ") + reinterpret_cast<PyTypeObject*>(type)->tp_name +
                                   " has no descriptor '" + name + "'");
        Py_INCREF(found);
        return found;
      };
      out.bit_generator_of = descriptor(out.generator_type, "bit_generator");
      out.capsule_of = descriptor(out.bit_generator_type, "capsule");
      return out;
    }();
    return n;
  }

  // descriptor.__get__(obj), numpy's own (no override of a subclass is consulted)
  static py::object through(PyObject* descriptor, py::handle obj) {
    PyObject* got = Py_TYPE(descriptor)->tp_descr_get(descriptor, obj.ptr(), reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())));
    if (!got) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(got);
  }

  explicit NumpyBits(py::handle rng) {
    const Numpy& np = numpy();
    const int is_generator = PyObject_TypeCheck(rng.ptr(), reinterpret_cast<PyTypeObject*>(np.generator_type));
    if (!is_generator)
      throw py::type_error("a numpy random Generator is needed (numpy.random.default_rng(seed)) or the core's Rng, not " +
                           type_name(rng));
    generator = py::reinterpret_borrow<py::object>(rng);
    bit_generator = through(np.bit_generator_of, generator);
    if (!PyObject_TypeCheck(bit_generator.ptr(), reinterpret_cast<PyTypeObject*>(np.bit_generator_type)))
      throw py::type_error("the Generator's bit_generator is a " + type_name(bit_generator) +
                           ", not a numpy BitGenerator");
    capsule = through(np.capsule_of, bit_generator);
    if (!PyCapsule_IsValid(capsule.ptr(), "BitGenerator"))
      throw py::type_error("the Generator's bit generator has no numpy BitGenerator capsule");
    g = static_cast<NumpyBitgen*>(PyCapsule_GetPointer(capsule.ptr(), "BitGenerator"));
    // the capsule's C interface lives inside the bit generator object itself (numpy keeps it there)
    const char* begin = reinterpret_cast<const char*>(bit_generator.ptr());
    const char* end = begin + Py_TYPE(bit_generator.ptr())->tp_basicsize;
    const char* at = reinterpret_cast<const char*>(g);
    if (g == nullptr || at < begin || at + sizeof(NumpyBitgen) > end)
      throw py::type_error("the Generator's bit generator hands out another generator's bits");
    if (g->state == nullptr || g->next_uint32 == nullptr || g->next_uint64 == nullptr || g->next_raw == nullptr)
      throw py::type_error("the Generator's bit generator gives no bits (was it built?)");
  }
  uint32_t next_uint32() { return g->next_uint32(g->state); }
  uint64_t next_uint64() { return g->next_uint64(g->state); }
  uint64_t next_raw() { return g->next_raw(g->state); }
};

}  // namespace tablezoo
