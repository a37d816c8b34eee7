#include "sim/core/work_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/version.hpp"
#include "sim/core/work_journal.hpp"

namespace collsim {

void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn) {
#ifdef __EMSCRIPTEN__
  threads = 1;
#endif
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t n = std::min<std::size_t>(threads, std::max<std::size_t>(count, 1));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

std::vector<std::size_t> work_order(const std::vector<WorkItem>& items, std::vector<std::size_t> pending) {
  std::stable_sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) { return items[a].weight > items[b].weight; });
  return pending;
}

nlohmann::json canonical_json(const nlohmann::json& value) { return nlohmann::json::parse(value.dump()); }

nlohmann::json work_error_to_json(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const ConfigError& e) {
    return {{"type", "config"}, {"source", e.source()}, {"field", e.field()}, {"value", e.value()}, {"expected", e.expected()}};
  } catch (const UnitError& e) {
    return {{"type", "unit"}, {"value", e.value()}, {"expected", e.expected()}};
  } catch (const OverflowError& e) {
    return {{"type", "overflow"}, {"message", e.what()}};
  } catch (const LimitError& e) {
    return {{"type", "limit"}, {"message", e.what()}};
  } catch (const InternalError& e) {
    return {{"type", "internal"}, {"message", e.what()}};
  } catch (const std::exception& e) {
    return {{"type", "other"}, {"message", e.what()}};
  } catch (...) {
    return {{"type", "other"}, {"message", "an exception that is not a std::exception"}};
  }
}

void throw_work_error(const nlohmann::json& error) {
  const std::string type = error.value("type", "other");
  auto text = [&](const char* key) { return error.value(key, std::string()); };
  if (type == "config") throw ConfigError(text("source"), text("field"), text("value"), text("expected"));
  if (type == "unit") throw UnitError(text("value"), text("expected"));
  if (type == "overflow") throw OverflowError(text("message"));
  if (type == "limit") throw LimitError(text("message"));
  if (type == "internal") throw InternalError(text("message"));
  throw std::runtime_error(text("message"));
}

std::string work_fingerprint(const std::vector<std::string>& parts) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a offset basis
  auto mix = [&h](const std::string& s) {
    for (const unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;  // FNV prime
    }
    // Lengths too, so that ("ab", "c") and ("a", "bc") differ.
    for (std::size_t n = s.size(), i = 0; i < 8; ++i, n >>= 8) {
      h ^= n & 0xff;
      h *= 1099511628211ULL;
    }
  };
  mix(version_string());
  for (const auto& p : parts) mix(p);
  return fmt::format("{:016x}", h);
}

std::vector<nlohmann::json> ThreadRunner::run(const std::vector<WorkItem>& items, const WorkFn& fn,
                                              const WorkOptions& options, WorkStats* stats) const {
  if (options.jobs < 1) throw InternalError("ThreadRunner: jobs must be >= 1");
  WorkStart start = start_work(items, options);
  const std::unique_ptr<WorkJournal>& journal = start.journal;
  std::vector<nlohmann::json>& results = start.results;
  const std::vector<std::size_t>& order = start.order;
  const std::size_t resumed = start.stats.resumed;
  if (stats) *stats = start.stats;
  std::vector<std::exception_ptr> errors(items.size());
  std::mutex progress_mutex;
  std::size_t done = resumed;
  parallel_for(order.size(), static_cast<unsigned>(std::max(1, options.jobs)), [&](std::size_t k) {
    const std::size_t i = order[k];
    const auto t0 = std::chrono::steady_clock::now();
    try {
      results[i] = canonical_json(fn(i));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (journal) journal->append(i, results[i], seconds);
    } catch (...) {
      errors[i] = std::current_exception();
    }
    if (options.progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      options.progress(++done, items.size());
    }
  });
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);  // the first failing item in item order
  }
  return std::move(start.results);
}

}  // namespace collsim
