#include "sim/core/heap_reuse.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace collsim {

void reuse_freed_memory() {
#if defined(__GLIBC__)
  // The largest threshold glibc accepts on 64-bit systems; setting it also stops glibc
  // from moving the threshold on its own.
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  // Keep freed memory at the heap's top instead of handing it back: a search plays
  // thousands of schedules of similar size, and every page handed back faults in again,
  // zeroed, on the next one. It is returned at exit (or to a malloc_trim).
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
  // Blocks past the threshold (schedules of thousands of ranks) come from the heap too,
  // not from mmap, so that they are reused rather than mapped and faulted in each time.
  mallopt(M_MMAP_MAX, 0);
#endif
}

}  // namespace collsim
