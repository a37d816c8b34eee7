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

// What a journal's text holds for a batch whose first line must be `header`: the results
// of its whole lines by item, and how many bytes those whole lines take (what follows is
// a cut-off last line). An empty text, or one without a whole first line, holds nothing.
// Throws ConfigError naming `path` and the line for anything collsim did not write.
struct JournalContent {
  std::vector<std::optional<nlohmann::json>> finished;
  std::size_t whole_bytes = 0;
  bool has_header = false;
};
[[nodiscard]] JournalContent read_work_journal(const std::string& text, const std::string& path, const std::string& header,
                                               const std::vector<WorkItem>& items);

// The first line of a batch's journal, as options and the item count make it.
[[nodiscard]] std::string work_journal_header(const WorkOptions& options, std::size_t items);

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
