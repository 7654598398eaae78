// To Court the King: the rules' helpers its bots use too, internal to the game's folder (court.cc,
// the rules, and bots.cc, the heuristic bot, include it; nothing outside games/court/ does). One
// definition each: the tables are made in court.cc from its card table, the functions are inline.
#pragma once

#include <array>

#include "court.h"

namespace tablezoo::court::detail {

// ABILITY: the kinds with an ability to use, in kind order (the `use` actions); and each kind's
// index in it (-1: none), whose bit is the card's bit in State.ready (BIT). Defined in court.cc
// after kCards, from which they are made.
extern const std::array<int, kNumAbility> kAbility;
extern const std::array<int, kNumKinds> kAbilitySlot;

inline int bit(int kind) { return 1 << kAbilitySlot[kind]; }

inline int count_dice(const Counts& counts) {
  int total = 0;
  for (int c : counts) total += c;
  return total;
}

// Faces (as bits) of active dice the Philosopher can take pips from: a 2 or more, with
// another active die of 5 or less to receive them.
inline int philosopher_sources(const Counts& active) {
  const Card& philosopher = kCards[kPhilosopher];
  const Range targets = philosopher.targets;
  int receivers = 0;
  for (int face = targets.start; face < targets.stop; ++face) receivers += active[face];
  int out = 0;
  for (int face = philosopher.faces.start; face < philosopher.faces.stop; ++face)
    if (active[face] && receivers - (targets.contains(face) ? 1 : 0) > 0) out |= 1 << face;
  return out;
}

// Faces (as bits) of active dice the Astronomer can change: a set-aside die shows another value.
inline int astronomer_dice(const Counts& active, const Counts& aside) {
  int shown = 0, kinds = 0, active_bits = 0;
  for (int face = 0; face < 6; ++face) {
    if (aside[face]) shown |= 1 << face, ++kinds;
    if (active[face]) active_bits |= 1 << face;
  }
  if (kinds != 1) return shown ? active_bits : 0;  // none: nothing to copy; several: every die differs from one
  return active_bits & ~shown;
}

}  // namespace tablezoo::court::detail
