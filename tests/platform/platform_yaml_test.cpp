#include "sim/platform/platform_yaml.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "sim/core/input_error.h"

namespace scalecast {
namespace {

namespace fs = std::filesystem;

// ---- helpers --------------------------------------------------------------------------------

// A small valid platform; the error tests each break one line of it.
const std::string kBase = R"(name: test
node:
  gpus: 4
  gpu:
    model: TestGPU
    peak_flops: {fp32: 10TFLOPS, fp16: 40TFLOPS}
    memory_bandwidth: 1TB/s
    memory: 16GiB
  nvswitch: {bandwidth: 100GB/s, latency: 1us, efficiency: 0.9}
  nics:
    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [0, 1]}
    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [2, 3]}
network:
  topology: fat_tree
  levels: 2
  switch_radix: 64
  link: {bandwidth: 100Gbps, latency: 0.2us, efficiency: 0.96}
  oversubscription: 1
collectives: {base_latency: 8.4us, intra_step_latency: 0.6us, inter_step_latency: 2.7us, channels: 2}
)";

const std::string kNvswitchLine = "  nvswitch: {bandwidth: 100GB/s, latency: 1us, efficiency: 0.9}\n";

// kBase with the NVSwitch replaced by a 4-GPU NVLink ring (0-1 bonded twice).
const std::string kNvlinkFabric = R"(  nvlink:
    link: {bandwidth: 25GB/s, latency: 1us, efficiency: 0.8}
    connections: [[0, 1, 2], [1, 2], [2, 3], [3, 0]]
)";

// kBase with the NVSwitch replaced by a 2-socket PCIe tree.
const std::string kPcieFabric = R"(  pcie:
    gpu_link: {bandwidth: 16GB/s, efficiency: 0.75}
    sockets: 2
    socket_interconnect: {bandwidth: 38.4GB/s}
    switches:
      - {socket: 0, gpus: [0, 1], uplink: {bandwidth: 16GB/s}}
      - {socket: 1, gpus: [2, 3], uplink: {bandwidth: 16GB/s}}
)";

// `text` with the one occurrence of `from` replaced by `to` (fails the test when it is absent).
std::string replaced(const std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the YAML";
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "test bug: '" << from << "' is not unique";
  return text.substr(0, at) + to + text.substr(at + from.size());
}

std::string with_nvlink() { return replaced(kBase, kNvswitchLine, kNvlinkFabric); }
std::string with_pcie() { return replaced(kBase, kNvswitchLine, kPcieFabric); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Parses `yaml` as "test.yaml" and expects an InputError at exactly `field`, whose message names
// the file and the field and says `problem`.
void expect_error(const std::string& yaml, const std::string& field, const std::string& problem = "") {
  try {
    parse_platform_yaml(yaml, "test.yaml");
    ADD_FAILURE() << "accepted, but expected an error at '" << field << "':\n" << yaml;
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.field(), field) << message;
    EXPECT_EQ(error.source(), "test.yaml");
    EXPECT_TRUE(contains(message, "test.yaml")) << message;
    EXPECT_TRUE(contains(message, field)) << message;
    EXPECT_TRUE(contains(message, problem)) << "expected '" << problem << "' in: " << message;
  }
}

// A temporary folder for YAML files, removed after the test.
class PlatformFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("scalecast_platform_" + std::string(test->name()) + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    unsetenv("SCALECAST_PLATFORMS_DIR");
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  fs::path dir_;
};

int links_of_gpu(const NvlinkFabric& fabric, int gpu) {
  int links = 0;
  for (const NvlinkConnection& c : fabric.connections) {
    if (c.gpu_a == gpu || c.gpu_b == gpu) links += c.links;
  }
  return links;
}

int links_between(const NvlinkFabric& fabric, int a, int b) {
  for (const NvlinkConnection& c : fabric.connections) {
    if ((c.gpu_a == a && c.gpu_b == b) || (c.gpu_a == b && c.gpu_b == a)) return c.links;
  }
  return 0;
}

// ---- presets --------------------------------------------------------------------------------

TEST(PlatformPresets, AllAreListed) {
  EXPECT_EQ(platform_presets(),
            (std::vector<std::string>{"dgx-a100", "dgx-a100-80gb", "dgx-a100-oversubscribed", "dgx-h100",
                                      "dgx-h100-fat-tree-k64", "dgx-h100-superpod", "dgx1-v100", "dgx1-v100-1nic",
                                      "h100-pcie", "hgx-b200", "hgx-h200", "l40s-pcie", "pcie-8gpu", "rtx4090-pcie"}));
}

// Cluster presets scale to any node count; the RTX 4090 workstation is one box of four GPUs.
TEST(PlatformPresets, EveryPresetLoadsAndScalesToAnyNodeCount) {
  for (const std::string& name : platform_presets()) {
    SCOPED_TRACE(name);
    PlatformSpec spec = load_platform(name);
    EXPECT_EQ(spec.name, name);
    EXPECT_TRUE(contains(spec.source, "platforms/" + name + ".yaml")) << spec.source;
    // NCCL's tables, except where a preset cites its own measured ring LL latencies (the DGX-A100s).
    EXPECT_FALSE(spec.collectives.inter_step_latency_s);
    EXPECT_EQ(spec.collectives.base_latency_s.has_value(), name.rfind("dgx-a100", 0) == 0);
    if (name == "rtx4090-pcie") {
      EXPECT_EQ(spec.nodes, 1);
      EXPECT_EQ(spec.node.gpus, 4);
      EXPECT_EQ(spec.network.topology, NetworkSpec::Topology::none);
      continue;
    }
    EXPECT_EQ(spec.nodes, 0);
    EXPECT_EQ(spec.node.gpus, 8);
    EXPECT_EQ(spec.network.topology,
              name == "dgx-h100-superpod" ? NetworkSpec::Topology::rail_optimized : NetworkSpec::Topology::fat_tree);
    EXPECT_FALSE(spec.node.nics.empty());
  }
}

