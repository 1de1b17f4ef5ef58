// A stand-in for libnccl that exports NCCL's functions (gpu_trace/nccl_abi.h) and logs what each
// received, so that the interposer's tests can check that every call reached "NCCL" once, with
// its arguments intact. Communicators are plain structs; nothing is communicated.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct FakeNcclCall {
  char function[32];
  const void* sendbuff;
  const void* recvbuff;
  size_t count;
  int dtype;
  int red_op;
  int root_or_peer;
  void* comm;
  void* stream;
  int nranks;      // init: as passed
  int rank;        // init: as passed
  int color, key;  // split
  unsigned char id_first_byte;  // init: the unique id's first byte
};

// The calls received so far, in order; and a reset between tests.
const FakeNcclCall* fake_nccl_calls(size_t* count);
void fake_nccl_reset();
// What every fake call returns (default 0, ncclSuccess).
void fake_nccl_set_result(int result);
// Called by every collective and send/recv with the function's name, as NCCL launches its kernel
// (the fake CUPTI job launches a fake kernel there); null: none.
void fake_nccl_set_launch_hook(void (*hook)(const char* function));

}  // extern "C"
