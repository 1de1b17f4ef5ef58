// Reading a cluster description (platforms/SCHEMA.md) from YAML into a PlatformSpec.
// Everything is validated here, so later stages can trust the spec: every problem becomes an
// InputError naming the file and the dotted field path ("node.nvlink.connections[3].links").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/platform/platform_spec.h"

namespace scalecast {

namespace yaml {
class Field;
}

// `path_or_preset` is a YAML file, or the name of a preset: the file <name>.yaml in the preset
// folders (sim/core/preset_paths.h: $SCALECAST_PLATFORMS_DIR first when set, then platforms/ in
// the source tree). A text with a '/' or ending in .yaml/.yml is always taken as a path.
PlatformSpec load_platform(const std::string& path_or_preset);

// Parses YAML text; `source` names it in error messages and is stored in PlatformSpec::source.
PlatformSpec parse_platform_yaml(const std::string& yaml_text, const std::string& source);

// The preset names over all preset folders (sorted, without ".yaml").
std::vector<std::string> platform_presets();

// A `gpu` mapping (SCHEMA.md "node.gpu": model, peak_flops, memory_bandwidth, memory); the cost
// model's reference GPUs are written the same way.
GpuSpec read_gpu_spec(const yaml::Field& field);

// The precisions a GPU's peak_flops may name (fp64, fp32, tf32, fp16, bf16, fp8); the cost
// model's precisions and peaks are the same names.
const std::vector<std::string>& gpu_precisions();

// "125TFLOPS", "15.7 TFLOP/s", "1.5e13": FLOP/s, or nullopt when the text is not a FLOP rate.
// Prefixes G, T, P are powers of 1000.
std::optional<double> parse_flops_per_s(const std::string& text);

}  // namespace scalecast