TEST(PlatformPresets, Dgx1HasTheHybridCubeMesh) {
  PlatformSpec spec = load_platform("dgx1-v100");
  EXPECT_EQ(spec.node.gpu.model, "V100-SXM2-32GB");
  EXPECT_DOUBLE_EQ(spec.node.gpu.peak_flops_per_s.at("fp32"), 15.7e12);
  EXPECT_DOUBLE_EQ(spec.node.gpu.peak_flops_per_s.at("fp16"), 125e12);
  EXPECT_DOUBLE_EQ(spec.node.gpu.memory_bandwidth_Bps, 900e9);
  EXPECT_DOUBLE_EQ(spec.node.gpu.memory_bytes, 32.0 * 1024 * 1024 * 1024);
  EXPECT_FALSE(spec.node.nvswitch);

  ASSERT_TRUE(spec.node.nvlink);
  const NvlinkFabric& nvlink = *spec.node.nvlink;
  EXPECT_EQ(nvlink.connections.size(), 16u);
  for (int gpu = 0; gpu < 8; ++gpu) EXPECT_EQ(links_of_gpu(nvlink, gpu), 6) << "GPU " << gpu;
  EXPECT_EQ(links_between(nvlink, 0, 5), 0);
  EXPECT_EQ(links_between(nvlink, 0, 3), 2);
  EXPECT_EQ(links_between(nvlink, 0, 1), 1);
  EXPECT_EQ(links_between(nvlink, 6, 7), 2);
  EXPECT_EQ(links_between(nvlink, 1, 4), 0);
  EXPECT_DOUBLE_EQ(nvlink.per_link.bandwidth_Bps, 25e9);
  EXPECT_DOUBLE_EQ(nvlink.per_link.achievable_Bps(), 20e9);

  ASSERT_TRUE(spec.node.pcie);
  const PcieFabric& pcie = *spec.node.pcie;
  EXPECT_EQ(pcie.sockets, 2);
  ASSERT_EQ(pcie.switches.size(), 4u);
  EXPECT_EQ(pcie.switches[1].socket, 0);
  EXPECT_EQ(pcie.switches[2].socket, 1);
  EXPECT_EQ(pcie.switches[3].gpus, (std::vector<int>{6, 7}));
  EXPECT_DOUBLE_EQ(pcie.gpu_link.achievable_Bps(), 12e9);

  ASSERT_EQ(spec.node.nics.size(), 4u);
  for (int nic = 0; nic < 4; ++nic) {
    EXPECT_EQ(spec.node.nics[nic].gpus, (std::vector<int>{2 * nic, 2 * nic + 1}));
    EXPECT_DOUBLE_EQ(spec.node.nics[nic].link.bandwidth_Bps, 12.5e9);
    EXPECT_DOUBLE_EQ(spec.node.nics[nic].link.achievable_Bps(), 12e9);
  }
  EXPECT_EQ(spec.network.switch_radix, 36);
  EXPECT_EQ(spec.node.gpu.architecture, GpuArchitecture::volta);
  EXPECT_FALSE(spec.collectives.intra_step_latency_s);
}

TEST(PlatformPresets, DgxA100HasNvswitchAndOneHdrNicPerGpu) {
  PlatformSpec spec = load_platform("dgx-a100");
  EXPECT_EQ(spec.node.gpu.model, "A100-SXM4-40GB");
  EXPECT_DOUBLE_EQ(spec.node.gpu.peak_flops_per_s.at("tf32"), 156e12);
  EXPECT_DOUBLE_EQ(spec.node.gpu.peak_flops_per_s.at("bf16"), 312e12);
  EXPECT_FALSE(spec.node.nvlink);
  EXPECT_FALSE(spec.node.pcie);
  ASSERT_TRUE(spec.node.nvswitch);
  EXPECT_DOUBLE_EQ(spec.node.nvswitch->per_gpu.bandwidth_Bps, 300e9);
  // Ring busbw measured 231-235 GB/s (nccl-tests #149, #175).
  EXPECT_NEAR(spec.node.nvswitch->per_gpu.achievable_Bps(), 234e9, 1e6);
  ASSERT_EQ(spec.node.nics.size(), 8u);
  for (int nic = 0; nic < 8; ++nic) EXPECT_EQ(spec.node.nics[nic].gpus, std::vector<int>{nic});
  EXPECT_DOUBLE_EQ(spec.node.nics[0].link.bandwidth_Bps, 25e9);
  EXPECT_NEAR(spec.node.nics[0].link.achievable_Bps(), 24e9, 1e6);  // nccl #812: 8 x 24 = 192
  EXPECT_DOUBLE_EQ(spec.network.oversubscription, 1);
  EXPECT_EQ(spec.network.levels, 2);
}

TEST(PlatformPresets, OversubscribedA100DiffersOnlyInTheFatTree) {
  PlatformSpec plain = load_platform("dgx-a100");
  PlatformSpec over = load_platform("dgx-a100-oversubscribed");
  EXPECT_DOUBLE_EQ(over.network.oversubscription, 2);
  EXPECT_EQ(over.network.levels, plain.network.levels);
  EXPECT_EQ(over.network.switch_radix, plain.network.switch_radix);
  EXPECT_DOUBLE_EQ(over.network.link.achievable_Bps(), plain.network.link.achievable_Bps());
  EXPECT_EQ(over.node.nics.size(), plain.node.nics.size());
  EXPECT_DOUBLE_EQ(over.node.nvswitch->per_gpu.achievable_Bps(), plain.node.nvswitch->per_gpu.achievable_Bps());
}

