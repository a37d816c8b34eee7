// The rule every collsim fuzz target checks: a parser given any bytes either returns or
// throws the errors that become collsim's exit-2 message (ConfigError, UnitError, and
// OverflowError and LimitError for inputs in range whose combination is too big).
// Anything else -- another exception (the CLI's "internal error"), a sanitizer report,
// a crash, a hang past libFuzzer's -timeout, memory past -rss_limit_mb -- is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sim/core/error.hpp"

namespace collsim::fuzz {

// The file name parsers put in their messages.
inline const std::string kSource = "fuzz-input";

template <class Parse>
int run_parser(const std::uint8_t* data, std::size_t size, Parse&& parse) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const ConfigError&) {
  } catch (const UnitError&) {
  } catch (const OverflowError&) {
  } catch (const LimitError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collsim fuzz: unexpected exception (internal error at the CLI): %s\n", e.what());
    std::abort();
  }
  return 0;
}

}  // namespace collsim::fuzz
