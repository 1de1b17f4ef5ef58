#include "sim/platform/platform_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/core/preset_paths.h"
#include "sim/core/yaml_input.h"
#include "sim/core/quantity_parse.h"

namespace scalecast {

namespace {

// Bounds that only guard against absurd input (and the memory it would make us allocate).
constexpr long long kMaxGpusPerNode = 1024;
constexpr long long kMaxNodes = 1000000;
constexpr long long kMaxSockets = 16;
constexpr long long kMaxBondedLinks = 64;
constexpr long long kMaxSwitchRadix = 65536;
constexpr long long kMaxChannels = 1024;

using namespace yaml;  // Field, MapReader, read_* (sim/core/yaml_input.h)

using QuantityParser = std::optional<double> (*)(const std::string&);

// A quantity within its physical range (sim/core/physical_limits.h); `positive`: 0 is refused
// even where the range starts at 0 (a size).
double read_quantity(const Field& field, QuantityParser parse, const std::string& expected,
                     const limits::Range& range, bool positive = false) {
  const std::string text = read_scalar(field);
  std::optional<double> value = parse(text);
  if (!value) field.fail("expected " + expected + ", got '" + text + "'");
  if (positive && *value <= 0) field.fail("must be positive, got '" + text + "'");
  if (!limits::within(*value, range)) field.fail(limits::out_of_range(range, "'" + text + "'"));  // also inf, NaN
  return *value;
}

double read_positive_bandwidth_Bps(const Field& field) {
  return read_quantity(field, parse_bandwidth_Bps, "a bandwidth such as 25GB/s or 100Gbps", limits::kBandwidth_Bps, true);
}

double read_latency_s(const Field& field) {
  // A bare 0 needs no unit; any other time does ("1us"), so that "1" cannot mean a second by accident.
  if (field.node().IsScalar() && trim(field.node().Scalar()) == "0") return 0;
  const std::string text = read_scalar(field);
  if (auto value = parse_seconds(text); value && *value < 0) field.fail("a latency must not be negative, got '" + text + "'");
  return read_quantity(field, parse_seconds, "a time such as 1.5us or 2ms", limits::kLatency_s);
}

// A measured NCCL step: a positive time.
double read_step_latency_s(const Field& field) {
  const double latency_s = read_latency_s(field);
  if (latency_s <= 0) field.fail("a measured step latency must be positive (a time such as 2us), got 0");
  return latency_s;
}

double read_positive_bytes(const Field& field) {
  return read_quantity(field, parse_bytes, "a size such as 32GiB or 80GB", limits::kBytes, true);
}

double read_positive_flops_per_s(const Field& field) {
  return read_quantity(field, parse_flops_per_s, "a FLOP rate such as 125TFLOPS or 15.7 TFLOP/s",
                       limits::kFlopRate_per_s, true);
}

double read_efficiency(const Field& field) {
  double value = read_number(field);
  if (value <= 0 || value > 1)
    field.fail("an efficiency is the achievable fraction of the nominal rate: it must be in (0, 1]");
  if (!limits::within(value, limits::kEfficiency)) field.fail(limits::out_of_range(limits::kEfficiency, read_scalar(field)));
  return value;
}

int read_gpu_index(const Field& field, int gpus) {
  const long long index = read_integer(field, LLONG_MIN, LLONG_MAX);
  if (index < 0 || index >= gpus) {
    field.fail("GPU index " + std::to_string(index) + " is out of range: the node has " + std::to_string(gpus) +
               " GPUs (0.." + std::to_string(gpus - 1) + ")");
  }
  return static_cast<int>(index);
}

std::vector<int> read_gpu_list(const Field& field, int gpus) {
  std::vector<int> indices;
  for (const Field& item : field.items()) indices.push_back(read_gpu_index(item, gpus));
  if (indices.empty()) field.fail("must list at least one GPU");
  return indices;
}

// ---- links ----------------------------------------------------------------------------------

const std::vector<std::string> kLinkFields = {"bandwidth", "latency", "efficiency"};

std::vector<std::string> with_link_fields(std::vector<std::string> names) {
  names.insert(names.end(), kLinkFields.begin(), kLinkFields.end());
  return names;
}

// The link fields of a mapping that may hold other fields too (a NIC, a compact NIC list).
LinkSpec link_from(const MapReader& map) {
  LinkSpec link;
  link.bandwidth_Bps = read_positive_bandwidth_Bps(map.required("bandwidth"));
  if (auto latency = map.optional("latency")) link.latency_s = read_latency_s(*latency);
  if (auto efficiency = map.optional("efficiency")) link.efficiency = read_efficiency(*efficiency);
  return link;
}

LinkSpec read_link(const Field& field) { return link_from(MapReader(field, kLinkFields)); }

// Several lists together must name every GPU of the node exactly once (PCIe switches, NICs).
class GpuAssignment {
 public:
  GpuAssignment(int gpus, std::string holder) : owners_(gpus), holder_(std::move(holder)) {}