TEST(PlatformPresets, DgxH100HasNvswitchAndNdrNics) {
  PlatformSpec spec = load_platform("dgx-h100");
  EXPECT_EQ(spec.node.gpu.model, "H100-SXM5-80GB");
  EXPECT_DOUBLE_EQ(spec.node.gpu.peak_flops_per_s.at("fp8"), 1978.9e12);
  ASSERT_TRUE(spec.node.nvswitch);
  EXPECT_DOUBLE_EQ(spec.node.nvswitch->per_gpu.bandwidth_Bps, 450e9);
  EXPECT_NEAR(spec.node.nvswitch->per_gpu.achievable_Bps(), 369e9, 1e6);  // measured ~368 (nccl-tests #212)
  ASSERT_EQ(spec.node.nics.size(), 8u);
  EXPECT_DOUBLE_EQ(spec.node.nics[7].link.bandwidth_Bps, 50e9);
  EXPECT_NEAR(spec.node.nics[7].link.achievable_Bps(), 47e9, 1e6);  // 46-48 (nccl-tests #290)
  EXPECT_EQ(spec.node.nics[7].gpus, std::vector<int>{7});
}

TEST(PlatformPresets, Pcie8GpuSharesOneNicAcrossTwoSockets) {
  PlatformSpec spec = load_platform("pcie-8gpu");
  EXPECT_FALSE(spec.node.nvlink);
  EXPECT_FALSE(spec.node.nvswitch);
  ASSERT_TRUE(spec.node.pcie);
  EXPECT_EQ(spec.node.pcie->switches.size(), 4u);
  EXPECT_EQ(spec.node.pcie->sockets, 2);
  EXPECT_DOUBLE_EQ(spec.node.pcie->gpu_link.achievable_Bps(), 24e9);
  ASSERT_EQ(spec.node.nics.size(), 1u);
  EXPECT_EQ(spec.node.nics[0].gpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_DOUBLE_EQ(spec.node.nics[0].link.bandwidth_Bps, 12.5e9);
  EXPECT_FALSE(spec.collectives.intra_step_latency_s);
  EXPECT_DOUBLE_EQ(spec.node.gpu.sustained_compute, 0.9);  // the 250 W card: NVIDIA's 90% of the SXM4
}

// ---- loading --------------------------------------------------------------------------------

TEST_F(PlatformFiles, LoadsAFileByPath) {
  const std::string path = write("mine.yaml", kBase);
  PlatformSpec spec = load_platform(path);
  EXPECT_EQ(spec.name, "test");
  EXPECT_EQ(spec.source, path);
  EXPECT_EQ(spec.node.gpus, 4);
}

TEST_F(PlatformFiles, MissingFileNamesThePath) {
  const std::string path = (dir_ / "absent.yaml").string();
  try {
    load_platform(path);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.source(), path);
    EXPECT_TRUE(contains(error.what(), "no such file")) << error.what();
  }
}

TEST_F(PlatformFiles, UnknownPresetListsTheAvailableOnes) {
  try {
    load_platform("dgx-z900");
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(contains(message, "dgx-z900")) << message;
    EXPECT_TRUE(contains(message, "dgx-a100, dgx-a100-80gb, dgx-a100-oversubscribed, dgx-h100, dgx-h100-fat-tree-k64, dgx-h100-superpod, dgx1-v100, dgx1-v100-1nic, h100-pcie, hgx-b200")) << message;
  }
}

TEST_F(PlatformFiles, EnvironmentVariableAddsAPresetsFolderSearchedFirst) {
  write("tiny.yaml", kBase);
  write("dgx-a100.yaml", kBase);  // the user's file of a shipped name wins
  setenv("SCALECAST_PLATFORMS_DIR", dir_.c_str(), 1);
  const std::vector<std::string> presets = platform_presets();
  EXPECT_NE(std::find(presets.begin(), presets.end(), "tiny"), presets.end());
  EXPECT_NE(std::find(presets.begin(), presets.end(), "dgx-h100"), presets.end());  // shipped presets stay
  EXPECT_EQ(std::count(presets.begin(), presets.end(), "dgx-a100"), 1);
  EXPECT_EQ(load_platform("tiny").source, (dir_ / "tiny.yaml").string());
  EXPECT_EQ(load_platform("dgx-a100").source, (dir_ / "dgx-a100.yaml").string());
  EXPECT_NE(load_platform("dgx-h100").source.find("/platforms/dgx-h100.yaml"), std::string::npos);
}

TEST_F(PlatformFiles, ErrorsInAFileNameTheFileAndTheField) {
  const std::string path = write("broken.yaml", replaced(kBase, "efficiency: 0.9}", "efficiency: 1.5}"));
  try {
    load_platform(path);
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.field(), "node.nvswitch.efficiency");
    EXPECT_TRUE(contains(message, path)) << message;
    EXPECT_TRUE(contains(message, "node.nvswitch.efficiency")) << message;
    EXPECT_TRUE(contains(message, "(line 9)")) << message;
  }
}

TEST_F(PlatformFiles, SyntaxErrorGivesTheLine) {
  const std::string path = write("syntax.yaml", "name: test\nnode:\n  gpus: 4\n  gpu: {model: X\n");
  try {
    load_platform(path);
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(contains(message, path)) << message;
    EXPECT_TRUE(contains(message, "YAML syntax error at line 5")) << message;
  }
}

