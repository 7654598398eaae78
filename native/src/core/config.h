// A game's configuration checked when the game is built: a direct build of the core (not
// through tablezoo.games.make, whose Python reference checks the same) must not get past a
// seat count out of range or an option the game does not have either.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>

#include "tablezoo/core.h"

namespace tablezoo {

// Refuse a seat count outside min_seats..max_seats and an option not named in `known` with
// BadConfig (core.h: the Python engine's ConfigError), in the reference's words.
inline void check_config(const char* title, int num_seats, int min_seats, int max_seats, const Options& options,
                         std::initializer_list<const char*> known) {
  if (num_seats < min_seats || num_seats > max_seats)
    throw BadConfig(std::string(title) + " is for " + std::to_string(min_seats) + " to " + std::to_string(max_seats) +
                    " players, not " + std::to_string(num_seats));
  std::string unknown;
  for (const auto& [name, on] : options) {
    bool found = false;
    for (const char* k : known) found = found || name == k;
    if (!found) unknown += std::string(unknown.empty() ? "" : ", ") + "'" + name + "'";
  }
  if (unknown.empty()) return;
  std::string allowed;
  for (const char* k : known) allowed += std::string(allowed.empty() ? "" : ", ") + k;
  throw BadConfig(std::string(title) + " has no option " + unknown + "; its options are: " +
                  (allowed.empty() ? "none" : allowed));
}

// An option's value: its default where it is not given.
inline bool option(const Options& options, const char* name, bool fallback = false) {
  const auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

}  // namespace tablezoo
