#include "tools/scalecast/mpi_spread.h"

#include <cstdlib>
#include <stdexcept>

#include "sim/core/input_error.h"

#ifdef SCALECAST_WITH_MPI
#include <dlfcn.h>
#include <mpi.h>
#endif

namespace scalecast::cli {

#ifdef SCALECAST_WITH_MPI
namespace {

// Open MPI is loaded only when mpirun started this process, and its functions are looked up in
// it by name: scalecast's other runs do not pay for its libraries, and libsimgrid (which
// exports SMPI's own MPI_Init & co.) cannot capture the calls. Open MPI's predefined handles are
// the addresses of its global objects.
struct OpenMpi {
  void* library = nullptr;
  decltype(&MPI_Init) init = nullptr;
  decltype(&MPI_Comm_rank) comm_rank = nullptr;
  decltype(&MPI_Comm_size) comm_size = nullptr;
  decltype(&MPI_Gather) gather = nullptr;
  decltype(&MPI_Gatherv) gatherv = nullptr;
  decltype(&MPI_Bcast) bcast = nullptr;
  decltype(&MPI_Finalize) finalize = nullptr;
  MPI_Comm world = nullptr;
  MPI_Datatype int_type = nullptr;
  MPI_Datatype char_type = nullptr;
};

template <typename T>
T symbol(void* library, const char* name) {
  void* address = dlsym(library, name);
  if (!address) throw std::runtime_error(std::string("Open MPI has no symbol ") + name);
  return reinterpret_cast<T>(address);
}

const OpenMpi& open_mpi() {
  static const OpenMpi mpi = [] {
    OpenMpi m;
    m.library = dlopen(SCALECAST_MPI_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    if (!m.library) throw std::runtime_error(std::string("cannot load Open MPI: ") + dlerror());
    m.init = symbol<decltype(m.init)>(m.library, "MPI_Init");
    m.comm_rank = symbol<decltype(m.comm_rank)>(m.library, "MPI_Comm_rank");
    m.comm_size = symbol<decltype(m.comm_size)>(m.library, "MPI_Comm_size");
    m.gather = symbol<decltype(m.gather)>(m.library, "MPI_Gather");
    m.gatherv = symbol<decltype(m.gatherv)>(m.library, "MPI_Gatherv");
    m.bcast = symbol<decltype(m.bcast)>(m.library, "MPI_Bcast");
    m.finalize = symbol<decltype(m.finalize)>(m.library, "MPI_Finalize");
    m.world = symbol<MPI_Comm>(m.library, "ompi_mpi_comm_world");
    m.int_type = symbol<MPI_Datatype>(m.library, "ompi_mpi_int");
    m.char_type = symbol<MPI_Datatype>(m.library, "ompi_mpi_char");
    return m;
  }();
  return mpi;
}

}  // namespace
#endif

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
  const OpenMpi& mpi = open_mpi();
  mpi.init(nullptr, nullptr);
  mpi.comm_rank(mpi.world, &world.rank);
  mpi.comm_size(mpi.world, &world.size);
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
  const OpenMpi& mpi = open_mpi();
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(world.size), offsets(world.size);
  mpi.gather(&length, 1, mpi.int_type, lengths.data(), 1, mpi.int_type, 0, mpi.world);
  std::vector<char> all;
  if (world.rank == 0) {
    int total = 0;
    for (int r = 0; r < world.size; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(total);
  }
  mpi.gatherv(mine.data(), length, mpi.char_type, all.data(), lengths.data(), offsets.data(), mpi.char_type, 0, mpi.world);
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
  const OpenMpi& mpi = open_mpi();
  int length = static_cast<int>(text.size());
  mpi.bcast(&length, 1, mpi.int_type, 0, mpi.world);
  text.resize(length);
  mpi.bcast(text.data(), length, mpi.char_type, 0, mpi.world);
#endif
}

void mpi_finish(MpiWorld& world) {
#ifdef SCALECAST_WITH_MPI
  if (world.active) open_mpi().finalize();
#endif
  world.active = false;
}

}  // namespace scalecast::cli
