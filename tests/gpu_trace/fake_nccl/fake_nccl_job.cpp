// A "training job" for the launcher's end-to-end test: one process per rank (RANK from the
// environment, world size from argv[1]) calling the fake NCCL as a DDP step with a pipeline
// exchange would: an allreduce, a grouped send/recv ring exchange and a broadcast, three times.
// Run under `scalecast capture`, the preloaded capture library records it and writes its rank.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu_trace/nccl_abi.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const int nranks = std::atoi(argv[1]);
  const char* rank_text = std::getenv("RANK");
  const int rank = rank_text ? std::atoi(rank_text) : 0;
  ncclUniqueId id;
  std::memset(&id, 7, sizeof id);  // what rank 0 would broadcast to the others
  ncclComm_t comm = nullptr;
  if (ncclCommInitRank(&comm, nranks, id, rank) != 0) return 1;
  static float buffer[1 << 16];
  auto* stream = reinterpret_cast<cudaStream_t>(0x10);
  for (int step = 0; step < 3; ++step) {
    ncclAllReduce(buffer, buffer, 1 << 16, 7 /* float32 */, 0 /* sum */, comm, stream);
    ncclGroupStart();
    ncclSend(buffer, 1024, 6 /* float16 */, (rank + 1) % nranks, comm, stream);
    ncclRecv(buffer, 1024, 6, (rank + nranks - 1) % nranks, comm, stream);
    ncclGroupEnd();
    ncclBroadcast(buffer, buffer, 256, 7, 0, comm, stream);
  }
  ncclCommDestroy(comm);
  // An exit status to test failures with; "term": stopped by SIGTERM, as a launcher stops ranks.
  if (argc > 2 && std::strcmp(argv[2], "term") == 0) raise(SIGTERM);
  return argc > 2 ? std::atoi(argv[2]) : 0;
}
