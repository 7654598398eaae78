// A state's fields walked through its `fields()` table (core.h), with no Python: written to a
// flat tape and read back (a serialisation the tests round-trip), and read from or written to
// bytes (the fuzzer's way to build a state field by field, and its seeds from real states).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tablezoo/core.h"

namespace tablezoo::testing {

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

// ----------------------------------------------------------------------------- the tape
// Numbers (lengths, presence flags and values) and texts, in the order the fields are walked.

struct Tape {
  std::vector<int64_t> numbers;
  std::vector<std::string> texts;
  bool operator==(const Tape& o) const { return numbers == o.numbers && texts == o.texts; }
  bool operator!=(const Tape& o) const { return !(*this == o); }
};

template <class T>
void write(const T& value, Tape& tape) {
  if constexpr (has_fields<T>::value) {
    for_each_field(value, [&](const char*, const auto& member) { write(member, tape); });
  } else if constexpr (is_optional<T>::value) {
    tape.numbers.push_back(value.has_value());
    if (value) write(*value, tape);
  } else if constexpr (is_vector<T>::value) {
    tape.numbers.push_back(static_cast<int64_t>(value.size()));
    for (const auto& item : value) write(item, tape);
  } else if constexpr (is_array<T>::value) {
    for (const auto& item : value) write(item, tape);
  } else if constexpr (is_note<T>::value) {
    tape.texts.push_back(value.str());
  } else if constexpr (std::is_same_v<T, std::string>) {
    tape.texts.push_back(value);
  } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
    tape.numbers.push_back(static_cast<int64_t>(value));
  } else {
    static_assert(sizeof(T) == 0, "no writer for this field type");
  }
}

struct TapeReader {
  const Tape& tape;
  size_t number = 0, text = 0;
  int64_t next() {
    if (number >= tape.numbers.size()) throw std::runtime_error("the tape ran out of numbers");
    return tape.numbers[number++];
  }
  std::string next_text() {
    if (text >= tape.texts.size()) throw std::runtime_error("the tape ran out of texts");
    return tape.texts[text++];
  }
  bool done() const { return number == tape.numbers.size() && text == tape.texts.size(); }
};

template <class T>
void read(T& value, TapeReader& in) {
  if constexpr (has_fields<T>::value) {
    for_each_field(value, [&](const char*, auto& member) { read(member, in); });
  } else if constexpr (is_optional<T>::value) {
    if (in.next()) {
      typename T::value_type inner{};
      read(inner, in);
      value = inner;
    } else {
      value.reset();
    }
  } else if constexpr (is_vector<T>::value) {
    const int64_t n = in.next();
    if (n < 0 || n > 1000000) throw std::runtime_error("a list length out of range on the tape");
    value.assign(static_cast<size_t>(n), typename T::value_type{});
    for (auto& item : value) read(item, in);
  } else if constexpr (is_array<T>::value) {
    for (auto& item : value) read(item, in);
  } else if constexpr (is_note<T>::value) {
    if (!value.assign(in.next_text())) throw std::runtime_error("a text too long for its note");
  } else if constexpr (std::is_same_v<T, std::string>) {
    value = in.next_text();
  } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Flag>) {
    // as the JSON reader: true or false only
    const int64_t x = in.next();
    if (x != 0 && x != 1) throw std::runtime_error("a yes/no that is neither on the tape");
    value = static_cast<T>(x);
  } else if constexpr (std::is_enum_v<T>) {
    // as the JSON reader: one of the enum's words only
    const int64_t x = in.next();
    if (x < 0 || x >= static_cast<int64_t>(names(T{}).size())) throw std::runtime_error("an enum out of its words");
    value = static_cast<T>(x);
  } else if constexpr (std::is_same_v<T, int>) {
    // as the JSON reader: 9 digits at most
    const int64_t x = in.next();
    if (x < -1000000000 || x > 1000000000) throw std::runtime_error("a number of more than 9 digits");
    value = static_cast<int>(x);
  } else {
    static_assert(sizeof(T) == 0, "no reader for this field type");
  }
}

template <class T>
Tape tape_of(const T& value) {
  Tape tape;
  write(value, tape);
  return tape;
}

// Whether two states (or outcomes) have the same fields, walked.
template <class T>
bool same(const T& a, const T& b) {
  return tape_of(a) == tape_of(b);
}

// The fields as text, for a failure's message: `name=value` each, lists in brackets.
template <class T>
void print(const T& value, std::string& out) {
  if constexpr (has_fields<T>::value) {
    out += "{";
    bool first = true;
    for_each_field(value, [&](const char* name, const auto& member) {
      out += std::string(first ? "" : " ") + name + "=";
      first = false;
      print(member, out);
    });
    out += "}";
  } else if constexpr (is_optional<T>::value) {
    if (value)
      print(*value, out);
    else
      out += "None";
  } else if constexpr (is_vector<T>::value || is_array<T>::value) {
    out += "[";
    for (size_t i = 0; i < value.size(); ++i) {
      if (i) out += ",";
      print(value[i], out);
    }
    out += "]";
  } else if constexpr (is_note<T>::value) {
    out += "'" + value.str() + "'";
  } else if constexpr (std::is_same_v<T, std::string>) {
    out += "'" + value + "'";
  } else if constexpr (std::is_enum_v<T> && !std::is_same_v<T, Flag>) {
    out += names(T{})[static_cast<size_t>(value)];
  } else {
    out += std::to_string(static_cast<long long>(value));
  }
}

