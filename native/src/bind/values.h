// Values between Python and the core: a state's (or an outcome's) fields read from Python
// objects, strictly and within bounds, and written back as the Python engine writes them.
#pragma once

#include <pybind11/pybind11.h>
#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo {
namespace py = pybind11;

// ----------------------------------------------------------------------------- values <-> Python
// Reading is strict (a bool is not a number, a number is not a bool): a state read from
// JSON must have the types the Python engine writes.

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(T::fields())>> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

template <class T>
struct is_array : std::false_type {};
template <class T, size_t N>
struct is_array<std::array<T, N>> : std::true_type {};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

[[noreturn]] inline void bad_value(const std::string& where, const char* expected, py::handle value) {
  throw BadState(where + " should be " + expected + ", not " + std::string(py::repr(value)));
}

template <class T>
void read_value(py::handle value, T& out, const std::string& where);

template <class T>
void read_value(py::handle value, T& out, const std::string& where) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Flag>) {
    if (!PyBool_Check(value.ptr())) bad_value(where, "true or false", value);
    out = static_cast<T>(value.ptr() == Py_True);
  } else if constexpr (std::is_same_v<T, int>) {
    if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) bad_value(where, "a whole number", value);
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow || v < -1000000000LL || v > 1000000000LL) bad_value(where, "a whole number of 9 digits at most", value);
    out = static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!PyUnicode_Check(value.ptr())) bad_value(where, "text", value);
    out = value.cast<std::string>();
  } else if constexpr (is_note<T>::value) {
    if (!PyUnicode_Check(value.ptr())) bad_value(where, "text", value);
    if (!out.assign(value.cast<std::string>()))
      bad_value(where, ("text of at most " + std::to_string(T::capacity) + " characters").c_str(), value);
  } else if constexpr (std::is_enum_v<T>) {  // one of a few words (a phase): names(T) lists them
    const auto& words = names(T{});
    if (PyUnicode_Check(value.ptr())) {
      const std::string word = value.cast<std::string>();
      for (size_t i = 0; i < words.size(); ++i)
        if (word == words[i]) {
          out = static_cast<T>(i);
          return;
        }
    }
    std::string all;
    for (const char* w : words) all += std::string(all.empty() ? "" : ", ") + "'" + w + "'";
    bad_value(where, ("one of " + all).c_str(), value);
  } else if constexpr (is_array<T>::value) {
    if (!PyList_Check(value.ptr()) && !PyTuple_Check(value.ptr())) bad_value(where, "a list", value);
    py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    if (seq.size() != out.size())
      bad_value(where, ("a list of " + std::to_string(out.size()) + " entries").c_str(), value);
    for (size_t i = 0; i < out.size(); ++i) read_value(seq[i], out[i], where + "[" + std::to_string(i) + "]");
  } else if constexpr (is_optional<T>::value) {
    if (value.is_none()) {
      out.reset();
    } else {
      typename T::value_type inner{};
      read_value(value, inner, where);
      out = std::move(inner);
    }
  } else if constexpr (is_vector<T>::value) {
    if (!PyList_Check(value.ptr()) && !PyTuple_Check(value.ptr())) bad_value(where, "a list", value);
    py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    const size_t n = seq.size();
    if (n > 100000) bad_value(where, "a list of at most 100000 entries", py::str("a longer list"));
    T items;
    items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      typename T::value_type item{};
      read_value(seq[i], item, where + "[" + std::to_string(i) + "]");
      items.push_back(std::move(item));
    }
    out = std::move(items);
  } else if constexpr (has_fields<T>::value) {
    if (!PyDict_Check(value.ptr())) bad_value(where, "a dict", value);
    py::dict d = py::reinterpret_borrow<py::dict>(value);
    size_t known = 0;
    for_each_field(out, [&](const char* name, auto& member) {
      if (!d.contains(name)) throw BadState(where + " has no field '" + name + "'");
      read_value(d[name], member, where.empty() ? std::string(name) : where + "." + name);
      ++known;
    });
    if (d.size() != known) throw BadState(where + " has fields the game does not know: " + std::string(py::repr(d)));
  } else {
    static_assert(sizeof(T) == 0, "no reader for this field type");
  }
}

template <class T>
py::object to_python(const T& value) {
  if constexpr (has_fields<T>::value) {
    py::dict d;
    for_each_field(value, [&](const char* name, const auto& member) { d[name] = to_python(member); });
    return std::move(d);
  } else if constexpr (is_optional<T>::value) {
    return value ? to_python(*value) : py::none();
  } else if constexpr (std::is_same_v<T, Flag>) {
    return py::bool_(value == kYes);
  } else if constexpr (std::is_enum_v<T>) {
    return py::str(names(T{})[static_cast<size_t>(value)]);
  } else if constexpr (is_note<T>::value) {
    return py::str(value.str());
  } else if constexpr (is_vector<T>::value || is_array<T>::value) {
    py::list items(value.size());
    for (size_t i = 0; i < value.size(); ++i) {
      if constexpr (std::is_same_v<T, std::vector<bool>>)
        items[i] = py::bool_(static_cast<bool>(value[i]));
      else
        items[i] = to_python(value[i]);
    }
    return std::move(items);
  } else {
    return py::cast(value);
  }
}

}  // namespace tablezoo
