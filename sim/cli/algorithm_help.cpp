// The --help footer of the commands that take --algo: every registered algorithm with its
// one-line description (sim/algo/registry.hpp), so a new algorithm shows up by itself.
#include <algorithm>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/cli/commands.hpp"

namespace collsim::cli {

std::string algorithm_help() {
  std::size_t width = 0;
  for (const AlgorithmInfo* a : algorithms()) width = std::max(width, a->name.size());
  std::string out = "Algorithms (--algo):";
  for (const AlgorithmInfo* a : algorithms()) out += fmt::format("\n  {:<{}}  {}", a->name, width, a->description);
  return out;
}

}  // namespace collsim::cli
