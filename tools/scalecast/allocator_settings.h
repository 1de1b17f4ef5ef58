// How the scalecast binary's allocator (jemalloc, when the build found it: tools/CMakeLists.txt)
// treats freed memory. By default it keeps it: a simulation is a short-lived process that needs
// its peak until it ends, so handing pages back to the kernel is pure cost (5 of 13 s of system
// time in the Inception-V3 seed sweep). A command whose footprint is the point (import streams a
// trace through memory) asks for freed pages to go back at once instead.
#pragma once

namespace scalecast::cli {

// From now on, freed memory returns to the kernel at once. No effect without jemalloc.
void return_freed_memory_promptly();

}  // namespace scalecast::cli
