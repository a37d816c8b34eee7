// collsim's SimGrid reference peer: ring, parameter-server and binary-tree all-reduces on a
// star, simulated by SimGrid's s4u API (3.32). Sizes in bytes, bandwidth in bytes/s, times in s.
//
//   allreduce_peer ALGO N S_BYTES B_BYTES_PER_S L_SECONDS [star] [--cfg=...]...
//
// Every rank is one host with its own split-duplex link (B each way, latency L) to a
// non-blocking centre (an s4u star zone), so a message crosses the sender's up link and the
// receiver's down link: 2L of latency. Only communication is simulated, not the reduction.
// The --cfg flags go to SimGrid; `--cfg=network/model:CM02 --cfg=network/crosstraffic:0`
// selects plain max-min sharing with alpha-beta timing (see README.md).
//
// Output, one line: RESULT algo= n= predicted_s= formula_s= ratio= comms= run_wall_s=
// setup_wall_s=, where predicted_s is SimGrid's completion time and formula_s the fluid
// alpha-beta value derived below for the same schedule.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

// The command line, after SimGrid has taken its --cfg flags out of it.
struct PeerArgs {
  std::string algo;       // ring | ps | tree
  int ranks = 0;          // N, one host per rank
  double bytes = 0;       // S, the whole all-reduce vector
  double bandwidth = 0;   // B, bytes/s per link direction
  double latency = 0;     // L, seconds per link
};

double parse_positive(const std::string& what, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(value) || value < 0)
    throw std::invalid_argument(what + " must be a non-negative number, got '" + text + "'");
  return value;
}

PeerArgs parse_args(int argc, char** argv) {
  if (argc != 6 && argc != 7)
    throw std::invalid_argument("expected ALGO N S_BYTES B_BYTES_PER_S L_SECONDS [star]");
  PeerArgs a;
  a.algo = argv[1];
  if (a.algo != "ring" && a.algo != "ps" && a.algo != "tree")
    throw std::invalid_argument("ALGO must be ring, ps or tree, got '" + a.algo + "'");
  const double ranks = parse_positive("N", argv[2]);
  if (ranks < 2 || ranks > 1e7 || ranks != std::floor(ranks))
    throw std::invalid_argument(std::string("N must be a whole number >= 2, got '") + argv[2] + "'");
  a.ranks = static_cast<int>(ranks);
  a.bytes = parse_positive("S_BYTES", argv[3]);
  a.bandwidth = parse_positive("B_BYTES_PER_S", argv[4]);
  if (a.bandwidth <= 0) throw std::invalid_argument("B_BYTES_PER_S must be > 0");
  a.latency = parse_positive("L_SECONDS", argv[5]);
  if (argc == 7 && std::string(argv[6]) != "star")
    throw std::invalid_argument(std::string("the only platform is 'star', got '") + argv[6] + "'");
  return a;
}

// The star: host i owns split-duplex link i; the zone routes i -> j over i's up half and
// j's down half (one add_route per host, symmetrical, gives both halves).
std::vector<sg4::Host*> build_star(const PeerArgs& a) {
  sg4::NetZone* zone = sg4::create_star_zone("star");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(a.ranks);
  for (int i = 0; i < a.ranks; ++i) {
    const std::string id = std::to_string(i);
    sg4::Host* host = zone->create_host("host" + id, 1e9);
    const sg4::Link* link = zone->create_split_duplex_link("link" + id, a.bandwidth)->set_latency(a.latency)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
    hosts.push_back(host);
  }
  zone->seal();
  return hosts;
}

// What the rank actors share. Actors run one at a time in SimGrid's maestro thread, so a
// plain counter is safe.
struct Collective {
  PeerArgs args;
  std::vector<sg4::Mailbox*> inbox;  // inbox[r]: data travelling to rank r
  std::vector<sg4::Mailbox*> upbox;  // upbox[r]: reduce traffic to rank r (ps, tree)
  long long comms = 0;               // point-to-point messages posted
  char token = 0;                    // the payload pointer every message carries

  sg4::CommPtr send(sg4::Mailbox* to, double bytes) {
    ++comms;
    return to->put_async(&token, static_cast<std::uint64_t>(std::llround(bytes)));
  }
};

// Several receives posted at once, each into a slot that outlives its wait.
struct Receipts {
  std::vector<char*> slots;
  std::vector<sg4::CommPtr> comms;
  explicit Receipts(std::size_t n) : slots(n, nullptr) { comms.reserve(n); }
  void post(sg4::Mailbox* from) { comms.push_back(from->get_async<char>(&slots[comms.size()])); }
};

// Ring: 2(N-1) steps; in each, rank r sends S/N to r+1 and receives S/N from r-1, and goes
// on to the next step only when both are done.
void ring_rank(Collective& c, int r) {
  const int n = c.args.ranks;
  sg4::Mailbox* right = c.inbox[(r + 1) % n];
  for (int step = 0; step < 2 * (n - 1); ++step) {
    char* got = nullptr;
    sg4::CommPtr out = c.send(right, c.args.bytes / n);
    sg4::CommPtr in = c.inbox[r]->get_async<char>(&got);
    out->wait();
    in->wait();
  }
}

