#include "sim/core/size_list.hpp"

#include <string>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {
constexpr std::string_view kExpected =
    "a size (\"1MiB\"), a comma list (\"1KiB,4KiB\") or a range \"MIN:MAX\" (\"1KiB:1GiB\") with units B, KB..TB, "
    "KiB..TiB, each at most 1024TiB (2^50 B)";
}

std::vector<Bytes> parse_size_list(std::string_view text, double factor) {
  const std::string quoted = in_quotes(text);
  auto one = [&](std::string_view part) {
    Bytes b;
    try {
      b = parse_size(part);
    } catch (const UnitError&) {
      throw UnitError(quoted, std::string(kExpected));
    }
    if (b > kMaxMessageBytes) throw UnitError(quoted, std::string(kExpected));
    return b;
  };
  std::vector<Bytes> out;
  if (text.empty()) throw UnitError(quoted, std::string(kExpected));
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    const Bytes lo = one(text.substr(0, colon));
    const Bytes hi = one(text.substr(colon + 1));
    if (hi < lo) throw UnitError(quoted, "a range MIN:MAX with MIN <= MAX");
    if (!(factor > 1.0)) throw UnitError(fmt::format("factor {}", factor), "a --factor greater than 1 for a range");
    for (double s = static_cast<double>(lo.count); s <= static_cast<double>(hi.count) * (1 + 1e-12); s *= factor) {
      out.push_back(Bytes{static_cast<std::int64_t>(s + 0.5)});
      if (out.size() > 100000) throw UnitError(quoted, "a range of at most 100000 sizes");
    }
    return out;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const auto part = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    out.push_back(one(part));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace collsim
