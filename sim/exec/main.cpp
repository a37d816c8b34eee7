// collsim-exec: runs a collsim Schedule for real between processes over TCP (one process
// per host, rendezvous on rank 0), on float buffers whose result is checked, and writes
// the measured time of each collective as one JSON line (rank 0) for `collsim validate`.
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <iostream>
#include <numeric>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/algo/registry.hpp"
#include "sim/algo/symbolic_executor.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/size_list.hpp"
#include "sim/core/unit_parse.hpp"
#include "sim/core/version.hpp"
#include "sim/exec/exec_error.hpp"
#include "sim/exec/exec_session.hpp"
#include "sim/exec/handshake.hpp"
#include "sim/exec/mesh.hpp"

namespace {

struct Args {
  int rank = 0;
  int world = 0;
  int local = 0;
  std::string master = "127.0.0.1:29600";
  std::string bind;
  std::string op = "allreduce";
  std::string algos = std::string(collsim::default_algorithm());
  std::string sizes = "1MiB";
  double factor = 2.0;
  int warmup = 1;
  int iters = 5;
  std::string timeout = "60s";
  std::string congestion;
  std::string socket_buffer;
  std::string label;
  std::string topology;
  std::string output;
  std::string token;
  bool per_iteration = false;
  bool per_transfer = false;
};

struct Stats {
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0;
};

Stats stats_us(std::vector<double> s) {
  for (double& v : s) v *= 1e6;
  Stats st;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  st.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  st.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(n);
  st.min = s.front();
  st.max = s.back();
  double ss = 0;
  for (double v : s) ss += (v - st.mean) * (v - st.mean);
  st.stddev = n > 1 ? std::sqrt(ss / static_cast<double>(n - 1)) : 0.0;
  return st;
}

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b <= s.size()) {
    const std::size_t e = s.find(',', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}

// A free TCP port on 127.0.0.1 for --local runs.
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// The --local children. On any error of the parent they are killed and reaped, so that
// none waits for a rendezvous that will not come (until its timeout) or outlives the run.
struct Children {
  std::vector<pid_t> pids;
  Children() = default;
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;
  ~Children() {
    for (pid_t pid : pids) ::kill(pid, SIGKILL);
    for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
  }
  // Waits for every child to exit on its own; false when one failed.
  bool wait_all() {
    bool ok = true;
    for (pid_t pid : pids) {
      int status = 0;
      if (::waitpid(pid, &status, 0) != pid || !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) ok = false;
    }
    pids.clear();
    return ok;
  }
};

// A fresh token for a --local run: 16 random bytes as hex.
std::string random_token() {
  unsigned char b[16];
  std::size_t got = 0;
  while (got < sizeof b) {
    const ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
    if (n < 0 && errno != EINTR) throw std::runtime_error(fmt::format("getrandom: {}", std::strerror(errno)));
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  std::string out;
  for (unsigned char c : b) out += fmt::format("{:02x}", c);
  return out;
}

// What every rank must agree on, one "OPTION VALUE" line each (compared at the hello).
// Sizes as resolved byte counts, so 1MiB and 1048576B agree.
std::string run_params(const Args& a, const std::vector<collsim::Bytes>& sizes) {
  std::vector<std::int64_t> counts;
  for (const auto& b : sizes) counts.push_back(b.count);
  std::string list = fmt::format("{}", fmt::join(counts, ","));
  if (list.size() > 2000) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a: long lists are compared by a digest
    for (unsigned char c : list) h = (h ^ c) * 1099511628211ull;
    list = fmt::format("{} sizes {}..{} (digest {:016x})", counts.size(), counts.front(), counts.back(), h);
  }
  return fmt::format("version {}\n--op {}\n--algo {}\n--sizes {}\n--warmup {}\n--iters {}\n", collsim::version_string(),
                     a.op, a.algos, list, a.warmup, a.iters);
}

int run(Args a) {
  using collsim::ConfigError;
  const auto op = collsim::enum_from<collsim::CollectiveOp>(a.op);
  if (!op) throw ConfigError("--op", "", a.op, fmt::format("one of: {}", fmt::join(collsim::enum_names<collsim::CollectiveOp>(), ", ")));
  const auto algos = split(a.algos);
  for (const auto& al : algos) {
    if (!collsim::is_algorithm(al)) {
      throw ConfigError("--algo", "", al, fmt::format("one of: {}", fmt::join(collsim::algorithm_names(), ", ")));
    }
    if (!collsim::supports(al, *op)) throw ConfigError("--algo", "", al, fmt::format("an algorithm that implements {}", a.op));
  }
  std::vector<collsim::Bytes> sizes;
  std::chrono::milliseconds timeout{};
  try {
    sizes = collsim::parse_size_list(a.sizes, a.factor);
  } catch (const collsim::UnitError& e) {
    throw ConfigError("--sizes", "", e.value(), e.expected());
  }
  try {
    timeout = std::chrono::milliseconds(collsim::parse_time(a.timeout).ps / collsim::Time::kPerMs);
  } catch (const collsim::UnitError& e) {
    throw ConfigError("--timeout", "", e.value(), e.expected());
  }
  // poll() takes an int of milliseconds: a day keeps every wait well inside it.
  if (timeout.count() < 1 || timeout > std::chrono::hours(24)) {
    throw ConfigError("--timeout", "", a.timeout, "1ms to 86400s (a day)");
  }
  if (a.warmup < 0) throw ConfigError("--warmup", "", std::to_string(a.warmup), "0 or more");
  if (a.iters < 1) throw ConfigError("--iters", "", std::to_string(a.iters), "1 or more");

  collsim::exec::MeshOptions mo;
  if (a.local > 0) {
    if (a.local > 64) throw ConfigError("--local", "", std::to_string(a.local), "1..64 processes");
    mo.world = a.local;
    mo.master_host = "127.0.0.1";
    mo.rank = 0;
  } else {
    const auto colon = a.master.rfind(':');
    int port = -1;
    if (colon != std::string::npos) {
      try {
        port = std::stoi(a.master.substr(colon + 1));
      } catch (const std::exception&) {
        port = -1;
      }
    }
    if (colon == std::string::npos || port < 1 || port > 65535) {
      throw ConfigError("--master", "", a.master, "rank 0's IPv4 address and port, like 10.77.0.1:29600");
    }
    mo.master_host = a.master.substr(0, colon);
    mo.master_port = static_cast<std::uint16_t>(port);
    if (a.world < 1) throw ConfigError("--world", "", std::to_string(a.world), "the number of ranks, 1 or more");
    if (a.rank < 0 || a.rank >= a.world) {
      throw ConfigError("--rank", "", std::to_string(a.rank), fmt::format("0..{} (--world {})", a.world - 1, a.world));
    }
    mo.world = a.world;
    mo.rank = a.rank;
  }
  // Every schedule must be one TCP can play: in-network reductions (nvls, sharp) need the
  // switch to add the data (NVLink SHARP / InfiniBand SHARP), which no socket can stand in for.
  for (const auto& al : algos) {
    try {
      const collsim::Schedule s = collsim::build_schedule(al, collsim::Collective{*op, mo.world, 0, sizes.front()});
      for (collsim::TransferId t = 0; t < s.size(); ++t) {
        if (s.transfer(t).leg != collsim::TransferLeg::EndToEnd) {
          throw ConfigError("--algo", "", al,
                            "an algorithm whose transfers go host to host: it reduces inside the switch (in-network "
                            "reduction needs NVLink/InfiniBand SHARP hardware), which collsim-exec over TCP cannot emulate");
        }
      }
    } catch (const std::invalid_argument& e) {
      throw ConfigError("--algo", "", al, fmt::format("an algorithm that runs on {} ranks: {}", mo.world, e.what()));
    }
  }
  mo.bind_host = a.bind;
  if (!a.bind.empty()) {
    sockaddr_in probe{};
    if (::inet_pton(AF_INET, a.bind.c_str(), &probe.sin_addr) != 1) throw ConfigError("--bind", "", a.bind, "an IPv4 address");
  }
  mo.timeout = timeout;
  mo.congestion = a.congestion;
  if (!a.socket_buffer.empty()) {
    try {
      const auto b = collsim::parse_size(a.socket_buffer);
      if (b.count < 4096 || b.count > (std::int64_t{1} << 30)) throw collsim::UnitError(a.socket_buffer, "4KiB..1GiB");
      mo.socket_buffer = static_cast<int>(b.count);
    } catch (const collsim::UnitError& e) {
      throw ConfigError("--socket-buffer", "", e.value(), e.expected());
    }
  }
  // The token keeps strangers out of the mesh (handshake.hpp). --local makes one for its
  // own children; ranks on several hosts must be given the same one.
  if (a.token.empty()) {
    if (const char* env = std::getenv("COLLSIM_EXEC_TOKEN")) a.token = env;
  }
  if (a.token.empty() && a.local > 0) a.token = random_token();
  if (a.token.empty() && mo.world > 1) {
    throw ConfigError("--token", "", "(none)",
                      "the run's shared secret, the same on every rank, by --token or COLLSIM_EXEC_TOKEN "
                      "(e.g. export COLLSIM_EXEC_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \\n'))");
  }
  if (!a.token.empty() && (a.token.size() < 16 || a.token.size() > collsim::exec::kTokenBytes)) {
    throw ConfigError("--token", "", fmt::format("({} characters)", a.token.size()),
                      fmt::format("16..{} characters", collsim::exec::kTokenBytes));
  }
  mo.token = a.token;
  mo.params = run_params(a, sizes);

  // Checked before any child exists: a run that cannot write its records should not start.
  std::optional<collsim::RecordFile> file;
  if (mo.rank == 0 && !a.output.empty()) file.emplace(a.output, "--output");
  // One whole record per call: to the file (cut back on failure), or to stdout, checked.
  auto emit = [&file](const std::string& record) {
    if (file) return file->append(record);
    std::cout << record;
    if (const auto why = collsim::stdout_write_error()) {
      throw ConfigError("--output", "", "standard output", fmt::format("a writable output ({})", *why));
    }
  };

  Children children;
  if (a.local > 0) {
    mo.master_port = free_port();
    const pid_t parent = ::getpid();
    for (int r = 1; r < a.local; ++r) {
      const pid_t pid = ::fork();
      if (pid < 0) throw collsim::exec::ExecError(fmt::format("fork: {}", std::strerror(errno)));
      if (pid == 0) {
        // A child dies with its parent (whatever kills it) and owns none of its siblings.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) std::_Exit(2);
        children.pids.clear();
        if (file) file->close();
        mo.rank = r;
        break;
      }
      children.pids.push_back(pid);
    }
  }

  std::vector<int> fds = collsim::exec::connect_mesh(mo);
  const std::string congestion = collsim::exec::mesh_congestion(fds);
  collsim::exec::Connections conn(std::move(fds), mo.rank, timeout);
  collsim::exec::ExecSession session(conn);
  std::int64_t wrong_total = 0;
  for (const auto& al : algos) {
    for (collsim::Bytes size : sizes) {
      const collsim::Collective c{*op, mo.world, 0, size};
      const collsim::Schedule s = collsim::build_schedule(al, c);
      const auto v = collsim::verify_schedule(s);
      if (!v.ok) throw collsim::InternalError(fmt::format("{} schedule does not verify: {}", al, v.error));
      const collsim::exec::RunResult r = session.run(s, a.warmup, a.iters);
      wrong_total += r.wrong;
      if (mo.rank != 0) continue;
      const Stats st = stats_us(r.iteration_s);
      nlohmann::ordered_json j;
      j["kind"] = "collective";
      j["source"] = "collsim-exec";
      j[collsim::kVersionKey] = collsim::version_string();
      j["op"] = std::string(collsim::to_string(*op));
      j["algorithm"] = al;
      j["ranks"] = mo.world;
      j["size"] = size.count;
      j["warmup"] = a.warmup;
      j["iterations"] = a.iters;
      j["time_us"] = round3(st.median);
      j["mean_us"] = round3(st.mean);
      j["min_us"] = round3(st.min);
      j["max_us"] = round3(st.max);
      j["stddev_us"] = round3(st.stddev);
      const double algbw = st.median > 0 ? static_cast<double>(size.count) / st.median / 1e3 : 0.0;
      j["algbw_gbps"] = std::round(algbw * 1e6) / 1e6;
      j["busbw_gbps"] = std::round(algbw * collsim::busbw_factor(*op, mo.world) * 1e6) / 1e6;
      j["wrong"] = r.wrong;
      if (!a.label.empty()) j["label"] = a.label;
      if (!congestion.empty()) j["congestion"] = congestion;
      if (!a.topology.empty()) j["topology"] = a.topology;
      if (a.per_iteration) {
        std::vector<double> us;
        for (double x : r.iteration_s) us.push_back(round3(x * 1e6));
        j["iteration_us"] = us;
      }
      if (a.per_transfer) {
        nlohmann::ordered_json ts = nlohmann::ordered_json::array();
        for (collsim::TransferId t = 0; t < s.size(); ++t) {
          const auto& tr = s.transfer(t);
          nlohmann::ordered_json x;
          x["id"] = t;
          x["src"] = tr.src;
          x["dst"] = tr.dst;
          x["bytes"] = tr.bytes.count;
          x["kind"] = tr.kind == collsim::TransferKind::Reduce ? "reduce" : "copy";
          x["start_us"] = round3(r.transfer_s[2 * t] * 1e6);
          x["end_us"] = round3(r.transfer_s[2 * t + 1] * 1e6);
          ts.push_back(x);
        }
        j["transfers"] = ts;
      }
      emit(j.dump() + "\n");
    }
  }
  session.finish();
  const int rc = children.wait_all() ? 0 : 2;
  if (wrong_total > 0) {
    std::cerr << fmt::format("collsim-exec: rank {}: result check failed: {} wrong elements\n", mo.rank, wrong_total);
    return 1;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("collsim-exec");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);
  Args a;
  CLI::App app{"collsim-exec: runs a collsim schedule for real over TCP and measures it (JSON lines on rank 0)"};
  app.add_option("--rank", a.rank, "This process's rank (0 = rendezvous)");
  app.add_option("--world", a.world, "Number of ranks");
  app.add_option("--local", a.local, "Start N ranks on 127.0.0.1 from this one command (testing)");
  app.add_option("--master", a.master, "Rank 0's IPv4 address:port")->capture_default_str();
  app.add_option("--bind", a.bind,
                 "This rank's IPv4 address (default: rank 0 the master address, others the address they reach rank 0 from)");
  app.add_option("--token", a.token,
                 "The run's shared secret, the same on every rank (default: $COLLSIM_EXEC_TOKEN; --local makes one)");
  app.add_option("--op", a.op, "Collective")->capture_default_str();
  app.add_option("--algo", a.algos, "Algorithms, comma-separated: ring, ps")->capture_default_str();
  app.add_option("--sizes", a.sizes, "Sizes: 1MiB, 1MiB,4MiB or MIN:MAX")->capture_default_str();
  app.add_option("--factor", a.factor, "Step factor for a MIN:MAX range")->capture_default_str();
  app.add_option("--warmup", a.warmup, "Untimed iterations per size")->capture_default_str();
  app.add_option("--iters", a.iters, "Timed iterations per size")->capture_default_str();
  app.add_option("--timeout", a.timeout, "Give up when nothing moves this long (exit 2)")->capture_default_str();
  app.add_option("--congestion", a.congestion, "TCP congestion control per socket (e.g. cubic)");
  app.add_option("--socket-buffer", a.socket_buffer, "Fixed socket send/receive buffer, e.g. 4MiB (default: autotuning)");
  app.add_option("--label", a.label, "Free text copied into every record");
  app.add_option("--topology", a.topology, "Topology file this run matches (copied into every record)");
  app.add_option("--output", a.output, "Append records to FILE instead of stdout");
  app.add_flag("--per-iteration", a.per_iteration, "Also record every timed iteration");
  app.add_flag("--per-transfer", a.per_transfer, "Also record every transfer's start and end in the last iteration (us)");
  app.set_version_flag("--version", "collsim-exec " + collsim::version_string(), "Print the version and exit");
  try {
    app.parse(argc, argv);
    return run(a);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "collsim-exec: error: " << e.what() << " (see collsim-exec --help)\n";
    return 2;
  } catch (const collsim::ConfigError& e) {
    std::cerr << "collsim-exec: error: " << e.what() << "\n";
    return 2;
  } catch (const collsim::exec::ExecError& e) {
    std::cerr << "collsim-exec: error: " << e.what() << "\n";
    return 2;
  } catch (const collsim::LimitError& e) {  // a schedule too big for memory (the message says how big)
    std::cerr << "collsim-exec: error: " << e.what() << "\n";
    return 2;
  } catch (const collsim::OverflowError& e) {
    std::cerr << "collsim-exec: error: --sizes: the run leads to " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "collsim-exec: internal error: " << e.what() << "\n";
    return 1;
  }
}
