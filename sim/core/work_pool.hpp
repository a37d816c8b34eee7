// A batch of independent work items (a plan's clusters x world sizes, a sweep's world
// sizes) run by a WorkRunner: threads of this process (ThreadRunner) or, in collsim-mpi,
// the ranks of an MPI job. Each item's result is a JSON value; results come back in item
// order whatever ran them, so a command's output does not depend on the runner, the thread
// count or the rank count. With a journal every finished item is appended to a JSON-lines
// file as it finishes, and a resumed run takes those results instead of recomputing them.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collsim {

struct WorkItem {
  std::string key;   // names the item in the journal ("H100-rail/1024"); unique in a batch
  double weight = 0;  // expected cost: heavier items start first (ties: item order)
};

using WorkFn = std::function<nlohmann::json(std::size_t item)>;
// Items finished so far (journaled ones included) and the batch's size; called serialised,
// once per item evaluated in this run (not for journaled ones).
using WorkProgress = std::function<void(std::size_t done, std::size_t total)>;

struct WorkOptions {
  int jobs = 1;             // threads evaluating items in this process (>= 1)
  std::string journal;      // JSON-lines file of finished items; empty = none
  bool resume = false;      // take the journal's finished items (a missing journal starts fresh)
  std::string command;      // "plan", "sweep": recorded in the journal's first line
  std::string fingerprint;  // the inputs' digest (work_fingerprint): a journal of other inputs is refused
  WorkProgress progress;
};

// What a run did: items taken from the journal, items evaluated now.
struct WorkStats {
  std::size_t resumed = 0;
  std::size_t evaluated = 0;
};

// Calls fn(0) .. fn(count - 1) on up to `threads` threads of this process (this one
// included; 0: one per core; always one in the WebAssembly build, which has no threads),
// each index once, in no fixed order. Every index runs even when some throw; then the
// error of the lowest failing index is rethrown.
void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn);

class WorkRunner {
 public:
  virtual ~WorkRunner() = default;
  // One result per item, in item order. When items fail, every other item still runs (and
  // is journaled) and the error of the first failing item in item order is thrown, as
  // the same exception type and message whatever ran it.
  [[nodiscard]] virtual std::vector<nlohmann::json> run(const std::vector<WorkItem>& items, const WorkFn& fn,
                                                        const WorkOptions& options, WorkStats* stats = nullptr) const = 0;
};

// Items on options.jobs threads of this process.
class ThreadRunner final : public WorkRunner {
 public:
  [[nodiscard]] std::vector<nlohmann::json> run(const std::vector<WorkItem>& items, const WorkFn& fn,
                                                const WorkOptions& options, WorkStats* stats = nullptr) const override;
};

// The order in which a runner hands out `pending` items: heaviest first, then item order.
[[nodiscard]] std::vector<std::size_t> work_order(const std::vector<WorkItem>& items, std::vector<std::size_t> pending);

// A value as it reads back from its JSON text (doubles round-trip exactly): results are
// stored in this form, so a fresh, a resumed and a remote result are the same bytes.
[[nodiscard]] nlohmann::json canonical_json(const nlohmann::json& value);

// An item's error as JSON and back, for results that travel between processes: collsim's
// error types keep their type and fields, anything else becomes a std::runtime_error with
// the same message.
[[nodiscard]] nlohmann::json work_error_to_json(const std::exception_ptr& error);
[[noreturn]] void throw_work_error(const nlohmann::json& error);

// A 64-bit FNV-1a digest of `parts` and collsim's version, as 16 hex digits: what a
// journal records of the inputs that produced it.
[[nodiscard]] std::string work_fingerprint(const std::vector<std::string>& parts);

}  // namespace collsim
