// One table of an enum's names. An enum that is read from or written to text (JSON fields,
// command-line values, report columns) declares its names once, next to its declaration:
//
//   enum class LinkKind : std::uint8_t { NvLink, Pcie };
//   template <>
//   inline constexpr auto kEnumNames<LinkKind> = names_in_order<LinkKind>({"nvlink", "pcie"});
//
// and every caller asks the generic to_string(e), enum_from<E>(text) and enum_names<E>().
// A table that is not an enum's own text (a Graphviz shape per node kind) is a local
// NameTable. Names are unique in a table; parsing is exact (case-sensitive) unless the
// caller folds case first.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
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

 private:
  std::array<Entry, N> entries_;
};

// name_table<E>({{E::A, "a"}, {E::B, "b"}}): explicit pairs; the size comes from the list.
template <typename E, std::size_t N>
constexpr NameTable<E, N> name_table(const std::pair<E, std::string_view> (&entries)[N]) {
  std::array<std::pair<E, std::string_view>, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = entries[i];
  return NameTable<E, N>(out);
}

// names_in_order<E>({"a", "b"}): the names of E's values 0, 1, ... in declaration order (an
// enum whose enumerators take the default values).
template <typename E, std::size_t N>
constexpr NameTable<E, N> names_in_order(const std::string_view (&names)[N]) {
  std::array<std::pair<E, std::string_view>, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = {static_cast<E>(i), names[i]};
  return NameTable<E, N>(out);
}

// An enum's names: specialised next to each named enum with its NameTable.
struct NoEnumNames {};
template <typename E>
inline constexpr NoEnumNames kEnumNames{};

template <typename E>
concept NamedEnum = std::is_enum_v<E> && !std::same_as<std::remove_cv_t<decltype(kEnumNames<E>)>, NoEnumNames>;

template <NamedEnum E>
[[nodiscard]] constexpr std::string_view to_string(E e) {
  return kEnumNames<E>.name(e);
}

template <NamedEnum E>
[[nodiscard]] constexpr std::optional<E> enum_from(std::string_view s) {
  return kEnumNames<E>.parse(s);
}

template <NamedEnum E>
[[nodiscard]] std::vector<std::string> enum_names() {
  return kEnumNames<E>.names();
}

}  // namespace collsim
