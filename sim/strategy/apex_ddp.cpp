#include "sim/strategy/apex_ddp.h"

namespace scalecast {

namespace {

// apex's message_size is a count of elements; more than any model's gradients is one bucket.
constexpr double kMaxMessageElements = 1e15;

std::optional<double> parse_message_elements(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 16) return std::nullopt;
  const double elements = std::stod(text);
  if (elements < 1 || elements > kMaxMessageElements) return std::nullopt;
  return elements;
}

}  // namespace

std::optional<DdpWrapper> parse_ddp_wrapper(const std::string& text) {
  DdpWrapper wrapper;
  if (text == "torch") return wrapper;
  if (text.rfind("apex", 0) != 0) return std::nullopt;
  wrapper.kind = DdpWrapper::Kind::apex;
  std::string rest = text.substr(4);
  if (rest.empty()) return wrapper;
  if (rest[0] != ':') return std::nullopt;
  rest = rest.substr(1);
  const size_t colon = rest.find(':');
  const auto elements = parse_message_elements(rest.substr(0, colon));
  if (!elements) return std::nullopt;
  wrapper.apex_message_elements = *elements;
  if (colon == std::string::npos) return wrapper;
  if (rest.substr(colon + 1) != "predivide") return std::nullopt;
  wrapper.apex_predivide = true;
  return wrapper;
}

std::string to_string(const DdpWrapper& wrapper) {
  if (wrapper.kind == DdpWrapper::Kind::torch) return "torch";
  return "apex:" + std::to_string(static_cast<long long>(wrapper.apex_message_elements)) +
         (wrapper.apex_predivide ? ":predivide" : "");
}

Task apex_flatten(const std::string& label, int bucket, double bytes, int compute_stream) {
  return ddp_gradient_copy("flatten." + label + ".bucket" + std::to_string(bucket), bytes, compute_stream);
}

int append_apex_reduction(const std::vector<ReadyGradient>& buckets, const DdpLowering& lowering, bool predivide,
                          std::vector<Task>& tasks) {
  int last_copy_back = -1;
  for (size_t b = 0; b < buckets.size(); ++b) {
    const std::string bucket = lowering.label + ".bucket" + std::to_string(b);
    const double bytes = buckets[b].bytes;
    // The bucket stream waits for the flatten (an event on the compute stream); what follows on
    // that stream is ordered by it.
    if (predivide) {
      Task divide = ddp_gradient_copy("predivide." + bucket, bytes, lowering.nccl_stream);
      divide.deps.push_back({0, buckets[b].copy_task});
      tasks.push_back(std::move(divide));
    }
    tasks.push_back(ddp_bucket_allreduce(lowering, static_cast<int>(b), bytes, buckets[b].copy_task));
    tasks.push_back(ddp_gradient_copy("average." + bucket, bytes, lowering.nccl_stream));
    last_copy_back = static_cast<int>(tasks.size());
    tasks.push_back(ddp_gradient_copy("grads <- " + bucket, bytes, lowering.nccl_stream));
  }
  return last_copy_back;
}

}  // namespace scalecast