template <class T>
std::string describe(const T& value) {
  std::string out;
  print(value, out);
  return out;
}

// ----------------------------------------------------------------------------- bytes
// A state from arbitrary bytes, field by field: whole numbers biased to small ranges, list
// lengths bounded, enums by index into their words (the only values the JSON reader makes),
// notes short. Where the bytes run out every read is 0. `encode` writes the bytes that read
// back as a given state, so real states seed the fuzzer.

struct Bytes {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  uint8_t byte() { return at < size ? data[at++] : 0; }
  bool empty() const { return at >= size; }
  uint32_t word() {
    uint32_t w = 0;
    for (int i = 0; i < 4; ++i) w = w << 8 | byte();
    return w;
  }
  // a whole number: 0..59 -> -4..55; 60..187 -> 0..127; 188..254 -> -(1..67); 255 -> 4 bytes,
  // as the JSON reader takes them (9 digits at most)
  int number() {
    const int k = byte();
    if (k < 60) return k - 4;
    if (k < 188) return k - 60;
    if (k < 255) return -(k - 187);
    const int64_t w = static_cast<int32_t>(word());
    return static_cast<int>(w % 1000000001);
  }
  // a list's length, 0..kMaxLength
  static constexpr size_t kMaxLength = 200;
  size_t length() { return byte() % (kMaxLength + 1); }
};

struct ByteWriter {
  std::vector<uint8_t> out;
  void byte(int b) { out.push_back(static_cast<uint8_t>(b)); }
  void number(int v) {
    if (v >= -4 && v <= 55) return byte(v + 4);
    if (v >= 0 && v <= 127) return byte(v + 60);
    if (v >= -67 && v <= -1) return byte(187 - v);
    byte(255);
    const uint32_t w = static_cast<uint32_t>(v);
    for (int i = 3; i >= 0; --i) byte(static_cast<int>(w >> (8 * i) & 0xFF));
  }
  void length(size_t n) {
    if (n > Bytes::kMaxLength) throw std::runtime_error("a list too long to encode");
    byte(static_cast<int>(n));
  }
};

template <class E>
constexpr size_t word_count() {
  return names(E{}).size();
}

template <class T>
void decode(T& value, Bytes& in) {
  if constexpr (has_fields<T>::value) {
    for_each_field(value, [&](const char*, auto& member) { decode(member, in); });
  } else if constexpr (is_optional<T>::value) {
    if (in.byte() & 1) {
      typename T::value_type inner{};
      decode(inner, in);
      value = inner;
    } else {
      value.reset();
    }
  } else if constexpr (is_vector<T>::value) {
    value.assign(in.length(), typename T::value_type{});
    for (auto& item : value) decode(item, in);
  } else if constexpr (is_array<T>::value) {
    for (auto& item : value) decode(item, in);
  } else if constexpr (is_note<T>::value) {
    value.clear();
    const size_t n = in.byte() % 24;
    for (size_t i = 0; i < n; ++i) value += static_cast<char>('a' + in.byte() % 26);
  } else if constexpr (std::is_same_v<T, std::string>) {
    value.clear();
    const size_t n = in.byte() % 24;
    for (size_t i = 0; i < n; ++i) value += static_cast<char>('a' + in.byte() % 26);
  } else if constexpr (std::is_same_v<T, bool>) {
    value = in.byte() & 1;
  } else if constexpr (std::is_same_v<T, Flag>) {
    value = (in.byte() & 1) ? kYes : kNo;
  } else if constexpr (std::is_enum_v<T>) {
    value = static_cast<T>(in.byte() % word_count<T>());
  } else if constexpr (std::is_same_v<T, int>) {
    value = in.number();
  } else {
    static_assert(sizeof(T) == 0, "no decoder for this field type");
  }
}

template <class T>
void encode(const T& value, ByteWriter& out) {
  if constexpr (has_fields<T>::value) {
    for_each_field(value, [&](const char*, const auto& member) { encode(member, out); });
  } else if constexpr (is_optional<T>::value) {
    out.byte(value.has_value());
    if (value) encode(*value, out);
  } else if constexpr (is_vector<T>::value) {
    out.length(value.size());
    for (const auto& item : value) encode(item, out);
  } else if constexpr (is_array<T>::value) {
    for (const auto& item : value) encode(item, out);
  } else if constexpr (is_note<T>::value || std::is_same_v<T, std::string>) {
    // the text itself is for people: a short stand-in of letters keeps seeds small
    out.byte(0);
  } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, Flag>) {
    out.byte(value ? 1 : 0);
  } else if constexpr (std::is_enum_v<T>) {
    out.byte(static_cast<int>(value));
  } else if constexpr (std::is_same_v<T, int>) {
    out.number(value);
  } else {
    static_assert(sizeof(T) == 0, "no encoder for this field type");
  }
}

// The state with its texts emptied (what encode then decode gives back).
template <class T>
void clear_texts(T& value) {
  if constexpr (has_fields<T>::value) {
    for_each_field(value, [&](const char*, auto& member) { clear_texts(member); });
  } else if constexpr (is_optional<T>::value) {
    if (value) clear_texts(*value);
  } else if constexpr (is_vector<T>::value || is_array<T>::value) {
    for (auto& item : value) clear_texts(item);
  } else if constexpr (is_note<T>::value || std::is_same_v<T, std::string>) {
    value.clear();
  }
}

}  // namespace tablezoo::testing
