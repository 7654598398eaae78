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

// Re-initialising a live object: `state.__setstate__(t)` or `game.__init__(...)` called again on
// an object already built would replace (or silently keep) the C++ value under every reference to
// it. refuse_second_init wraps the class's own __init__ and __setstate__ (where it defines them)
// so that a call on a built object raises TypeError; on an object made by __new__ (pickle, a
// subclass's __init__) they run as before. module.cpp applies it to every class of the module.
inline void refuse_second_init(pybind11::handle cls) {
  namespace py = pybind11;
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  py::detail::type_info* info = py::detail::get_type_info(type);
  if (!info || info->type != type) return;  // not a class of its own
  for (const char* method : {"__init__", "__setstate__"}) {
    PyObject* own = PyDict_GetItemString(type->tp_dict, method);  // borrowed; only the class's own
    if (!own) continue;
    py::object original = py::getattr(cls, method);
    const std::string name = method;
    py::cpp_function guarded_method(
        [original, info, name](py::handle self, py::args args, py::kwargs kwargs) -> py::object {
          if (PyObject_TypeCheck(self.ptr(), info->type)) {
            auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
            auto vh = inst->get_value_and_holder(info, false);
            if (vh && vh.holder_constructed())
              throw py::type_error(std::string(info->type->tp_name) + "." + name + "() on an object already built: " +
                                   "a live " + info->type->tp_name + " is not initialised again (make a new one)");
          }
          return original(self, *args, **kwargs);
        },
        // not named __init__/__setstate__: pybind11 would take it for a constructor of its own
        py::name(name == "__init__" ? "init_once" : "setstate_once"), py::is_method(cls));
    py::setattr(cls, method, guarded_method);
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
