// Spreading a sweep over MPI ranks (`mpirun -np K scalecast sweep ...`): each rank runs the
// points i with i % K == rank and rank 0 gathers every rank's results. Without MPI at build
// time, or when not started by mpirun, the world is this one process.
#pragma once

#include <string>
#include <vector>

namespace scalecast::cli {

struct MpiWorld {
  int rank = 0;
  int size = 1;
  bool active = false;  // MPI_Init was called: mpi_finish must be too
};

bool built_with_mpi();
// True when an MPI launcher started this process (its environment says so).
bool launched_by_mpirun();

// Starts MPI when launched by mpirun; throws InputError when launched by mpirun but built
// without MPI (every rank would run the whole sweep).
MpiWorld mpi_start();
// Every rank passes its text; rank 0 receives all of them in rank order, others nothing.
std::vector<std::string> mpi_gather_to_root(const MpiWorld& world, const std::string& mine);
// Rank 0's text replaces every other rank's.
void mpi_broadcast_from_root(const MpiWorld& world, std::string& text);
void mpi_finish(MpiWorld& world);

// MPI for the lifetime of a scope: started by the constructor, finished on every way out.
struct MpiSession {
  MpiWorld world = mpi_start();
  MpiSession() = default;
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession() { mpi_finish(world); }
};

}  // namespace scalecast::cli
