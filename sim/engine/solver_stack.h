// Room on the main thread's stack for SimGrid's max-min solver.
//
// SimGrid's maestro (which handles every simcall and solves the sharing system) runs on the
// process's main stack, and with selective update (our setting; CM02's lazy mode needs it) its
// System::update_modified_cnst_set_rec recurses once per link constraint along a connected
// component of the sharing system: 96 bytes a level in Debian's SimGrid 3.32 (measured with
// gdb). A ring of flows through a 131,072-GPU cluster chains ~500,000 link directions, far
// beyond the 8 MiB that Linux gives a main stack by default: the recursion ran off the stack
// and SimGrid died with "Segmentation fault." after minutes of work. Linux grows the main
// stack up to the soft limit in force when it grows, so raising that limit before the
// simulation runs is enough, within the room the kernel left below the stack at start-up.
#pragma once

#include <cstddef>

namespace scalecast {

// Makes sure SimGrid's solver can recurse through `link_constraints` link directions:
// raises the soft stack limit when it is lower than that needs. Throws RequestError("gpus")
// naming the stack it needs when the hard limit, or the room below the stack, forbids it.
void reserve_solver_stack(std::size_t link_constraints);

// Bytes of main stack the solver may use for that many link directions.
std::size_t solver_stack_bytes(std::size_t link_constraints);

}  // namespace scalecast
