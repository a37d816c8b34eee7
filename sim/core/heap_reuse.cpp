#include "sim/core/heap_reuse.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
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
  // The heap's first 960 MiB in transparent huge pages where the kernel allows them on
  // request (madvise mode, Debian's default): a prediction touches a few MiB to hundreds
  // (the 131,072-GPU cluster: 400-640 MiB), and each 4 KiB page's first touch is a fault,
  // which costs most in a virtual machine (a tenth of a 1,024-rank exact ring's time, half
  // of a 131,072-GPU ring's: 1.59 s -> 0.70 s). The block is grown, marked and freed; the
  // trim threshold above keeps it in the heap for the allocations that follow. Only the
  // huge pages actually touched take memory, and a refused block (an address-space limit)
  // only loses the advice.
  constexpr std::size_t kHuge = std::size_t{2} << 20, kArena = std::size_t{960} << 20;
  if (void* block = std::malloc(kArena)) {
    const auto begin = (reinterpret_cast<std::uintptr_t>(block) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(block) + kArena) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
    std::free(block);
  }
#endif
}

}  // namespace collsim
