// Objects that were never built: `HeckmeckState.__new__(HeckmeckState)` makes a Python object
// whose C++ value was never constructed, and pybind11 would hand that memory to a method as
// if it were one. Every class of the module is read through constructed_caster, which refuses
// such an object with a TypeError instead (the one check, for every argument and every `self`).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "tablezoo/core.h"

namespace tablezoo {
template <class G>
struct Boxed;
template <class G>
struct Bound;
template <class G>
struct BoundBatch;
template <class G, class P>
struct BoundPort;
class PolicyValueNet;
}  // namespace tablezoo

namespace pybind11::detail {

template <class T>
class constructed_caster : public type_caster_base<T> {
 public:
  bool load(handle src, bool convert) {
    const type_info* info = this->typeinfo;
    if (src && info && PyObject_TypeCheck(src.ptr(), info->type)) {
      auto* inst = reinterpret_cast<instance*>(src.ptr());
      value_and_holder vh = inst->get_value_and_holder(info, false);
      if (!vh || !vh.holder_constructed())
        throw type_error(std::string("an empty ") + Py_TYPE(src.ptr())->tp_name +
                         " (made by __new__ without __init__): use one the module makes");
    }
    return type_caster_base<T>::load(src, convert);
  }
};

template <class G>
class type_caster<tablezoo::Boxed<G>> : public constructed_caster<tablezoo::Boxed<G>> {};
template <class G>
class type_caster<tablezoo::Bound<G>> : public constructed_caster<tablezoo::Bound<G>> {};
template <class G>
class type_caster<tablezoo::BoundBatch<G>> : public constructed_caster<tablezoo::BoundBatch<G>> {};
template <class G, class P>
class type_caster<tablezoo::BoundPort<G, P>> : public constructed_caster<tablezoo::BoundPort<G, P>> {};
template <>
class type_caster<tablezoo::Rng> : public constructed_caster<tablezoo::Rng> {};
template <>
class type_caster<tablezoo::PolicyValueNet> : public constructed_caster<tablezoo::PolicyValueNet> {};

}  // namespace pybind11::detail

namespace tablezoo {

// pybind11's common base class, called by itself (as pickle's protocols 0 and 1 call it through
// copyreg, or as `type(x).__mro__[1]()` does), throws a C++ exception through C and ends the
// process. guard_instance_base makes it a TypeError: the base's __new__ refuses a type that has
// no C++ class, and hands every other to pybind11's own.
inline newfunc base_new = nullptr;

inline PyObject* checked_base_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  if (pybind11::detail::all_type_info(type).empty()) {
    PyErr_Format(PyExc_TypeError, "%s cannot be made directly: it stands for no C++ class", type->tp_name);
    return nullptr;
  }
  return base_new(type, args, kwargs);
}

inline void guard_instance_base() {
  auto* base = reinterpret_cast<PyTypeObject*>(pybind11::detail::get_internals().instance_base);
  if (base->tp_new != checked_base_new) {
    base_new = base->tp_new;
    base->tp_new = checked_base_new;
  }
}

// Pickling at every protocol through the class's own __getstate__ and __setstate__ (py::pickle):
// the object is rebuilt as copyreg.__newobj__(cls) and then given its state, which protocols 0
// and 1 would otherwise try through pybind11's base class.
template <class Class>
void reduce_by_state(Class& cls) {
  cls.def("__reduce_ex__", [](pybind11::handle self, pybind11::handle) {
    // kept for the life of the process (never released after the interpreter)
    static PyObject* newobj = pybind11::object(pybind11::module_::import("copyreg").attr("__newobj__")).release().ptr();
    return pybind11::make_tuple(pybind11::handle(newobj), pybind11::make_tuple(pybind11::type::handle_of(self)),
                                self.attr("__getstate__")());
  }, pybind11::arg("protocol"));
}

}  // namespace tablezoo
