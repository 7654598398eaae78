// The shared pieces of the contract (core.h): dice.
#include "tablezoo/core.h"

namespace tablezoo {

namespace {

void compositions(int total, int part, Counts& prefix, std::vector<Counts>& out) {
  if (part == 5) {
    prefix[5] = total;
    out.push_back(prefix);
    return;
  }
  for (int k = 0; k <= total; ++k) {
    prefix[part] = k;
    compositions(total - k, part + 1, prefix, out);
  }
}

}  // namespace

std::vector<std::pair<Counts, double>> roll_distribution(int num_dice) {
  std::vector<Counts> rolls;
  Counts prefix{};
  compositions(num_dice, 0, prefix, rolls);
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

void check_roll(const Counts& counts, int num_dice) {
  int total = 0;
  for (int c : counts) {
    if (c < 0) throw BadOutcome("a roll's counts are not negative");
    total += c;
  }
  if (total != num_dice)
    throw BadOutcome("the roll must have " + std::to_string(num_dice) + " dice, not " + std::to_string(total));
}

}  // namespace tablezoo
