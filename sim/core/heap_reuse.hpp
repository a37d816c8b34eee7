// Keeps freed blocks of up to 32 MiB in the C library's heap for reuse. A sweep replays
// hundreds of collectives, each allocating and freeing arrays of tens of MiB (the
// schedule, its reverse dependencies, route tables); glibc's default gives each such
// block fresh pages from the kernel and returns them on free, so every replay paid its
// page faults again (a sixth of a 1,024-rank sweep's time, most of its system time).
// Also asks for transparent huge pages on the heap's first 64 MiB, so that first touches
// fault 2 MiB at a time. Called once at the start of the collsim binary; a no-op outside
// glibc.
#pragma once

namespace collsim {

void reuse_freed_memory();

}  // namespace collsim
