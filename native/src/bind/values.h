// Values between Python and the core: a state's (or an outcome's) fields read from Python
// objects, strictly and within bounds, and written back as the Python engine writes them.
#pragma once

#include <pybind11/pybind11.h>
#include <array>
#include <cstring>
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

// The name of value's type, for a message ("int", "ndarray").
inline std::string type_name(py::handle value) {
  return std::string(py::str(py::type::handle_of(value).attr("__name__")));
}

// Where a value is being read, for a message: a chain of names and indices on the stack, written
// out only when something is wrong (reading a state builds no strings).
struct Where {
  const Where* parent = nullptr;  // nullptr: the value read itself
  const char* name = nullptr;     // a field, or nullptr for an entry of a list
  size_t index = 0;

  std::string text() const {
    if (!parent) return std::string();
    std::string parent_text = parent->text();
    if (name) return parent_text.empty() ? std::string(name) : parent_text + "." + name;
    return parent_text + "[" + std::to_string(index) + "]";
  }
};

// A bound on what one read may cost: every value read counts, and a list longer than what is
// left is refused before its entries are read. No state of the four games comes near it (the
// largest has a few hundred values); a forged one of shared lists is refused at once.
constexpr size_t kMaxValues = 1 << 16;

struct Reader {
  size_t left = kMaxValues;
  std::string top;  // the name of what is read, for messages ("" for a state)

  std::string at(const Where& where) const {
    std::string inner = where.text();
    if (top.empty()) return inner.empty() ? "the state" : inner;
    return inner.empty() ? top : top + inner;
  }

  // A printable form of value for a message, short whatever value is: a container by its size
  // unless it is small and flat, text cut before it is quoted, anything else by its __repr__ cut.
  static std::string shown(py::handle value) {
    PyObject* o = value.ptr();
    // sizes from the real storage, never from a subclass's __len__; a subclass of a container
    // is shown by its size alone (its __repr__ is its own code, and may say anything)
    const bool listlike = PyList_Check(o) || PyTuple_Check(o);
    if (listlike || PyDict_Check(o) || PyAnySet_Check(o)) {
      const Py_ssize_t n = PyList_Check(o)    ? PyList_GET_SIZE(o)
                           : PyTuple_Check(o) ? PyTuple_GET_SIZE(o)
                           : PyDict_Check(o)  ? PyDict_GET_SIZE(o)
                                              : PySet_GET_SIZE(o);
      const bool exact = PyList_CheckExact(o) || PyTuple_CheckExact(o);
      bool flat = exact && n <= 8;
      // each entry read from the storage, held while it is looked at
      for (Py_ssize_t i = 0; flat && i < n; ++i) {
        PyObject* item = PyList_Check(o) ? PyList_GET_ITEM(o, i) : PyTuple_GET_ITEM(o, i);
        flat = PyLong_CheckExact(item) || PyBool_Check(item) || item == Py_None;
      }
      if (!flat)
        return "a " + type_name(value) + " of " + std::to_string(n) + (PyDict_Check(o) ? " keys" : " entries");
    }
    py::object shown_value = py::reinterpret_borrow<py::object>(value);
    if (PyUnicode_Check(o) && PyUnicode_GetLength(o) > 80) {
      PyObject* head = PyUnicode_Substring(o, 0, 77);
      if (!head) {
        PyErr_Clear();
        return "a text of " + std::to_string(PyUnicode_GetLength(o)) + " characters";
      }
      shown_value = py::reinterpret_steal<py::object>(head);
    }
    std::string text;
    try {
      text = std::string(py::repr(shown_value));
    } catch (py::error_already_set&) {
      text = "<a " + type_name(value) + " that cannot be printed>";
    }
    return text.size() > 80 ? text.substr(0, 77) + "..." : text;
  }

  [[noreturn]] void bad(const Where& where, const std::string& expected, py::handle value) const {
    throw BadState(at(where) + " should be " + expected + ", not " + shown(value));
  }

  void count(size_t n, const Where& where) {
    if (n > left)
      throw BadState(at(where) + " holds more values than any state of this game (" + std::to_string(kMaxValues) +
                     " at most in all)");
    left -= n;
  }

  template <class T>
  void read(py::handle value, T& out, const Where& where);
};