// ---- parsing: values ------------------------------------------------------------------------

TEST(PlatformYaml, ParsesTheBaseExample) {
  PlatformSpec spec = parse_platform_yaml(kBase, "test.yaml");
  EXPECT_EQ(spec.source, "test.yaml");
  EXPECT_DOUBLE_EQ(spec.node.gpu.peak_flops_per_s.at("fp16"), 40e12);
  EXPECT_DOUBLE_EQ(spec.node.gpu.memory_bandwidth_Bps, 1e12);
  EXPECT_DOUBLE_EQ(spec.node.nvswitch->per_gpu.latency_s, 1e-6);
  EXPECT_EQ(spec.node.nics[1].gpus, (std::vector<int>{2, 3}));
  EXPECT_DOUBLE_EQ(spec.network.link.latency_s, 0.2e-6);
  EXPECT_DOUBLE_EQ(*spec.collectives.base_latency_s, 8.4e-6);
  EXPECT_EQ(spec.collectives.channels, 2);
}

TEST(PlatformYaml, OptionalFieldsTakeTheirDefaults) {
  std::string yaml = replaced(kBase, kNvswitchLine, "  nvswitch: {bandwidth: 100GB/s}\n");
  yaml = replaced(
      yaml, "collectives: {base_latency: 8.4us, intra_step_latency: 0.6us, inter_step_latency: 2.7us, channels: 2}\n",
      "");
  yaml = replaced(yaml, "  levels: 2\n  switch_radix: 64\n", "");
  yaml = replaced(yaml, "  oversubscription: 1\n", "");
  PlatformSpec spec = parse_platform_yaml(yaml, "test.yaml");
  EXPECT_DOUBLE_EQ(spec.node.nvswitch->per_gpu.latency_s, 0);
  EXPECT_DOUBLE_EQ(spec.node.nvswitch->per_gpu.efficiency, 1);
  EXPECT_EQ(spec.network.levels, 2);
  EXPECT_EQ(spec.network.switch_radix, 64);
  EXPECT_DOUBLE_EQ(spec.network.oversubscription, 1);
  // No collectives section: NCCL's tables (sim/collectives/nccl_tuning.h) and its channel search.
  EXPECT_FALSE(spec.collectives.base_latency_s);
  EXPECT_FALSE(spec.collectives.intra_step_latency_s);
  EXPECT_FALSE(spec.collectives.inter_step_latency_s);
  EXPECT_EQ(spec.collectives.channels, 0);
  EXPECT_EQ(spec.collectives.cpu_vendor, CpuVendor::intel);
}

TEST(PlatformYaml, NvlinkConnectionsDefaultToOneLink) {
  PlatformSpec spec = parse_platform_yaml(with_nvlink(), "test.yaml");
  ASSERT_TRUE(spec.node.nvlink);
  ASSERT_EQ(spec.node.nvlink->connections.size(), 4u);
  EXPECT_EQ(spec.node.nvlink->connections[0].links, 2);
  EXPECT_EQ(spec.node.nvlink->connections[1].links, 1);
  EXPECT_EQ(spec.node.nvlink->connections[3].gpu_a, 3);
  EXPECT_EQ(spec.node.nvlink->connections[3].gpu_b, 0);
}

TEST(PlatformYaml, CompactNicsAreAssignedInOrder) {
  std::string yaml = replaced(kBase,
                              "    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [0, 1]}\n"
                              "    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [2, 3]}\n",
                              "    {count: 2, bandwidth: 200Gbps}\n");
  PlatformSpec spec = parse_platform_yaml(yaml, "test.yaml");
  ASSERT_EQ(spec.node.nics.size(), 2u);
  EXPECT_EQ(spec.node.nics[0].gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(spec.node.nics[1].gpus, (std::vector<int>{2, 3}));
  EXPECT_DOUBLE_EQ(spec.node.nics[1].link.bandwidth_Bps, 25e9);
}

TEST(PlatformYaml, SingleNodeNeedsNoNetworkNorNics) {
  const std::string yaml = R"(name: workstation
nodes: 1
node:
  gpus: 2
  gpu: {model: X, peak_flops: {fp32: 1e13}, memory_bandwidth: 500GB/s}
  pcie:
    gpu_link: {bandwidth: 16GB/s}
    switches: [{gpus: [0, 1], uplink: {bandwidth: 16GB/s}}]
)";
  PlatformSpec spec = parse_platform_yaml(yaml, "ws.yaml");
  EXPECT_EQ(spec.nodes, 1);
  EXPECT_TRUE(spec.node.nics.empty());
  EXPECT_EQ(spec.network.topology, NetworkSpec::Topology::none);
  EXPECT_DOUBLE_EQ(spec.node.gpu.peak_flops_per_s.at("fp32"), 1e13);
  EXPECT_EQ(spec.node.pcie->sockets, 1);

  // One GPU needs no fabric at all.
  const std::string single = R"(name: one
nodes: 1
node: {gpus: 1, gpu: {model: X, peak_flops: {fp32: 1TFLOPS}, memory_bandwidth: 1GB/s}}
)";
  EXPECT_EQ(parse_platform_yaml(single, "one.yaml").node.gpus, 1);
}

