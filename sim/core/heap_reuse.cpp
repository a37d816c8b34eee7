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
#endif
}

}  // namespace collsim