// Parameter server: every worker pushes S to rank 0 at once; once rank 0 holds all of them
// it sends S back to every worker at once.
void ps_rank(Collective& c, int r) {
  const int n = c.args.ranks;
  if (r != 0) {
    c.send(c.upbox[0], c.args.bytes)->wait();
    char* got = nullptr;
    c.inbox[r]->get_async<char>(&got)->wait();
    return;
  }
  Receipts in(n - 1);
  for (int w = 1; w < n; ++w) in.post(c.upbox[0]);
  sg4::Comm::wait_all(in.comms);
  std::vector<sg4::CommPtr> out;
  for (int w = 1; w < n; ++w) out.push_back(c.send(c.inbox[w], c.args.bytes));
  sg4::Comm::wait_all(out);
}

// Binary heap tree (children of i: 2i+1, 2i+2): a node receives S from each child, sends S
// to its parent, waits for S from its parent, then sends S to both children at once.
std::vector<int> heap_children(int i, int n) {
  std::vector<int> kids;
  for (int k : {2 * i + 1, 2 * i + 2})
    if (k < n) kids.push_back(k);
  return kids;
}

void tree_rank(Collective& c, int r) {
  const std::vector<int> kids = heap_children(r, c.args.ranks);
  Receipts up(kids.size());
  for (std::size_t k = 0; k < kids.size(); ++k) up.post(c.upbox[r]);
  sg4::Comm::wait_all(up.comms);
  if (r != 0) {
    c.send(c.upbox[(r - 1) / 2], c.args.bytes)->wait();
    char* got = nullptr;
    c.inbox[r]->get_async<char>(&got)->wait();
  }
  std::vector<sg4::CommPtr> out;
  for (int k : kids) out.push_back(c.send(c.inbox[k], c.args.bytes));
  sg4::Comm::wait_all(out);
}

// Alpha-beta values for the same schedules under fluid max-min sharing.
//   ring: 2(N-1) steps, each 2L + (S/N)/B (one flow per link half).
//   ps:   push 2L + (N-1)S/B (N-1 flows share rank 0's down half), pull the same on its up half.
//   tree: computed node by node, since a node's children may finish at different times.
double two_flows_done(double start_a, double start_b, double transfer) {
  // Two flows of `transfer` seconds alone that share one link once both are running (equal
  // weights, half the bandwidth each); returns when the later one ends.
  const double first = std::min(start_a, start_b), second = std::max(start_a, start_b);
  const double head_left = std::max(0.0, transfer - (second - first));  // first's work left at `second`
  return second + transfer + head_left;
}

double tree_formula(const PeerArgs& a) {
  const int n = a.ranks;
  const double hop = 2 * a.latency, transfer = a.bytes / a.bandwidth;
  std::vector<double> reduced(n, 0.0);  // when node i holds its subtree's sum
  for (int i = n - 1; i >= 0; --i) {
    const std::vector<int> kids = heap_children(i, n);
    if (kids.size() == 1) reduced[i] = reduced[kids[0]] + hop + transfer;
    if (kids.size() == 2) reduced[i] = two_flows_done(reduced[kids[0]] + hop, reduced[kids[1]] + hop, transfer);
  }
  std::vector<double> holds(n, reduced[0]);  // when node i holds the result
  for (int i = 1; i < n; ++i) {
    const int parent = (i - 1) / 2;
    holds[i] = holds[parent] + hop + static_cast<double>(heap_children(parent, n).size()) * transfer;
  }
  return *std::max_element(holds.begin(), holds.end());
}

double formula(const PeerArgs& a) {
  const double hop = 2 * a.latency, transfer = a.bytes / a.bandwidth, n = a.ranks;
  if (a.algo == "ring") return 2 * (n - 1) * (hop + transfer / n);
  if (a.algo == "ps") return 2 * (hop + (n - 1) * transfer);
  return tree_formula(a);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const auto setup_start = std::chrono::steady_clock::now();
  sg4::Engine engine(&argc, argv);  // takes the --cfg=... flags out of argv
  PeerArgs args;
  try {
    args = parse_args(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "allreduce_peer: %s\nusage: %s ring|ps|tree N S_BYTES B_BYTES_PER_S L_SECONDS [star] [--cfg=...]...\n",
                 e.what(), argv[0]);
    return 2;
  }
  try {
    const std::vector<sg4::Host*> hosts = build_star(args);
    Collective c;
    c.args = args;
    for (int r = 0; r < args.ranks; ++r) {
      c.inbox.push_back(sg4::Mailbox::by_name("in" + std::to_string(r)));
      c.upbox.push_back(sg4::Mailbox::by_name("up" + std::to_string(r)));
    }
    for (int r = 0; r < args.ranks; ++r) {
      auto body = args.algo == "ring" ? ring_rank : args.algo == "ps" ? ps_rank : tree_rank;
      sg4::Actor::create("rank" + std::to_string(r), hosts[r], [&c, body, r] { body(c, r); });
    }
    const double setup_wall = seconds_since(setup_start);
    const auto run_start = std::chrono::steady_clock::now();
    engine.run();
    const double run_wall = seconds_since(run_start);
    const double predicted = sg4::Engine::get_clock();  // the last message's arrival
    const double expected = formula(args);
    std::printf("RESULT algo=%s n=%d predicted_s=%.15g formula_s=%.15g ratio=%.9f comms=%lld run_wall_s=%.6f "
                "setup_wall_s=%.6f\n",
                args.algo.c_str(), args.ranks, predicted, expected, expected > 0 ? predicted / expected : 1.0, c.comms,
                run_wall, setup_wall);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce_peer: %s\n", e.what());
    return 1;
  }
}
