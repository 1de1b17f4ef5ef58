// apex's DistributedDataParallel (apex/parallel/distributed.py, the wrapper NVIDIA's
// DeepLearningExamples used until 2021: ResNet-50 and BERT in the 20.03 NGC container, GNMT in
// 20.06; read at apex commit 47da14a, March 2020), lowered to one GPU's tasks. It differs from
// PyTorch's Reducer (ddp_reducer.h) in where its copies run and how it sizes buckets:
//
//   - Buckets hold gradients in the order the backward pass makes them ready (recorded in the
//     first iteration: needs_refresh) and close once they hold at least message_size elements
//     (default 1e7); there is no small first bucket. The last bucket holds what is left
//     (assign_ddp_buckets with the first limit equal to the others).
//   - When a bucket's last gradient is ready, its hook flattens the bucket into one buffer
//     (apex_C.flatten, a concatenation: one kernel reading and writing the bucket) on the
//     compute stream, where the backward pass runs.
//   - The bucket stream then waits for that point and runs, in order: the division by
//     gradient_predivide_factor when it is not 1 (BERT's run_pretraining.py sets the world size),
//     the allreduce, the averaging multiply (gradient_average), and the copy of the reduced
//     buffer back into the gradients (multi_tensor_scale over the unflattened views). Buckets
//     are reduced in index order on that one stream, so bucket i + 1's allreduce waits for
//     bucket i's multiply and copy back.
//   - The backward pass's epilogue makes the compute stream wait for the bucket stream: the
//     optimizer runs after the last copy back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/strategy/ddp_reducer.h"

namespace scalecast {

inline constexpr double kApexDefaultMessageElements = 1e7;  // DistributedDataParallel(message_size=10000000)

// Which wrapper reduces a data-parallel step's gradients, and its settings.
struct DdpWrapper {
  enum class Kind { torch, apex };
  Kind kind = Kind::torch;
  double apex_message_elements = kApexDefaultMessageElements;
  bool apex_predivide = false;  // gradient_predivide_factor = world size (one more pass per bucket)
};

// "torch", "apex", "apex:N" (message_size N elements) or "apex:N:predivide"; nullopt otherwise.
// kDdpWrapperForms names them for error messages.
inline constexpr const char* kDdpWrapperForms = "torch, apex, apex:N or apex:N:predivide";
std::optional<DdpWrapper> parse_ddp_wrapper(const std::string& text);
std::string to_string(const DdpWrapper& wrapper);

// The flatten of one bucket: its hook's concatenation, on the compute stream.
Task apex_flatten(const std::string& label, int bucket, double bytes, int compute_stream);

// Appends, on the bucket (NCCL) stream, each bucket's optional predivide, allreduce, averaging
// multiply and copy back. `buckets` lists one entry per bucket, in order: its bytes and the
// index of its flatten (ReadyGradient::copy_task). Returns the index of the last copy back
// (-1 when there are no buckets): what the optimizer waits for.
int append_apex_reduction(const std::vector<ReadyGradient>& buckets, const DdpLowering& lowering, bool predivide,
                          std::vector<Task>& tasks);

}  // namespace scalecast
