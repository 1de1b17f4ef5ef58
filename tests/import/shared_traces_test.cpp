// Import of the two real Kineto traces in ../shared/data/kineto (README there): what the graph
// holds is checked against counts taken from the file by an independent pass over its events.
#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <set>
#include <tuple>
#include <nlohmann/json.hpp>

#include "sim/import/kineto_to_graph.h"

namespace scalecast {
namespace {

const std::string kA100 = std::string(SCALECAST_SHARED_DATA) + "/kineto/a100x2_allreduce_rank0.json.gz";
const std::string kV100 = std::string(SCALECAST_SHARED_DATA) + "/kineto/v100x2_rank1.json.gz";

// Counts events by category straight from the file (a plain SAX pass, no importer code).
struct FileCounts : nlohmann::json_sax<nlohmann::json> {
  long kernels = 0, nccl_kernels = 0, gpu_ops = 0, steps = 0;
  std::multiset<std::tuple<std::string, std::string, double>> nccl_metadata;  // (collective, dtype, In msg nelems)
  int depth = 0;
  std::string current_key, cat, name;
  double in_nelems = -1;
  std::string collective, dtype;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool number(double v) {
    if (depth == 4 && current_key == "In msg nelems") in_nelems = v;
    return true;
  }
  bool string(string_t& v) override {
    if (depth == 4 && current_key == "Collective name") collective = v;
    if (depth == 4 && current_key == "dtype") dtype = v;
    if (depth == 3 && current_key == "cat") cat = v;
    if (depth == 3 && current_key == "name") name = v;
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (++depth == 3) cat.clear(), name.clear(), collective.clear(), dtype.clear(), in_nelems = -1;
    return true;
  }
  bool end_object() override {
    if (depth-- == 3) {
      const bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
      gpu_ops += gpu;
      kernels += cat == "kernel";
      if (cat == "kernel" && name.rfind("nccl", 0) == 0) {
        ++nccl_kernels;
        if (in_nelems >= 0) nccl_metadata.insert({collective, dtype, in_nelems});
      }
      steps += cat == "user_annotation" && name.rfind("ProfilerStep#", 0) == 0;
    }
    return true;
  }
  bool start_array(std::size_t) override { return ++depth, true; }
  bool end_array() override { return --depth, true; }
  bool key(string_t& k) override { return current_key = k, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

FileCounts count_file(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  std::string text;
  char buffer[1 << 16];
  int got;
  while ((got = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, got);
  gzclose(file);
  FileCounts counts;
  EXPECT_TRUE(nlohmann::json::sax_parse(text, &counts));
  return counts;
}

std::vector<const Task*> collectives(const RankProgram& program) {
  std::vector<const Task*> out;
  for (const Task& t : program.tasks)
    if (t.kind == TaskKind::collective) out.push_back(&t);
  return out;
}

TEST(SharedKinetoTraces, A100ImportMatchesTheFile) {
  const FileCounts file = count_file(kA100);
  const KinetoImport imported = kineto_to_graph({read_kineto_trace(kA100)}, {});
  const KinetoImportStats& s = imported.stats;
  EXPECT_EQ(s.kernels, file.kernels);
  EXPECT_EQ(s.gpu_ops, file.gpu_ops);
  EXPECT_EQ(s.collectives, file.nccl_kernels);
  EXPECT_EQ(s.steps, file.steps);
  EXPECT_EQ(s.outside_steps, 0);
  EXPECT_EQ(s.inferred_sizes, 0);  // every NCCL kernel carries its metadata
  EXPECT_EQ(s.world_size, 2);
  EXPECT_EQ(imported.graph.traced_gpu, "A100-PG509-200");
  EXPECT_EQ(imported.graph.program_of_rank, (std::vector<int>{0, 0}));
  // Op, dtype and size of every NCCL kernel (DDP's gradient allreduces and buffer broadcasts).
  const std::map<std::string, std::string> dtype_names = {{"float32", "Float"}, {"int64", "Long"}};
  const std::map<std::string, int> dtype_sizes = {{"float32", 4}, {"int64", 8}};
  std::multiset<std::tuple<std::string, std::string, double>> imported_metadata;
  for (const Task* t : collectives(imported.graph.programs[0])) {
    ASSERT_TRUE(dtype_names.count(t->dtype)) << t->dtype;
    imported_metadata.insert({to_string(t->op), dtype_names.at(t->dtype), t->bytes / dtype_sizes.at(t->dtype)});
  }
  EXPECT_EQ(imported_metadata, file.nccl_metadata);
  EXPECT_EQ(file.nccl_metadata.size(), 21u);
  std::set<int> steps;
  for (const Task& t : imported.graph.programs[0].tasks) steps.insert(t.step);
  EXPECT_EQ(steps, (std::set<int>{4, 5, 6}));
}

TEST(SharedKinetoTraces, V100ImportMatchesTheFile) {
  const FileCounts file = count_file(kV100);
  const KinetoImport imported = kineto_to_graph({read_kineto_trace(kV100)}, {});
  const KinetoImportStats& s = imported.stats;
  EXPECT_EQ(s.kernels, file.kernels);
  EXPECT_EQ(s.gpu_ops, file.gpu_ops);
  EXPECT_EQ(s.collectives, file.nccl_kernels);
  EXPECT_EQ(s.steps, file.steps);
  EXPECT_TRUE(file.nccl_metadata.empty());  // no NCCL metadata in this trace
  EXPECT_EQ(imported.graph.traced_gpu, "V100-SXM2-32GB");
  EXPECT_EQ(imported.graph.program_of_rank, (std::vector<int>{0, 0}));  // rank 1 traced, rank 0 by symmetry
}

// Sizes inferred from the clone PyTorch makes of each gradient before reducing it. The same
// training step repeats, so every profiled step must reduce the same sequence of sizes; and the
// sizes of the first step are those a separate pass over the file finds (a Python script read
// each clone's copy, or its allocation where the copy ran as a kernel: 389 and 15 of 404).
TEST(SharedKinetoTraces, V100InferredCollectiveSizes) {
  const KinetoImport imported = kineto_to_graph({read_kineto_trace(kV100)}, {});
  EXPECT_EQ(imported.stats.inferred_sizes, 2020);
  EXPECT_EQ(imported.stats.unknown_sizes, 0);
  std::map<int, std::vector<double>> sizes_by_step;
  for (const Task* t : collectives(imported.graph.programs[0])) {
    EXPECT_EQ(t->op, CollectiveOp::allreduce);
    EXPECT_EQ(t->dtype, "float32");  // ncclKernel_AllReduce_RING_LL_Sum_float
    EXPECT_GT(t->bytes, 0);
    sizes_by_step[t->step].push_back(t->bytes);
  }
  ASSERT_EQ(sizes_by_step.size(), 5u);
  for (const auto& [step, sizes] : sizes_by_step) {
    EXPECT_EQ(sizes.size(), 404u) << "step " << step;
    EXPECT_EQ(sizes, sizes_by_step.begin()->second) << "step " << step << " reduces other sizes than the first step";
  }
  const auto& first = sizes_by_step.begin()->second;
  EXPECT_EQ(std::vector<double>(first.begin(), first.begin() + 5), (std::vector<double>{5177344, 80, 72192, 120, 4915200}));
  double total = 0;
  for (double b : first) total += b;
  EXPECT_EQ(total, 1080457808);  // 270 M float gradients per step
}

}  // namespace
}  // namespace scalecast
