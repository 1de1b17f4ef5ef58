#include "sim/import/nccl_kernel_names.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace scalecast {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

bool is_nccl_kernel(const std::string& kernel_name) {
  return kernel_name.rfind("ncclKernel_", 0) == 0 || kernel_name.rfind("ncclDevKernel_", 0) == 0;
}

std::string normalize_dtype(const std::string& name) {
  static const std::map<std::string, std::string> table = {
      {"float", "float32"},   {"f32", "float32"},    {"float32", "float32"},   {"half", "float16"},
      {"f16", "float16"},     {"float16", "float16"}, {"__nv_bfloat16", "bfloat16"}, {"bf16", "bfloat16"},
      {"bfloat16", "bfloat16"}, {"double", "float64"}, {"f64", "float64"},       {"float64", "float64"},
      {"int8_t", "int8"},     {"i8", "int8"},        {"char", "int8"},         {"int8", "int8"},
      {"uint8_t", "uint8"},   {"u8", "uint8"},       {"byte", "uint8"},        {"uint8", "uint8"},
      {"int32_t", "int32"},   {"i32", "int32"},      {"int", "int32"},         {"int32", "int32"},
      {"uint32_t", "uint32"}, {"u32", "uint32"},     {"int64_t", "int64"},     {"i64", "int64"},
      {"long", "int64"},      {"int64", "int64"},    {"uint64_t", "uint64"},   {"u64", "uint64"},
      {"bool", "uint8"},      {"__nv_fp8_e4m3", "float8"}, {"__nv_fp8_e5m2", "float8"}, {"f8e4m3", "float8"},
      {"f8e5m2", "float8"}};
  auto it = table.find(lower(name));
  return it == table.end() ? std::string() : it->second;
}

int dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, int> table = {{"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"float64", 8},
                                                   {"int8", 1},    {"uint8", 1},   {"int32", 4},    {"uint32", 4},
                                                   {"int64", 8},   {"uint64", 8},  {"float8", 1}};
  auto it = table.find(dtype);
  return it == table.end() ? 0 : it->second;
}

bool parse_collective_name(const std::string& name, CollectiveOp& op) {
  std::string key;
  for (char c : lower(name))
    if (std::isalnum(static_cast<unsigned char>(c))) key += c;
  // PyTorch's names: allreduce, allgather_into_tensor_coalesced, _reduce_scatter_base, ...
  static const std::vector<std::pair<std::string, CollectiveOp>> prefixes = {
      {"allreduce", CollectiveOp::allreduce},     {"allgather", CollectiveOp::allgather},
      {"reducescatter", CollectiveOp::reducescatter}, {"broadcast", CollectiveOp::broadcast},
      {"alltoall", CollectiveOp::alltoall},       {"reduce", CollectiveOp::reduce}};
  for (const auto& [prefix, value] : prefixes)
    if (key.rfind(prefix, 0) == 0) {
      op = value;
      return true;
    }
  return false;
}

bool parse_rank_list(const std::string& text, std::vector<int>& ranks) {
  ranks.clear();
  std::string digits;
  for (char c : text + ",") {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (c == ',' || c == ']') {
      if (!digits.empty()) ranks.push_back(std::stoi(digits.substr(0, 9)));
      digits.clear();
    } else if (c != '[' && c != ' ') {
      ranks.clear();
      return false;
    }
  }
  return true;
}

std::optional<NcclKernelInfo> parse_nccl_kernel_name(const std::string& kernel_name) {
  if (!is_nccl_kernel(kernel_name)) return std::nullopt;
  std::string base = kernel_name.substr(0, kernel_name.find('('));
  const std::vector<std::string> parts = split(base, '_');  // [ncclKernel, AllReduce, RING, LL, Sum, float]
  NcclKernelInfo info;
  if (parts.size() < 2) return info;
  const std::string what = parts[1];
  if (what == "SendRecv" || what == "Send" || what == "Recv") {
    info.point_to_point = true;
    return info;
  }
  info.op_known = parse_collective_name(what, info.op);
  // The dtype is whichever later part names one: the last one in the old scheme (after the
  // reduction op), right after it in the new one (ncclDevKernel_AllReduce_Sum_f32_RING_LL).
  for (size_t i = parts.size(); i-- > 2;) {
    // "__nv_bfloat16" splits into "", "", "nv", "bfloat16"; "int8_t" into "int8", "t".
    std::string candidate = normalize_dtype(parts[i]);
    if (candidate.empty() && i + 1 < parts.size()) candidate = normalize_dtype(parts[i] + "_" + parts[i + 1]);
    if (!candidate.empty()) {
      info.dtype = candidate;
      break;
    }
  }
  return info;
}

}  // namespace scalecast