TEST(PlatformYaml, FlopRates) {
  EXPECT_DOUBLE_EQ(*parse_flops_per_s("125TFLOPS"), 125e12);
  EXPECT_DOUBLE_EQ(*parse_flops_per_s("15.7 TFLOP/s"), 15.7e12);
  EXPECT_DOUBLE_EQ(*parse_flops_per_s("2PFLOPS"), 2e15);
  EXPECT_DOUBLE_EQ(*parse_flops_per_s("900 GFLOP/s"), 900e9);
  EXPECT_DOUBLE_EQ(*parse_flops_per_s("1.5e13"), 1.5e13);
  EXPECT_DOUBLE_EQ(*parse_flops_per_s("7FLOPS"), 7);
  EXPECT_FALSE(parse_flops_per_s("125TB/s"));
  EXPECT_FALSE(parse_flops_per_s("TFLOPS"));
  EXPECT_FALSE(parse_flops_per_s("12 XFLOPS"));
  EXPECT_FALSE(parse_flops_per_s(""));
}

// ---- parsing: errors ------------------------------------------------------------------------

TEST(PlatformYaml, VariabilityAndMultiprocessors) {
  PlatformSpec spec = parse_platform_yaml(kBase, "test.yaml");
  EXPECT_FALSE(spec.variability.compute_cv);  // the trace's own, else the default
  EXPECT_EQ(spec.variability.seed, 1u);
  EXPECT_EQ(spec.node.gpu.multiprocessors, 0);  // not given: no SM share modelled
  std::string yaml = replaced(kBase, "    memory: 16GiB\n", "    memory: 16GiB\n    multiprocessors: 80\n");
  spec = parse_platform_yaml(yaml + "variability: {compute_cv: 0.01, seed: 7}\n", "test.yaml");
  EXPECT_DOUBLE_EQ(*spec.variability.compute_cv, 0.01);
  EXPECT_EQ(spec.variability.seed, 7u);
  EXPECT_EQ(spec.node.gpu.multiprocessors, 80);
  EXPECT_EQ(spec.node.gpu.sustained_compute, 1);  // not given: the data sheet's peaks
  spec = parse_platform_yaml(replaced(kBase, "    memory: 16GiB\n", "    memory: 16GiB\n    sustained_compute: 0.9\n"), "t");
  EXPECT_DOUBLE_EQ(spec.node.gpu.sustained_compute, 0.9);
}

TEST(PlatformYamlErrors, VariabilityOutOfRange) {
  expect_error(kBase + "variability: {compute_cv: 1.5}\n", "variability.compute_cv", "fraction in [0, 1]");
  expect_error(kBase + "variability: {compute_cv: -0.1}\n", "variability.compute_cv", "fraction in [0, 1]");
  expect_error(kBase + "variability: {seed: -1}\n", "variability.seed");
  expect_error(kBase + "variability: {cv: 0.1}\n", "variability.cv", "unknown field");
  expect_error(replaced(kBase, "    memory: 16GiB\n", "    memory: 16GiB\n    multiprocessors: 0\n"),
               "node.gpu.multiprocessors");
  for (const char* bad : {"0", "1.2", "-0.5"})
    expect_error(replaced(kBase, "    memory: 16GiB\n", std::string("    memory: 16GiB\n    sustained_compute: ") + bad + "\n"),
                 "node.gpu.sustained_compute", "(0, 1]");
}

TEST(PlatformYamlErrors, UnknownFieldsAtEveryLevel) {
  expect_error(replaced(kBase, "name: test", "nmae: test"), "nmae", "unknown field");
  expect_error(replaced(kBase, "  gpus: 4\n", "  gpus: 4\n  gpu_count: 4\n"), "node.gpu_count", "unknown field");
  expect_error(replaced(kBase, "model: TestGPU", "modle: TestGPU"), "node.gpu.modle", "unknown field");
  expect_error(replaced(kBase, "fp16: 40TFLOPS", "fp17: 40TFLOPS"), "node.gpu.peak_flops.fp17", "fp32");
  expect_error(replaced(kBase, "{bandwidth: 100GB/s, latency: 1us", "{bandwith: 100GB/s, latency: 1us"),
               "node.nvswitch.bandwith", "expected one of: links, nvls, bandwidth, latency, efficiency");
  expect_error(replaced(kBase, "gpus: [2, 3]}", "gpu: [2, 3]}"), "node.nics[1].gpu", "unknown field");
  expect_error(replaced(kBase, "  topology: fat_tree", "  topolgy: fat_tree"), "network.topolgy", "unknown field");
  expect_error(replaced(kBase, "latency: 0.2us", "latncy: 0.2us"), "network.link.latncy", "unknown field");
  expect_error(replaced(kBase, "channels: 2", "chanels: 2"), "collectives.chanels", "unknown field");
  expect_error(replaced(with_nvlink(), "    connections:", "    connexions:"), "node.nvlink.connexions",
               "unknown field");
  expect_error(replaced(with_pcie(), "{socket: 1, gpus: [2, 3]", "{sockett: 1, gpus: [2, 3]"),
               "node.pcie.switches[1].sockett", "unknown field");
  expect_error(replaced(with_pcie(), "    sockets: 2\n", "    sockets: 2\n    numa: 2\n"), "node.pcie.numa",
               "unknown field");
}

TEST(PlatformYamlErrors, FieldGivenTwice) {
  expect_error(replaced(kBase, "  gpus: 4\n", "  gpus: 4\n  gpus: 8\n"), "node.gpus", "given twice");
}

