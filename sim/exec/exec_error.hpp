// The error collsim-exec raises when a run cannot go on: a peer that disconnects or stays
// silent past the timeout, a rendezvous that does not complete, a rank count mismatch.
// collsim-exec maps it to exit code 2 (like a ConfigError), never a hang.
#pragma once

#include <stdexcept>
#include <string>

namespace collsim::exec {

class ExecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace collsim::exec