  void claim(int gpu, const Field& at, const std::string& owner) {
    if (!owners_[gpu].empty()) {
      at.fail("GPU " + std::to_string(gpu) + " is already under " + owners_[gpu] +
              "; each GPU belongs to exactly one " + holder_);
    }
    owners_[gpu] = owner;
  }

  void require_all(const Field& list) const {
    for (size_t gpu = 0; gpu < owners_.size(); ++gpu) {
      if (owners_[gpu].empty())
        list.fail("GPU " + std::to_string(gpu) + " is under no " + holder_ + "; each GPU belongs to exactly one");
    }
  }

 private:
  std::vector<std::string> owners_;
  std::string holder_;
};

// ---- node -----------------------------------------------------------------------------------

const std::vector<std::string> kPrecisions = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};

const std::map<std::string, GpuArchitecture> kArchitectures = {{"volta", GpuArchitecture::volta},
                                                                {"ampere", GpuArchitecture::ampere},
                                                                {"hopper", GpuArchitecture::hopper},
                                                                {"blackwell", GpuArchitecture::blackwell}};

// NCCL's GPU class from the model name (NVIDIA's naming): V100 Volta; A100, A10/A30/A40 and the
// Ada cards (L4, L40, L40S, RTX 40xx / 6000 Ada), which NCCL tunes as Ampere; H100, H200, H20,
// H800, GH200 Hopper; B100, B200, GB200, B300 Blackwell.
std::optional<GpuArchitecture> architecture_of_model(const std::string& model) {
  std::string upper;
  for (char c : model) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto has = [&](const char* word) { return upper.find(word) != std::string::npos; };
  if (has("B100") || has("B200") || has("B300") || has("GB200") || has("GB300")) return GpuArchitecture::blackwell;
  if (has("H100") || has("H200") || has("H20") || has("H800") || has("GH200")) return GpuArchitecture::hopper;
  if (has("V100")) return GpuArchitecture::volta;
  if (has("A100") || has("A10") || has("A30") || has("A40") || has("A800") || has("L4") || has("L40") ||
      has("RTX") || has("ADA"))
    return GpuArchitecture::ampere;
  return std::nullopt;
}

GpuArchitecture read_architecture(const MapReader& map, const std::string& model) {
  if (auto field = map.optional("architecture")) {
    const std::string name = read_scalar(*field);
    auto it = kArchitectures.find(name);
    if (it == kArchitectures.end()) field->fail("unknown architecture '" + name + "'; expected volta, ampere, hopper or blackwell");
    return it->second;
  }
  // A model the names above do not cover takes NCCL's SM80 tables (SCHEMA.md: set it).
  return architecture_of_model(model).value_or(GpuArchitecture::ampere);
}

GpuSpec read_gpu(const Field& field) {
  MapReader map(field,
                {"model", "architecture", "peak_flops", "memory_bandwidth", "memory", "multiprocessors", "sustained_compute"});
  GpuSpec gpu;
  gpu.source = field.source();
  gpu.model_field = join_path(field.path(), "model");
  gpu.model = read_name(map.required("model"));
  gpu.architecture = read_architecture(map, gpu.model);
  MapReader flops(map.required("peak_flops"), kPrecisions);
  for (const auto& [precision, value] : flops.fields()) {
    gpu.peak_flops_per_s[precision] = read_positive_flops_per_s(value);
  }
  if (gpu.peak_flops_per_s.empty()) flops.field().fail("must give at least one precision: " + join_words(kPrecisions));
  gpu.memory_bandwidth_Bps = read_positive_bandwidth_Bps(map.required("memory_bandwidth"));
  if (auto memory = map.optional("memory")) gpu.memory_bytes = read_positive_bytes(*memory);
  if (auto sms = map.optional("multiprocessors")) gpu.multiprocessors = static_cast<int>(read_integer(*sms, 1, 1 << 16));
  if (auto sustained = map.optional("sustained_compute")) gpu.sustained_compute = read_efficiency(*sustained);
  return gpu;
}

// [gpu_a, gpu_b] or [gpu_a, gpu_b, links]; paths name the parts (".gpu_b", ".links").
NvlinkConnection read_nvlink_connection(const Field& field, int gpus) {
  if (!field.node().IsSequence() || field.node().size() < 2 || field.node().size() > 3) {
    field.fail("expected [gpu_a, gpu_b] or [gpu_a, gpu_b, links], got " + field.kind());
  }
  std::vector<Field> parts = field.items();
  NvlinkConnection connection;
  connection.gpu_a = read_gpu_index(parts[0].with_path(field.path() + ".gpu_a"), gpus);
  connection.gpu_b = read_gpu_index(parts[1].with_path(field.path() + ".gpu_b"), gpus);
  if (parts.size() == 3) {
    connection.links = static_cast<int>(read_integer(parts[2].with_path(field.path() + ".links"), 1, kMaxBondedLinks));
  }
  if (connection.gpu_a == connection.gpu_b) {
    field.fail("connects GPU " + std::to_string(connection.gpu_a) + " to itself");
  }
  return connection;
}

NvlinkFabric read_nvlink(const Field& field, int gpus) {
  MapReader map(field, {"link", "connections"});
  NvlinkFabric fabric;
  fabric.per_link = read_link(map.required("link"));
  const Field list = map.required("connections");
  std::map<std::pair<int, int>, std::string> seen;  // unordered pair -> where it was first listed
  for (const Field& item : list.items()) {
    NvlinkConnection connection = read_nvlink_connection(item, gpus);
    auto pair = std::minmax(connection.gpu_a, connection.gpu_b);
    auto [it, fresh] = seen.emplace(pair, item.path());
    if (!fresh) {
      item.fail("GPUs " + std::to_string(pair.first) + " and " + std::to_string(pair.second) +
                " are already joined at " + it->second +
                "; give the number of bonded links as the third value instead");
    }
    fabric.connections.push_back(connection);
  }
  if (fabric.connections.empty()) list.fail("must list at least one connection");
  return fabric;
}

PcieFabric read_pcie(const Field& field, int gpus) {
  MapReader map(field, {"gpu_link", "sockets", "socket_interconnect", "switches"});
  PcieFabric fabric;
  fabric.gpu_link = read_link(map.required("gpu_link"));
  if (auto sockets = map.optional("sockets")) fabric.sockets = static_cast<int>(read_integer(*sockets, 1, kMaxSockets));
  if (fabric.sockets > 1) {
    fabric.socket_interconnect = read_link(map.required("socket_interconnect"));
  } else if (auto interconnect = map.optional("socket_interconnect")) {
    fabric.socket_interconnect = read_link(*interconnect);
  }
  const Field list = map.required("switches");
  GpuAssignment assignment(gpus, "PCIe switch");
  for (const Field& item : list.items()) {
    MapReader entry(item, {"socket", "gpus", "uplink"});
    PcieSwitch pcie_switch;
    if (auto socket = entry.optional("socket")) {
      pcie_switch.socket = static_cast<int>(read_integer(*socket, 0, fabric.sockets - 1));
    }
    const Field gpu_list = entry.required("gpus");
    pcie_switch.gpus = read_gpu_list(gpu_list, gpus);
    std::vector<Field> gpu_fields = gpu_list.items();
    for (size_t i = 0; i < gpu_fields.size(); ++i) assignment.claim(pcie_switch.gpus[i], gpu_fields[i], item.path());
    pcie_switch.uplink = read_link(entry.required("uplink"));
    fabric.switches.push_back(pcie_switch);
  }
  if (fabric.switches.empty()) list.fail("must list at least one switch");
  assignment.require_all(list);
  return fabric;
}

// Either a list of NICs, each with its GPUs, or the compact form
// {count, gpus_per_nic, bandwidth, ...}: NIC i serves GPUs i*gpus_per_nic .. (i+1)*gpus_per_nic-1.
std::vector<NicSpec> read_nics(const Field& field, int gpus) {
  std::vector<NicSpec> nics;
  if (field.node().IsMap()) {
    MapReader map(field, with_link_fields({"count", "gpus_per_nic"}));
    const Field count_field = map.required("count");
    const int count = static_cast<int>(read_integer(count_field, 1, gpus));
    int gpus_per_nic = gpus / count;
    if (auto per_nic = map.optional("gpus_per_nic")) gpus_per_nic = static_cast<int>(read_integer(*per_nic, 1, gpus));
    if (count * gpus_per_nic != gpus) {
      count_field.fail(std::to_string(count) + " NICs x " + std::to_string(gpus_per_nic) +
                       " GPUs per NIC must equal the node's " + std::to_string(gpus) + " GPUs");
    }
    const LinkSpec link = link_from(map);
    for (int nic = 0; nic < count; ++nic) {
      NicSpec spec{link, {}};
      for (int gpu = nic * gpus_per_nic; gpu < (nic + 1) * gpus_per_nic; ++gpu) spec.gpus.push_back(gpu);
      nics.push_back(spec);
    }
    return nics;
  }
  if (!field.node().IsSequence())
    field.fail("expected a list of NICs or {count: N, bandwidth: ...}, got " + field.kind());
  GpuAssignment assignment(gpus, "NIC");
  for (const Field& item : field.items()) {
    MapReader map(item, with_link_fields({"gpus"}));
    NicSpec nic;
    nic.link = link_from(map);
    const Field gpu_list = map.required("gpus");
    nic.gpus = read_gpu_list(gpu_list, gpus);
    std::vector<Field> gpu_fields = gpu_list.items();
    for (size_t i = 0; i < gpu_fields.size(); ++i) assignment.claim(nic.gpus[i], gpu_fields[i], item.path());
    nics.push_back(nic);
  }
  if (!nics.empty()) assignment.require_all(field);
  return nics;
}

// Without NVSwitch or PCIe, NVLink is the only way between GPUs: every GPU must reach every
// other one, possibly through others.
void require_nvlink_connected(const NvlinkFabric& fabric, int gpus, const Field& at) {
  std::vector<int> component(gpus);
  for (int gpu = 0; gpu < gpus; ++gpu) component[gpu] = gpu;
  auto root = [&](int gpu) {
    while (component[gpu] != gpu) gpu = component[gpu] = component[component[gpu]];
    return gpu;
  };
  for (const NvlinkConnection& connection : fabric.connections)
    component[root(connection.gpu_a)] = root(connection.gpu_b);
  for (int gpu = 1; gpu < gpus; ++gpu) {
    if (root(gpu) != root(0)) {
      at.fail("GPU " + std::to_string(gpu) +
              " cannot reach GPU 0 over NVLink, and the node has no pcie section to fall back on");
    }
  }
}

// NVLink SHARP comes with the third-generation NVSwitch, which came with Hopper.
NvswitchFabric read_nvswitch(const Field& field, GpuArchitecture gpu) {
  MapReader map(field, with_link_fields({"links", "nvls"}));
  NvswitchFabric fabric;
  fabric.per_gpu = link_from(map);
  if (auto links = map.optional("links")) fabric.links = static_cast<int>(read_integer(*links, 1, kMaxBondedLinks));
  fabric.nvls = gpu == GpuArchitecture::hopper || gpu == GpuArchitecture::blackwell;
  if (auto nvls = map.optional("nvls")) {
    const std::string value = read_scalar(*nvls);
    if (value != "true" && value != "false") nvls->fail("expected true or false, got '" + value + "'");
    fabric.nvls = value == "true";
    if (fabric.nvls && !(gpu == GpuArchitecture::hopper || gpu == GpuArchitecture::blackwell))
      nvls->fail("NVLink SHARP needs Hopper or newer GPUs (third-generation NVSwitch)");
  }
  return fabric;
}

NodeSpec read_node(const Field& field) {
  MapReader map(field, {"gpus", "gpu", "nvswitch", "nvlink", "pcie", "nics"});
  NodeSpec node;
  node.gpus = static_cast<int>(read_integer(map.required("gpus"), 1, kMaxGpusPerNode));
  node.gpu = read_gpu(map.required("gpu"));
  if (auto nvswitch = map.optional("nvswitch")) node.nvswitch = read_nvswitch(*nvswitch, node.gpu.architecture);
  if (auto nvlink = map.optional("nvlink")) {
    if (node.nvswitch) nvlink->fail("a node has either nvswitch or nvlink, not both");
    node.nvlink = read_nvlink(*nvlink, node.gpus);
  }
  if (auto pcie = map.optional("pcie")) node.pcie = read_pcie(*pcie, node.gpus);
  if (auto nics = map.optional("nics")) node.nics = read_nics(*nics, node.gpus);

  if (node.gpus > 1 && !node.nvswitch && !node.nvlink && !node.pcie) {
    field.fail("a node of " + std::to_string(node.gpus) +
               " GPUs needs a fabric between them: nvswitch, nvlink or pcie");
  }
  if (node.nvlink && !node.pcie) {
    const Field connections = map.required("nvlink").with_path(join_path(field.path(), "nvlink.connections"));
    require_nvlink_connected(*node.nvlink, node.gpus, connections);
  }
  return node;
}

// ---- network and collectives ----------------------------------------------------------------

NetworkSpec read_network(const Field& field) {
  MapReader map(field, {"topology", "levels", "switch_radix", "link", "oversubscription"});
  NetworkSpec network;
  const Field topology = map.required("topology");
  const std::string name = read_scalar(topology);
  if (name == "fat_tree") {
    network.topology = NetworkSpec::Topology::fat_tree;
  } else if (name == "rail_optimized") {
    network.topology = NetworkSpec::Topology::rail_optimized;
  } else if (name == "none") {
    network.topology = NetworkSpec::Topology::none;
  } else {
    topology.fail("unknown topology '" + name + "'; expected fat_tree, rail_optimized or none");
  }
  if (auto levels = map.optional("levels")) network.levels = static_cast<int>(read_integer(*levels, 1, 3));
  if (auto radix = map.optional("switch_radix"))
    network.switch_radix = static_cast<int>(read_integer(*radix, 2, kMaxSwitchRadix));
  if (network.topology != NetworkSpec::Topology::none) {
    network.link = read_link(map.required("link"));
  } else if (auto link = map.optional("link")) {
    network.link = read_link(*link);
  }
  if (auto ratio = map.optional("oversubscription")) {
    network.oversubscription = read_number(*ratio);
    // A leaf keeps at least one port up: down / up is at most radix - 1 (63:1 at radix 64).
    const int max_ratio = network.switch_radix - 1;
    if (network.oversubscription < 1 || network.oversubscription > max_ratio)
      ratio->fail("oversubscription is down-bandwidth / up-bandwidth of a leaf switch: it must be between 1 and " +
                  std::to_string(max_ratio) + " (switch_radix - 1: one port up), got " + read_scalar(*ratio));
  }
  return network;
}

CollectiveCalibration read_collectives(const Field& field) {
  MapReader map(field, {"base_latency", "intra_step_latency", "inter_step_latency", "channels", "cpu_vendor"});
  CollectiveCalibration calibration;
  if (auto value = map.optional("base_latency")) calibration.base_latency_s = read_latency_s(*value);
  // A measured step scales every protocol's step on its path (collective_cost.cpp): 0 would
  // make them all free, so it must be positive.
  if (auto value = map.optional("intra_step_latency")) calibration.intra_step_latency_s = read_step_latency_s(*value);
  if (auto value = map.optional("inter_step_latency")) calibration.inter_step_latency_s = read_step_latency_s(*value);
  if (auto value = map.optional("channels"))
    calibration.channels = static_cast<int>(read_integer(*value, 0, kMaxChannels));
  if (auto value = map.optional("cpu_vendor")) {
    const std::string vendor = read_scalar(*value);
    if (vendor != "intel" && vendor != "amd") value->fail("expected intel or amd, got '" + vendor + "'");
    calibration.cpu_vendor = vendor == "amd" ? CpuVendor::amd : CpuVendor::intel;
  }
  return calibration;
}

VariabilitySpec read_variability(const Field& field) {
  MapReader map(field, {"compute_cv", "seed"});
  VariabilitySpec variability;
  if (auto cv = map.optional("compute_cv")) {
    const double value = read_number(*cv);
    if (value < 0 || value > 1)
      cv->fail("is the std. deviation / mean of a rank's GPU time per step: expected a fraction in [0, 1], got " +
               std::to_string(value));
    variability.compute_cv = value;
  }
  if (auto seed = map.optional("seed")) variability.seed = static_cast<std::uint64_t>(read_integer(*seed, 0, LLONG_MAX));
  return variability;
}

// Checks that need several sections at once.
void check_platform(const PlatformSpec& spec, const MapReader& top) {
  const bool has_network = spec.network.topology != NetworkSpec::Topology::none;
  if (spec.nodes != 1 && !has_network) {
    const std::string nodes =
        spec.nodes == 0 ? "as many nodes as the GPUs asked for need" : std::to_string(spec.nodes) + " nodes";
    const Field at = top.has("network") ? top.required("network").with_path("network.topology")
                                        : top.field().missing_child("network");
    at.fail((top.has("network") ? "is none" : "is missing") + std::string(", but the platform has ") + nodes +
            "; describe the network between nodes, or set nodes: 1");
  }
  if (has_network && spec.node.nics.empty()) {
    top.required("node").missing_child("nics").fail("is missing: nodes reach the network through NICs");
  }
}

PlatformSpec read_platform(const YAML::Node& root, const std::string& source) {
  const Field document(root, source, "");
  if (document.is_null()) document.fail("is empty; expected a platform description (name, node, network, ...)");
  MapReader top(document, {"name", "node", "nodes", "network", "collectives", "variability"});
  PlatformSpec spec;
  spec.source = source;
  spec.name = read_name(top.required("name"));
  spec.node = read_node(top.required("node"));
  if (auto nodes = top.optional("nodes")) spec.nodes = static_cast<int>(read_integer(*nodes, 0, kMaxNodes));
  if (auto network = top.optional("network")) spec.network = read_network(*network);
  if (auto collectives = top.optional("collectives")) spec.collectives = read_collectives(*collectives);
  if (auto variability = top.optional("variability")) spec.variability = read_variability(*variability);
  check_platform(spec, top);
  return spec;
}

}  // namespace

