#include "tools/scalecast/mpi_spread.h"

#include <cstdlib>

#include "sim/core/input_error.h"

#ifdef SCALECAST_WITH_MPI
#include <mpi.h>
#endif

namespace scalecast::cli {

bool built_with_mpi() {
#ifdef SCALECAST_WITH_MPI
  return true;
#else
  return false;
#endif
}

bool launched_by_mpirun() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(variable)) return true;
  return false;
}

MpiWorld mpi_start() {
  MpiWorld world;
  if (!launched_by_mpirun()) return world;
#ifdef SCALECAST_WITH_MPI
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  world.active = true;
#else
  throw InputError("command line", "mpirun",
                   "this scalecast was built without MPI (libopenmpi-dev was not found at configure time), so every "
                   "rank would run the whole sweep; run it without mpirun, or rebuild with MPI");
#endif
  return world;
}

std::vector<std::string> mpi_gather_to_root(const MpiWorld& world, const std::string& mine) {
  if (!world.active) return {mine};
#ifdef SCALECAST_WITH_MPI
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(world.size), offsets(world.size);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<char> all;
  if (world.rank == 0) {
    int total = 0;
    for (int r = 0; r < world.size; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> texts;
  if (world.rank == 0)
    for (int r = 0; r < world.size; ++r) texts.emplace_back(all.data() + offsets[r], lengths[r]);
  return texts;
#else
  return {mine};
#endif
}

void mpi_broadcast_from_root(const MpiWorld& world, std::string& text) {
  if (!world.active) return;
#ifdef SCALECAST_WITH_MPI
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  text.resize(length);
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
#endif
}

void mpi_finish(MpiWorld& world) {
#ifdef SCALECAST_WITH_MPI
  if (world.active) MPI_Finalize();
#endif
  world.active = false;
}

}  // namespace scalecast::cli