TEST(PlatformYamlErrors, MissingRequiredFields) {
  expect_error(replaced(kBase, "name: test\n", ""), "name", "missing required field");
  expect_error(replaced(kBase, "  gpus: 4\n", ""), "node.gpus", "missing required field");
  expect_error(replaced(kBase, "    model: TestGPU\n", ""), "node.gpu.model", "missing required field");
  expect_error(replaced(kBase, "    memory_bandwidth: 1TB/s\n", ""), "node.gpu.memory_bandwidth", "missing");
  expect_error(replaced(kBase, "    peak_flops: {fp32: 10TFLOPS, fp16: 40TFLOPS}\n", ""), "node.gpu.peak_flops",
               "missing");
  expect_error(replaced(kBase, "{bandwidth: 100GB/s, latency: 1us, efficiency: 0.9}", "{latency: 1us}"),
               "node.nvswitch.bandwidth", "missing required field");
  expect_error(replaced(kBase, ", gpus: [0, 1]}", "}"), "node.nics[0].gpus", "missing required field");
  expect_error(replaced(kBase, "  topology: fat_tree\n", ""), "network.topology", "missing required field");
  expect_error(replaced(kBase, "  link: {bandwidth: 100Gbps, latency: 0.2us, efficiency: 0.96}\n", ""), "network.link",
               "missing required field");
  expect_error(replaced(kBase, "    peak_flops: {fp32: 10TFLOPS, fp16: 40TFLOPS}", "    peak_flops: {}"),
               "node.gpu.peak_flops", "at least one precision");
  expect_error(replaced(kBase, "  gpus: 4\n", "  gpus:\n"), "node.gpus", "has no value");
}

TEST(PlatformYamlErrors, WrongTypes) {
  expect_error(replaced(kBase, "  gpus: 4", "  gpus: four"), "node.gpus", "expected a whole number");
  expect_error(replaced(kBase, "  gpus: 4", "  gpus: 4.5"), "node.gpus", "expected a whole number");
  expect_error(replaced(kBase, "  gpus: 4", "  gpus: [4]"), "node.gpus", "expected a single value, got a list");
  expect_error(replaced(kBase, "    peak_flops: {fp32: 10TFLOPS, fp16: 40TFLOPS}", "    peak_flops: 10TFLOPS"),
               "node.gpu.peak_flops", "expected a mapping");
  expect_error(replaced(kBase, "fp32: 10TFLOPS", "fp32: fast"), "node.gpu.peak_flops.fp32", "FLOP rate");
  expect_error(replaced(kBase, "memory: 16GiB", "memory: lots"), "node.gpu.memory", "expected a size");
  expect_error(replaced(kBase, "efficiency: 0.9}", "efficiency: high}"), "node.nvswitch.efficiency",
               "expected a number");
  expect_error(replaced(kBase, "gpus: [0, 1]}", "gpus: 0}"), "node.nics[0].gpus", "expected a list");
  expect_error(replaced(kBase, "  topology: fat_tree", "  topology: torus"), "network.topology", "unknown topology");
  expect_error(replaced(with_nvlink(), "[1, 2],", "1-2,"), "node.nvlink.connections[1]", "[gpu_a, gpu_b]");
  expect_error(replaced(with_nvlink(), "[1, 2],", "[1, 2, 1, 1],"), "node.nvlink.connections[1]", "[gpu_a, gpu_b]");
  expect_error("name: t\nnode: [1, 2]\n", "node", "expected a mapping");
}

TEST(PlatformYamlErrors, QuantitiesNeedUnitsAndSensibleValues) {
  expect_error(replaced(kBase, "{bandwidth: 100GB/s,", "{bandwidth: 0GB/s,"), "node.nvswitch.bandwidth", "positive");
  expect_error(replaced(kBase, "{bandwidth: 100GB/s,", "{bandwidth: -100GB/s,"), "node.nvswitch.bandwidth", "positive");
  expect_error(replaced(kBase, "{bandwidth: 100GB/s,", "{bandwidth: 100,"), "node.nvswitch.bandwidth", "25GB/s");
  expect_error(replaced(kBase, "memory_bandwidth: 1TB/s", "memory_bandwidth: 0TB/s"), "node.gpu.memory_bandwidth",
               "positive");
  expect_error(replaced(kBase, "fp32: 10TFLOPS", "fp32: 0TFLOPS"), "node.gpu.peak_flops.fp32", "positive");
  expect_error(replaced(kBase, "latency: 0.2us", "latency: -0.2us"), "network.link.latency", "negative");
  expect_error(replaced(kBase, "latency: 0.2us", "latency: 2"), "network.link.latency", "1.5us");
  expect_error(replaced(kBase, "base_latency: 8.4us", "base_latency: -1us"), "collectives.base_latency", "negative");
  // A measured step scales every protocol's step on its path: 0 would make them all free.
  expect_error(replaced(kBase, "intra_step_latency: 0.6us", "intra_step_latency: 0"), "collectives.intra_step_latency",
               "positive");
  expect_error(replaced(kBase, "inter_step_latency: 2.7us", "inter_step_latency: 0us"), "collectives.inter_step_latency",
               "positive");
  expect_error(replaced(kBase, "efficiency: 0.9}", "efficiency: 0}"), "node.nvswitch.efficiency", "(0, 1]");
  expect_error(replaced(kBase, "efficiency: 0.9}", "efficiency: 1.01}"), "node.nvswitch.efficiency", "(0, 1]");
  expect_error(replaced(kBase, "efficiency: 0.9}", "efficiency: -0.5}"), "node.nvswitch.efficiency", "(0, 1]");
  expect_error(replaced(kBase, "efficiency: 0.9}", "efficiency: .nan}"), "node.nvswitch.efficiency", "number");
  expect_error(replaced(kBase, "channels: 2", "channels: -1"), "collectives.channels", "between 0");
  expect_error(replaced(kBase, "  gpus: 4", "  gpus: 0"), "node.gpus", "between 1");
  // A latency of plain 0 needs no unit.
  EXPECT_DOUBLE_EQ(parse_platform_yaml(replaced(kBase, "latency: 0.2us", "latency: 0"), "t").network.link.latency_s, 0);
}

