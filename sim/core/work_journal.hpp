// The journal of a batch of work items (work_pool.hpp): a JSON-lines file whose first line
// names the command, the inputs' fingerprint and the item count, then one line per
// finished item {"item": i, "key": ..., "seconds": wall time, "result": ...}, appended as
// each finishes. A killed run leaves whole lines plus at most one cut-off last line, which
// a resume drops. Errors (a journal of other inputs, a damaged line, an unwritable file)
// are ConfigErrors naming --journal or the file and line.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/atomic_file.hpp"
#include "sim/core/work_pool.hpp"

namespace collsim {

class WorkJournal {
 public:
  // Opens options.journal for `items`. Without options.resume the file must not exist
  // (a finished run's journal is never overwritten by accident); with it, an existing
  // journal is read and must match the command, fingerprint and items.
  WorkJournal(const WorkOptions& options, const std::vector<WorkItem>& items);

  // The results read back at opening, by item (nullopt: still to do).
  [[nodiscard]] const std::vector<std::optional<nlohmann::json>>& finished() const { return finished_; }
  // Appends item `item`'s result (thread-safe); `seconds` is its wall time.
  void append(std::size_t item, const nlohmann::json& result, double seconds);

 private:
  void read_existing(const std::string& text, const std::vector<WorkItem>& items);

  std::string path_;
  std::string header_;
  std::vector<std::string> keys_;
  std::vector<std::optional<nlohmann::json>> finished_;
  std::unique_ptr<RecordFile> file_;
  std::mutex mutex_;
};

// A batch as a runner starts it: the journal open (when options name one), the results it
// already holds in their slots, and the items still to run in hand-out order.
struct WorkStart {
  std::unique_ptr<WorkJournal> journal;
  std::vector<nlohmann::json> results;  // one per item; filled for journaled items
  std::vector<std::size_t> order;       // the items to run now (work_order)
  WorkStats stats;
};
[[nodiscard]] WorkStart start_work(const std::vector<WorkItem>& items, const WorkOptions& options);

}  // namespace collsim
