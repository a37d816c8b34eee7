// The hello every connection of a collsim-exec run opens with, and the rules that decide
// who is a rank of this run. A listening rank can be reached by anyone who can route to
// it, so a connection counts only once its hello carries this run's token; anything else
// (wrong magic, wrong or missing token, a malformed or silent hello) is a stranger: logged
// with its address and dropped, and the rendezvous goes on. A peer with the right token is
// one of our own ranks, so a disagreement with it (world size, run parameters) is a
// misconfiguration that ends the run with exit 2, naming what differs.
#pragma once

#include <netinet/in.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace collsim::exec {

inline constexpr std::uint32_t kHelloMagic = 0x43534d59;  // "CSMY" (the 16-byte hello without a token was "CSMX")
inline constexpr std::size_t kTokenBytes = 128;           // longest token; shorter ones are zero-padded
inline constexpr std::size_t kMaxParamsBytes = 4096;      // run parameters text after the hello

// On the wire in host byte order, like MsgHeader (every rank is the same build).
struct Hello {
  std::uint32_t magic = kHelloMagic;
  std::int32_t rank = 0;
  std::int32_t world = 0;
  std::uint32_t port = 0;         // the sender's listening port (to rank 0 only)
  std::uint32_t params_len = 0;   // bytes of run parameters text that follow
  std::array<char, kTokenBytes> token{};
};

// Fills a Hello for this rank (the token zero-padded).
[[nodiscard]] Hello make_hello(int rank, int world, std::uint32_t port, const std::string& token,
                               const std::string& params);

// Whether the hello carries `token`. Looks at every byte whatever the first difference,
// so the time it takes does not tell a stranger how much of a guess was right.
[[nodiscard]] bool token_matches(const Hello& h, const std::string& token);

// Run parameters are lines "KEY VALUE" (KEY an option name like --iters). Returns "" when
// both texts agree, else one phrase per differing key: "--iters 3 there, 5 here".
[[nodiscard]] std::string params_differences(const std::string& theirs, const std::string& mine);

// Milliseconds from now to `deadline` for poll(): 0 once it has passed, at most 2^30.
[[nodiscard]] int remaining_ms(std::chrono::steady_clock::time_point deadline);

// "10.0.0.2:51234"
[[nodiscard]] std::string peer_name(const sockaddr_in& a);

// A connection whose hello was accepted: the socket, the hello, its parameters text and
// the address it came from.
struct Arrival {
  int fd = -1;
  Hello hello;
  std::string params;
  sockaddr_in from{};
};

// Accepts connections on `listener` until `count` ranks have said hello or the deadline
// passes (ExecError naming `what`). Connections are read side by side (poll), so a silent
// one cannot hold up the others; each has `hello_timeout` to send its whole hello.
// Strangers are logged and closed. `check` sees every hello with the right token (and the
// arrivals before it); it throws ExecError to end the run, and then every socket accepted
// here is closed. Log lines start with `where` ("rank 0").
struct AcceptOptions {
  std::string token;
  std::chrono::milliseconds hello_timeout{3000};
  std::string where;
};
using ArrivalCheck = std::function<void(const Arrival& a, const std::vector<Arrival>& before)>;
[[nodiscard]] std::vector<Arrival> accept_hellos(int listener, int count, std::chrono::steady_clock::time_point deadline,
                                                 const AcceptOptions& o, const std::string& what,
                                                 const ArrivalCheck& check);

}  // namespace collsim::exec