// Finite is not enough: every number lies in its physical range (sim/core/physical_limits.h),
// so that nothing downstream overflows or reaches SimGrid as an infinite duration.
TEST(PlatformYamlErrors, QuantitiesOutsideTheirPhysicalRange) {
  expect_error(replaced(kBase, "latency: 0.2us", "latency: 1e308s"), "network.link.latency", "between 0 and 1 s");
  expect_error(replaced(kBase, "latency: 0.2us", "latency: 2s"), "network.link.latency", "between 0 and 1 s");
  expect_error(replaced(kBase, "base_latency: 8.4us", "base_latency: 1h"), "collectives.base_latency", "1 s");
  expect_error(replaced(kBase, "{bandwidth: 100GB/s,", "{bandwidth: 1e-300GB/s,"), "node.nvswitch.bandwidth",
               "between 1 Mb/s and 100 TB/s");
  expect_error(replaced(kBase, "{bandwidth: 100GB/s,", "{bandwidth: 0.5Mbps,"), "node.nvswitch.bandwidth", "1 Mb/s");
  expect_error(replaced(kBase, "{bandwidth: 100GB/s,", "{bandwidth: 1e300TB/s,"), "node.nvswitch.bandwidth", "100 TB/s");
  expect_error(replaced(kBase, "memory_bandwidth: 1TB/s", "memory_bandwidth: 101TB/s"), "node.gpu.memory_bandwidth",
               "100 TB/s");
  expect_error(replaced(kBase, "fp32: 10TFLOPS", "fp32: 1e-300"), "node.gpu.peak_flops.fp32", "1 GFLOP/s and 1 EFLOP/s");
  expect_error(replaced(kBase, "fp32: 10TFLOPS", "fp32: 2000PFLOPS"), "node.gpu.peak_flops.fp32", "1 EFLOP/s");
  expect_error(replaced(kBase, "efficiency: 0.9}", "efficiency: 1e-300}"), "node.nvswitch.efficiency", "0.001");
  expect_error(replaced(kBase, "  oversubscription: 1", "  oversubscription: 1e308"), "network.oversubscription",
               "between 1 and 63");
  expect_error(replaced(kBase, "  oversubscription: 1", "  oversubscription: 64"), "network.oversubscription", "63");
  // The edges of the ranges are accepted.
  EXPECT_DOUBLE_EQ(parse_platform_yaml(replaced(kBase, "latency: 0.2us", "latency: 1s"), "t").network.link.latency_s, 1);
  EXPECT_DOUBLE_EQ(parse_platform_yaml(replaced(kBase, "  oversubscription: 1", "  oversubscription: 63"), "t")
                       .network.oversubscription, 63);
}

TEST(PlatformYamlErrors, SizesAboveTwoToTheSixty) {
  expect_error(replaced(kBase, "memory: 16GiB", "memory: 2e18"), "node.gpu.memory", "at most 2^60 bytes");
}

TEST(PlatformYamlErrors, GpuIndicesOutOfRange) {
  expect_error(replaced(kBase, "gpus: [2, 3]}", "gpus: [2, 4]}"), "node.nics[1].gpus[1]", "out of range");
  expect_error(replaced(kBase, "gpus: [0, 1]}", "gpus: [-1, 0, 1]}"), "node.nics[0].gpus[0]", "the node has 4 GPUs");
  expect_error(replaced(with_nvlink(), "[2, 3], [3", "[2, 9], [3"), "node.nvlink.connections[2].gpu_b", "out of range");
  expect_error(replaced(with_pcie(), "{socket: 0, gpus: [0, 1]", "{socket: 0, gpus: [0, 7]"),
               "node.pcie.switches[0].gpus[1]", "out of range");
}

TEST(PlatformYamlErrors, NicsMustCoverEachGpuExactlyOnce) {
  expect_error(replaced(kBase, "gpus: [2, 3]}", "gpus: [1, 2, 3]}"), "node.nics[1].gpus[0]",
               "GPU 1 is already under node.nics[0]");
  expect_error(replaced(kBase, "gpus: [2, 3]}", "gpus: [2]}"), "node.nics", "GPU 3 is under no NIC");
  expect_error(replaced(kBase, "gpus: [2, 3]}", "gpus: []}"), "node.nics[1].gpus", "at least one GPU");
  // Compact form: count x gpus_per_nic must be the node's GPUs.
  const std::string nic_lines =
      "    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [0, 1]}\n"
      "    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [2, 3]}\n";
  expect_error(replaced(kBase, nic_lines, "    {count: 3, bandwidth: 100Gbps}\n"), "node.nics.count", "must equal");
  expect_error(replaced(kBase, nic_lines, "    {count: 1, gpus_per_nic: 2, bandwidth: 100Gbps}\n"), "node.nics.count",
               "must equal");
  expect_error(replaced(kBase, nic_lines, "    {count: 2, bandwidth: 100Gbps, gpus: [0]}\n"), "node.nics.gpus",
               "unknown field");
  expect_error(replaced(kBase, nic_lines, "    {bandwidth: 100Gbps}\n"), "node.nics.count", "missing required field");
}

