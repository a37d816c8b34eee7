#include "sim/coll/selection.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/algo/registry.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? text.size() : comma;
    std::string item = to_lower(text.substr(start, end - start));
    item.erase(std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }), item.end());
    if (item.empty()) throw std::invalid_argument(fmt::format("empty entry in \"{}\"", text));
    out.push_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// Resolves "auto", "a,b" and "^a,b" against `automatic` and the names `known`.
std::vector<std::string> resolve_choice(std::string_view text, const std::vector<std::string>& automatic,
                                 const std::vector<std::string>& known) {
  const std::string t = to_lower(text);
  if (t == "auto") return automatic;
  const bool negate = !t.empty() && t.front() == '^';
  std::vector<std::string> items = split_list(negate ? std::string_view(t).substr(1) : std::string_view(t));
  for (const auto& i : items) {
    if (std::find(known.begin(), known.end(), i) == known.end()) {
      throw std::invalid_argument(fmt::format("unknown entry \"{}\"", i));
    }
  }
  if (!negate) return items;
  std::vector<std::string> out;
  for (const auto& a : automatic) {
    if (std::find(items.begin(), items.end(), a) == items.end()) out.push_back(a);
  }
  if (out.empty()) throw std::invalid_argument(fmt::format("\"{}\" leaves no candidate", text));
  return out;
}

}  // namespace

std::vector<std::string> automatic_algorithms(CollectiveOp op) {
  std::vector<std::string> automatic;
  for (const AlgorithmInfo* a : algorithms()) {
    const bool tuned = a->nccl == NcclAlgorithm::Ring || a->nccl == NcclAlgorithm::Tree || a->nccl == NcclAlgorithm::Nvls ||
                       a->nccl == NcclAlgorithm::NvlsTree || a->nccl == NcclAlgorithm::Pat;
    if (tuned && a->implements(op)) automatic.emplace_back(a->name);
  }
  if (!automatic.empty()) return automatic;
  for (const AlgorithmInfo* a : algorithms()) {
    if (a->nccl == NcclAlgorithm::PointToPoint) automatic.emplace_back(a->name);
  }
  return automatic;
}

std::vector<std::string> parse_algorithm_list(std::string_view text, CollectiveOp op) {
  return resolve_choice(text, automatic_algorithms(op), algorithm_names());
}

std::vector<Protocol> parse_protocol_list(std::string_view text) {
  std::vector<Protocol> out;
  for (const auto& name : resolve_choice(text, {"ll", "ll128", "simple"}, enum_names<Protocol>())) {
    out.push_back(*protocol_from(name));
  }
  return out;
}

bool is_choice(std::string_view text) {
  const std::string t = to_lower(text);
  return t == "auto" || t.find(',') != std::string::npos || (!t.empty() && t.front() == '^');
}

bool is_auto(std::string_view text) { return to_lower(text) == "auto"; }

}  // namespace collsim