template <class T>
void Reader::read(py::handle value, T& out, const Where& where) {
  PyObject* o = value.ptr();
  count(1, where);
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Flag>) {
    if (!PyBool_Check(o)) bad(where, "true or false", value);
    out = static_cast<T>(o == Py_True);
  } else if constexpr (std::is_same_v<T, int>) {
    if (!PyLong_Check(o) || PyBool_Check(o)) bad(where, "a whole number", value);
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || v < -1000000000LL || v > 1000000000LL) bad(where, "a whole number of 9 digits at most", value);
    out = static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, std::string> || is_note<T>::value) {
    if (!PyUnicode_Check(o)) bad(where, "text", value);
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(o, &size);
    if (!utf8) {  // lone surrogates: no UTF-8 for them
      PyErr_Clear();
      bad(where, "text that UTF-8 can hold", value);
    }
    if constexpr (std::is_same_v<T, std::string>) {
      if (static_cast<size_t>(size) > kMaxValues) bad(where, "text of at most " + std::to_string(kMaxValues) + " bytes", value);
      out.assign(utf8, static_cast<size_t>(size));
    } else if (!out.assign(std::string(utf8, static_cast<size_t>(size)))) {
      bad(where, "text of at most " + std::to_string(T::capacity) + " characters", value);
    }
  } else if constexpr (std::is_enum_v<T>) {  // one of a few words (a phase): names(T) lists them
    const auto& words = names(T{});
    if (PyUnicode_Check(o)) {
      Py_ssize_t size = 0;
      const char* word = PyUnicode_AsUTF8AndSize(o, &size);
      if (!word) PyErr_Clear();
      // the whole text (a NUL inside it does not end the word: "keep\0anything" is no phase)
      for (size_t i = 0; word && i < words.size(); ++i)
        if (std::strlen(words[i]) == static_cast<size_t>(size) && std::memcmp(word, words[i], static_cast<size_t>(size)) == 0) {
          out = static_cast<T>(i);
          return;
        }
    }
    std::string all;
    for (const char* w : words) all += std::string(all.empty() ? "" : ", ") + "'" + w + "'";
    bad(where, "one of " + all, value);
  } else if constexpr (is_array<T>::value || is_vector<T>::value) {
    if (!PyList_Check(o) && !PyTuple_Check(o)) bad(where, "a list", value);
    const size_t n = static_cast<size_t>(PySequence_Fast_GET_SIZE(o));
    if constexpr (is_array<T>::value) {
      if (n != out.size()) bad(where, "a list of " + std::to_string(out.size()) + " entries", value);
    } else {
      count(n, where);  // refused before a single entry is read
      left += n;        // (each entry counts itself)
    }
    // the list is held, and each entry while it is read: a hostile key's __eq__ run by a lookup
    // below may change the list, which is then refused rather than read out of bounds
    py::object held_list = py::reinterpret_borrow<py::object>(value);
    T items{};
    if constexpr (is_vector<T>::value) items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (static_cast<size_t>(PySequence_Fast_GET_SIZE(o)) != n) bad(where, "a list that does not change while read", value);
      py::object entry = py::reinterpret_borrow<py::object>(PySequence_Fast_GET_ITEM(o, static_cast<Py_ssize_t>(i)));
      Where item{&where, nullptr, i};
      if constexpr (is_vector<T>::value) {
        typename T::value_type one{};
        read(entry, one, item);
        items.push_back(std::move(one));
      } else {
        read(entry, items[i], item);
      }
    }
    out = std::move(items);
  } else if constexpr (is_optional<T>::value) {
    if (value.is_none()) {
      out.reset();
    } else {
      typename T::value_type inner{};
      ++left;  // the same value, read once
      read(value, inner, where);
      out = std::move(inner);
    }
  } else if constexpr (has_fields<T>::value) {
    if (!PyDict_Check(o)) bad(where, "a dict", value);
    py::dict d = py::reinterpret_borrow<py::dict>(value);
    size_t known = 0;
    for_each_field(out, [&](const char* name, auto& member) {
      PyObject* found = PyDict_GetItemString(o, name);  // borrowed: held below while read
      Where field{&where, name, 0};
      if (!found) throw BadState(at(where) + " has no field '" + name + "'");
      py::object item = py::reinterpret_borrow<py::object>(found);
      read(item, member, field);
      ++known;
    });
    if (static_cast<size_t>(PyDict_Size(o)) != known) {
      std::string unknown;
      for (auto item : d) {
        bool is_field = false;
        if (PyUnicode_Check(item.first.ptr())) {
          const char* key = PyUnicode_AsUTF8(item.first.ptr());
          if (!key) PyErr_Clear();
          for_each_field(out, [&](const char* name, auto&) { is_field = is_field || (key && std::strcmp(key, name) == 0); });
        }
        if (!is_field) unknown += (unknown.empty() ? "" : ", ") + shown(item.first);
      }
      throw BadState(at(where) + " has fields the game does not know: " + unknown);
    }
  } else {
    static_assert(sizeof(T) == 0, "no reader for this field type");
  }
}

// Read value into out, strictly: `what` names it in messages ("" for a state, "the outcome").
template <class T>
void read_value(py::handle value, T& out, const std::string& what) {
  Reader reader;
  reader.top = what;
  reader.read(value, out, Where{});
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
