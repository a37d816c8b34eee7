// One table of an enum's names: every enum that is read from or written to text (JSON
// fields, command-line values, report columns) declares its names once, as a NameTable,
// and asks it both ways. Names are unique in a table; parse() is exact (case-sensitive)
// unless the caller folds case first.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collsim {

template <typename E, std::size_t N>
class NameTable {
 public:
  using Entry = std::pair<E, std::string_view>;

  constexpr explicit NameTable(const std::array<Entry, N>& entries) : entries_(entries) {}

  // The name of e; "?" for a value the table does not hold (a cast from a bad integer).
  [[nodiscard]] constexpr std::string_view name(E e) const {
    for (const auto& [value, text] : entries_) {
      if (value == e) return text;
    }
    return "?";
  }

  [[nodiscard]] constexpr std::optional<E> parse(std::string_view s) const {
    for (const auto& [value, text] : entries_) {
      if (text == s) return value;
    }
    return std::nullopt;
  }

  // Every name, in the table's order (for --help, error messages and enumerations).
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(N);
    for (const auto& entry : entries_) out.emplace_back(entry.second);
    return out;
  }

  [[nodiscard]] constexpr const std::array<Entry, N>& entries() const { return entries_; }

 private:
  std::array<Entry, N> entries_;
};

// name_table<E>({{E::A, "a"}, {E::B, "b"}}): the size comes from the list.
template <typename E, std::size_t N>
constexpr NameTable<E, N> name_table(const std::pair<E, std::string_view> (&entries)[N]) {
  std::array<std::pair<E, std::string_view>, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = entries[i];
  return NameTable<E, N>(out);
}

}  // namespace collsim
