// The shared pieces of the contract (core.h): dice.
#include "tablezoo/core.h"

namespace tablezoo {

namespace {

void compositions(int total, int parts, Counts& prefix, std::vector<Counts>& out) {
  if (parts == 1) {
    prefix.push_back(total);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int k = 0; k <= total; ++k) {
    prefix.push_back(k);
    compositions(total - k, parts - 1, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace

std::vector<std::pair<Counts, double>> roll_distribution(int num_dice) {
  std::vector<Counts> rolls;
  Counts prefix;
  compositions(num_dice, 6, prefix, rolls);
  auto factorial = [](int n) {
    uint64_t f = 1;
    for (int i = 2; i <= n; ++i) f *= static_cast<uint64_t>(i);
    return f;
  };
  uint64_t all = 1;
  for (int i = 0; i < num_dice; ++i) all *= 6;
  std::vector<std::pair<Counts, double>> out;
  out.reserve(rolls.size());
  for (auto& counts : rolls) {
    uint64_t ways = factorial(num_dice);
    for (int c : counts) ways /= factorial(c);
    // both numbers are exact in a double, so the quotient is the correctly rounded one,
    // as Python's int / int
    out.emplace_back(std::move(counts), static_cast<double>(ways) / static_cast<double>(all));
  }
  return out;
}

std::string dice_text(const Counts& counts, const std::array<const char*, 6>& names, bool highest_first) {
  std::string text;
  for (int k = 0; k < 6; ++k) {
    const int face = highest_first ? 5 - k : k;
    for (int i = 0; i < counts[face]; ++i) {
      if (!text.empty()) text += ' ';
      text += names[face];
    }
  }
  return text;
}

void check_roll(const Counts& counts, int num_dice) {
  if (counts.size() != 6) throw BadOutcome("a roll is six counts");
  int total = 0;
  for (int c : counts) {
    if (c < 0) throw BadOutcome("a roll's counts are not negative");
    total += c;
  }
  if (total != num_dice)
    throw BadOutcome("the roll must have " + std::to_string(num_dice) + " dice, not " + std::to_string(total));
}

}  // namespace tablezoo
