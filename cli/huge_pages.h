// Large allocations on transparent huge pages, for the whole process.
//
// Where the kernel runs THP in "madvise" mode (Debian's default), glibc backs its large mmap'd
// chunks with huge pages only under the tunable glibc.malloc.hugetlb=1, which it reads once, at
// start-up, from GLIBC_TUNABLES. A run touches hundreds of MB of fresh memory (the CRF's state and
// buffers, a resumed checkpoint read into place); on 4 KB pages every first touch is a page fault,
// which was a third of 30 iterations of the CoNLL-2000 CRF's CPU on the VM this project is
// measured on (bench/RESULTS.md, "Huge pages"). Results do not depend on it, only where the pages
// come from.
#pragma once

namespace seqflow::cli {

// Whether this process's malloc runs on huge pages (GLIBC_TUNABLES sets glibc.malloc.hugetlb to
// other than 0), as `seqflow --version` and a run's summary say. (A sanitizer's allocator ignores
// the tunable.)
bool MallocOnHugePages();

// Replaces this process (execv of /proc/self/exe, same pid, argv and environment) by one started
// with glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, unless GLIBC_TUNABLES already sets
// glibc.malloc.hugetlb (to any value: glibc.malloc.hugetlb=0 opts out). Returns only when nothing
// was to be done or the exec failed (the run then goes on with the pages it has).
// A tool that follows a process only until its exec (valgrind without --trace-children=yes)
// needs glibc.malloc.hugetlb set beforehand.
// REQUIRES: called first in main, before any thread is started.
void RestartWithHugePages(char** argv);

// For a command that builds one large structure (a parsed pipeline of 10^5 node instances) and
// exits: big blocks come from the heap instead of their own mmap, and freed memory stays in the
// heap. Otherwise every doubling of a big vector maps fresh pages that the kernel zeroes (2 MB
// at a time on huge pages) and every trim returns pages the next allocation faults back: a
// sixth of `seqflow plan`'s wall time at 10^5 instances (bench/RESULTS.md, "Engine scale").
// Not for `run`, whose models free large blocks that later nodes do not reuse.
void KeepFreedMemoryInTheHeap();

}  // namespace seqflow::cli
