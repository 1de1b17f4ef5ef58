// The slice of NCCL's C ABI that the interposer needs, declared here instead of including
// nccl.h: these types have not changed from NCCL 2.18 to 2.28 (handles are pointers, enums are
// ints, ncclUniqueId is 128 bytes, ncclConfig_t and ncclSimInfo_t only ever passed by pointer),
// and machines that have PyTorch's NCCL often lack its header. The fake NCCL of the tests uses
// the same declarations, so what is tested is what is built. Checked against NCCL 2.28.9's
// nccl.h: ncclGather, ncclScatter, ncclCommShrink and ncclGroupSimulateEnd are 2.28 additions
// (ncclGroupSimulateEnd 2.22); a libnccl without them is simply never asked for them.
#pragma once

#include <cstddef>

extern "C" {

typedef struct ncclComm* ncclComm_t;
typedef struct CUstream_st* cudaStream_t;
typedef int ncclResult_t;    // ncclSuccess = 0
typedef int ncclDataType_t;  // ncclInt8 = 0 … ncclFloat8e5m2 = 11
typedef int ncclRedOp_t;     // ncclSum = 0 …; dynamic ops from ncclRedOpCreatePreMulSum above
typedef struct { char internal[128]; } ncclUniqueId;
typedef struct ncclConfig_opaque ncclConfig_t;  // never dereferenced: passed through
typedef struct ncclSimInfo_opaque ncclSimInfo_t;  // never dereferenced: passed through

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank);
ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config);
ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int myrank, int nId, ncclUniqueId* commIds,
                                      ncclConfig_t* config);
ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist);
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config);
ncclResult_t ncclCommShrink(ncclComm_t comm, int* excludeRanksList, int excludeRanksCount, ncclComm_t* newcomm,
                            ncclConfig_t* config, int shrinkFlags);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device);

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
                          cudaStream_t stream);
ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                        ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                         ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream);
ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream);
ncclResult_t ncclGroupStart();
ncclResult_t ncclGroupEnd();
ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* simInfo);

}  // extern "C"
