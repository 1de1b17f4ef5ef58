// Creates the SimGrid engine (one per process: SimGrid's engine is a singleton) configured
// for GPU fabrics rather than TCP: CM02 network model (no TCP latency/bandwidth factors,
// SIMGRID-NOTES.md "Modelling pitfalls"), no TCP window cap, small actor stacks, quiet logs.
#pragma once

namespace simgrid::s4u {
class Engine;
}

namespace scalecast {

simgrid::s4u::Engine& start_simgrid();

}  // namespace scalecast