TEST(PlatformYamlErrors, PcieSwitchesMustCoverEachGpuExactlyOnce) {
  expect_error(replaced(with_pcie(), "gpus: [2, 3], uplink", "gpus: [1, 2, 3], uplink"),
               "node.pcie.switches[1].gpus[0]", "already under node.pcie.switches[0]");
  expect_error(replaced(with_pcie(), "gpus: [2, 3], uplink", "gpus: [2], uplink"), "node.pcie.switches",
               "GPU 3 is under no PCIe switch");
  expect_error(replaced(with_pcie(), "{socket: 1, gpus", "{socket: 2, gpus"), "node.pcie.switches[1].socket",
               "between 0 and 1");
  expect_error(replaced(with_pcie(), "    socket_interconnect: {bandwidth: 38.4GB/s}\n", ""),
               "node.pcie.socket_interconnect", "missing required field");
  expect_error(replaced(with_pcie(), ", uplink: {bandwidth: 16GB/s}}\n      - {socket: 1", "}\n      - {socket: 1"),
               "node.pcie.switches[0].uplink", "missing required field");
}

TEST(PlatformYamlErrors, NvlinkPairs) {
  expect_error(replaced(with_nvlink(), "[3, 0]", "[0, 3], [3, 0]"), "node.nvlink.connections[4]",
               "already joined at node.nvlink.connections[3]");
  expect_error(replaced(with_nvlink(), "[2, 3], [3", "[2, 2], [3"), "node.nvlink.connections[2]", "to itself");
  expect_error(replaced(with_nvlink(), "[0, 1, 2]", "[0, 1, 0]"), "node.nvlink.connections[0].links", "between 1");
  expect_error(replaced(with_nvlink(), "[[0, 1, 2], [1, 2], [2, 3], [3, 0]]", "[]"), "node.nvlink.connections",
               "at least one");
  // Without PCIe to fall back on, NVLink must join all GPUs.
  expect_error(replaced(with_nvlink(), "[[0, 1, 2], [1, 2], [2, 3], [3, 0]]", "[[0, 1], [2, 3]]"),
               "node.nvlink.connections", "GPU 2 cannot reach GPU 0");
  expect_error(replaced(kBase, kNvswitchLine, kNvswitchLine + kNvlinkFabric), "node.nvlink", "not both");
}

TEST(PlatformYamlErrors, NetworkShape) {
  expect_error(replaced(kBase, "  oversubscription: 1", "  oversubscription: 0.5"), "network.oversubscription", "between 1 and");
  expect_error(replaced(kBase, "  levels: 2", "  levels: 0"), "network.levels", "between 1 and 3");
  expect_error(replaced(kBase, "  levels: 2", "  levels: 4"), "network.levels", "between 1 and 3");
  expect_error(replaced(kBase, "  switch_radix: 64", "  switch_radix: 1"), "network.switch_radix", "between 2");
}

TEST(PlatformYamlErrors, CrossSectionRules) {
  // More than one GPU and no fabric between them.
  expect_error(replaced(kBase, kNvswitchLine, ""), "node", "needs a fabric");
  // Several nodes (or as many as --gpus needs) need a network ...
  const std::string network =
      "network:\n  topology: fat_tree\n  levels: 2\n  switch_radix: 64\n"
      "  link: {bandwidth: 100Gbps, latency: 0.2us, efficiency: 0.96}\n  oversubscription: 1\n";
  expect_error(replaced(kBase, network, ""), "network", "is missing");
  expect_error(replaced(kBase, network, "nodes: 4\n"), "network", "4 nodes");
  expect_error(replaced(kBase, "  topology: fat_tree", "  topology: none"), "network.topology", "is none");
  // ... and a network needs NICs.
  expect_error(replaced(kBase,
                        "  nics:\n"
                        "    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [0, 1]}\n"
                        "    - {bandwidth: 100Gbps, latency: 1us, efficiency: 0.96, gpus: [2, 3]}\n",
                        ""),
               "node.nics", "through NICs");
  expect_error(replaced(kBase, "name: test\n", "name: test\nnodes: -2\n"), "nodes", "between 0");
}

TEST(PlatformYamlErrors, OddYamlIsBadInputNeverACrash) {
  const std::vector<std::string> documents = {
      "",
      "# only a comment\n",
      "42\n",
      "- a\n- b\n",
      "[1, 2, 3]\n",
      "name: [a, b]\nnode: {gpus: 1}\n",
      "name: t\nnode: 8\n",
      "name: t\nnode: {gpus: 1, gpu: [1, 2]}\n",
      "name: t\nnode: {gpus: 1, gpu: {model: {a: b}}}\n",
      "? [a, b]\n: c\n",
      "name: t\nnode: {gpus: 2, gpu: {model: X, peak_flops: {fp32: 1TFLOPS}, memory_bandwidth: 1GB/s}, nvlink: [1]}\n",
      "name: t\nnode: {gpus: 2, gpu: {model: X, peak_flops: {fp32: 1TFLOPS}, memory_bandwidth: 1GB/s}, nvlink: "
      "{link: {bandwidth: 1GB/s}, connections: [[0, [1]]]}}\n",
      "name: t\nnode: {gpus: 2, gpu: {model: X, peak_flops: {fp32: 1TFLOPS}, memory_bandwidth: 1GB/s}, nics: {}}\n",
      "name: &a t\nnode: *a\n",
      "name: t\nnode: {gpus: 99999999999999999999999}\n",
      "\t- tab\n",
      "name: \"unterminated\n",
      std::string("name: t\0node: x\n", 16),
  };
  for (const std::string& document : documents) {
    SCOPED_TRACE(document);
    EXPECT_THROW(parse_platform_yaml(document, "odd.yaml"), InputError);
  }
}

}  // namespace
}  // namespace scalecast