const char* to_string(GpuArchitecture architecture) {
  for (const auto& [name, value] : kArchitectures)
    if (value == architecture) return name.c_str();
  return "?";
}

GpuSpec read_gpu_spec(const Field& field) { return read_gpu(field); }

const std::vector<std::string>& gpu_precisions() { return kPrecisions; }

std::optional<double> parse_flops_per_s(const std::string& raw) {
  const std::string text = trim(raw);
  double number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end == text.data() || !std::isfinite(number)) return std::nullopt;
  std::string unit = trim(std::string(end, text.data() + text.size()));
  if (unit.empty()) return number;
  static const std::map<char, double> prefixes = {{'G', 1e9}, {'T', 1e12}, {'P', 1e15}};
  double scale = 1;
  if (auto prefix = prefixes.find(unit[0]); prefix != prefixes.end()) {
    scale = prefix->second;
    unit.erase(0, 1);
  }
  if (unit == "FLOPS" || unit == "FLOP/s") return number * scale;
  return std::nullopt;
}

PlatformSpec parse_platform_yaml(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_yaml(yaml_text, source);
  try {
    return read_platform(root, source);
  } catch (const YAML::Exception& error) {
    // Every access above checks the node's type first; this is a last guard so that odd YAML
    // is reported as bad input, never as a crash.
    throw InputError(source, "", std::string("unreadable YAML structure: ") + error.what());
  }
}

std::vector<std::string> platform_presets() { return preset_names(PresetKind::platform); }

PlatformSpec load_platform(const std::string& path_or_preset) {
  std::string path = path_or_preset;
  if (!looks_like_path(path_or_preset) && !std::filesystem::is_regular_file(path_or_preset)) {
    const auto preset = find_preset_file(PresetKind::platform, path_or_preset);
    if (!preset) {
      const std::vector<std::string> presets = platform_presets();
      const std::string available = presets.empty() ? "none found" : join_words(presets);
      throw InputError(path_or_preset, "", "not a file and not a platform preset; available presets: " + available);
    }
    path = *preset;
  }
  return parse_platform_yaml(read_text_file(path, "a platform YAML file"), path);
}

}  // namespace scalecast
