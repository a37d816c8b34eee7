#include "sim/mpi/mpi_runner.hpp"

#include <time.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>

#include "sim/core/error.hpp"
#include "sim/core/work_journal.hpp"

namespace collsim {

namespace {

// Worker -> rank 0: {"item": i, "result" | "error": ..., "seconds": s} for the item it
// finished, or {} for its first request. Rank 0 answers each with the next item's index
// (kNoItem: none left). A worker rank whose threads have all been told kNoItem sends
// kTagFinished once (with the reason as text when it never served).
constexpr int kTagRequest = 1;
constexpr int kTagReply = 2;
constexpr int kTagFinished = 3;
constexpr long long kNoItem = -1;
// Rank 0 polls for requests between naps so that its own item threads keep the core.
constexpr auto kPollNap = std::chrono::microseconds(200);

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw InternalError(std::string("MPI: ") + what + " failed");
}

void send_text(MPI_Comm comm, int dest, int tag, const std::string& text) {
  check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, dest, tag, comm), "MPI_Send");
}

std::string receive_text(MPI_Comm comm, const MPI_Status& probed) {
  int count = 0;
  check(MPI_Get_count(&probed, MPI_CHAR, &count), "MPI_Get_count");
  std::string text(static_cast<std::size_t>(count), '\0');
  check(MPI_Recv(text.data(), count, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  return text;
}

// CPU time of the calling thread: rank 0's cost per result without the time it waited for
// a core (a machine with more ranks than cores inflates the wall time).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

MpiRunner::MpiRunner(MPI_Comm comm, bool threads_may_call) : comm_(comm), threads_may_call_(threads_may_call) {
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

std::vector<nlohmann::json> MpiRunner::run(const std::vector<WorkItem>& items, const WorkFn& fn, const WorkOptions& options,
                                           WorkStats* stats) const {
  if (rank_ != 0) serve(fn, options);
  return coordinate(items, fn, options, stats);
}

std::vector<nlohmann::json> MpiRunner::coordinate(const std::vector<WorkItem>& items, const WorkFn& fn,
                                                  const WorkOptions& options, WorkStats* stats) const {
  std::vector<std::exception_ptr> errors(items.size());
  // A journal that cannot be used ends the run, but only after every rank has been told so.
  WorkStart start;
  std::exception_ptr setup_error;
  try {
    start = start_work(items, options);
    if (stats) *stats = start.stats;
  } catch (...) {
    setup_error = std::current_exception();
    start.results.resize(items.size());
  }
  const std::unique_ptr<WorkJournal>& journal = start.journal;
  std::vector<nlohmann::json>& results = start.results;
  const std::vector<std::size_t>& order = start.order;

  std::mutex mutex;  // next, done, results, errors, progress
  std::size_t next = 0;
  std::size_t done = items.size() - order.size();
  auto take = [&]() -> std::optional<std::size_t> {
    const std::lock_guard<std::mutex> lock(mutex);
    if (next < order.size()) return order[next++];
    return std::nullopt;
  };
  auto record = [&](std::size_t i, std::optional<nlohmann::json> result, std::exception_ptr error, double seconds) {
    if (result && journal) {
      try {
        journal->append(i, *result, seconds);
      } catch (...) {
        error = std::current_exception();
      }
    }
    const std::lock_guard<std::mutex> lock(mutex);
    if (result) results[i] = std::move(*result);
    errors[i] = error;
    if (options.progress) options.progress(++done, items.size());
  };
  auto local_worker = [&] {
    while (const auto i = take()) {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        record(*i, canonical_json(fn(*i)), nullptr, seconds_since(t0));
      } catch (...) {
        record(*i, std::nullopt, std::current_exception(), 0);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, options.jobs); ++t) threads.emplace_back(local_worker);

  // Serve the other ranks until each has said it is finished. Only this thread calls MPI.
  int finished = 0;
  std::size_t handled = 0;  // requests answered, and the wall and CPU time spent receiving,
  double handling = 0;      // parsing, journaling and answering them: rank 0's cost per result
  double handling_cpu = 0;
  while (finished < size_ - 1) {
    int flag = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status), "MPI_Iprobe");
    if (flag == 0) {
      std::this_thread::sleep_for(kPollNap);
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = thread_cpu_seconds();
    const std::string text = receive_text(comm_, status);
    if (status.MPI_TAG == kTagFinished) {
      ++finished;
      if (!text.empty()) spdlog::warn("rank {} did not take part: {}", status.MPI_SOURCE, text);
      continue;
    }
    const nlohmann::json message = nlohmann::json::parse(text);
    if (message.contains("item")) {
      const auto i = message.at("item").get<std::size_t>();
      if (message.contains("error")) {
        std::exception_ptr error;
        try {
          throw_work_error(message.at("error"));
        } catch (...) {
          error = std::current_exception();
        }
        record(i, std::nullopt, error, 0);
      } else {
        record(i, message.at("result"), nullptr, message.value("seconds", 0.0));
      }
    }
    const auto i = take();
    const long long reply = i ? static_cast<long long>(*i) : kNoItem;
    check(MPI_Send(&reply, 1, MPI_LONG_LONG, status.MPI_SOURCE, kTagReply, comm_), "MPI_Send");
    ++handled;
    handling += seconds_since(t0);
    handling_cpu += thread_cpu_seconds() - cpu0;
  }
  for (auto& t : threads) t.join();
  spdlog::debug("rank 0 answered {} requests from {} ranks in {:.6f} s wall, {:.6f} s CPU", handled, size_ - 1, handling,
                handling_cpu);
  if (setup_error) std::rethrow_exception(setup_error);
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);  // the first failing item in item order
  }
  return std::move(start.results);
}

void MpiRunner::serve(const WorkFn& fn, const WorkOptions& options) const {
  std::mutex mpi;  // one thread at a time talks to rank 0 (MPI_THREAD_SERIALIZED)
  auto worker = [&] {
    nlohmann::json message = nlohmann::json::object();
    for (;;) {
      long long item = kNoItem;
      {
        const std::lock_guard<std::mutex> lock(mpi);
        send_text(comm_, 0, kTagRequest, message.dump());
        check(MPI_Recv(&item, 1, MPI_LONG_LONG, 0, kTagReply, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
      }
      if (item == kNoItem) return;
      const auto t0 = std::chrono::steady_clock::now();
      message = {{"item", item}};
      try {
        message["result"] = fn(static_cast<std::size_t>(item));
      } catch (...) {
        message["error"] = work_error_to_json(std::current_exception());
      }
      message["seconds"] = seconds_since(t0);
    }
  };
  const int n = threads_may_call_ ? std::max(1, options.jobs) : 1;
  std::vector<std::thread> threads;
  for (int t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  served_ = true;
  send_text(comm_, 0, kTagFinished, "");
  throw WorkerRankDone();
}

void MpiRunner::leave_without_serving(const std::string& why) const {
  if (rank_ == 0 || served_.exchange(true)) return;
  send_text(comm_, 0, kTagFinished, why.empty() ? std::string("it stopped before its first item") : why);
}

}  // namespace collsim
