// Input files as scalecast reads them. Every file a user names goes through here, so that:
//  - only regular files are read: a FIFO or a device (`--platform /dev/zero`) would block or
//    never end;
//  - a file is read whole only up to a cap of its kind (below), checked while reading, so no
//    input can take unbounded memory;
//  - each input is remembered, and an output that resolves to one of them is refused
//    (atomic_file.h): `--timeline` naming the input trace must not overwrite it.
// Caps (bytes): YAML 4 MiB (the largest shipped file is 22 kB; yaml-cpp needs about 500 bytes of
// memory per node); JSON traces and timelines 1 GiB. $SCALECAST_MAX_INPUT_MB raises or lowers
// every cap (traces/FORMAT.md, platforms/SCHEMA.md).
#pragma once

#include <cstdint>
#include <string>

namespace scalecast {

inline constexpr std::uint64_t kMaxYamlBytes = std::uint64_t{4} << 20;
inline constexpr std::uint64_t kMaxJsonBytes = std::uint64_t{1} << 30;
// YAML structure characters (`,` `:` `-` `[` `{` `?`) per byte of the YAML cap: one per 32
// bytes, 131,072 under the 4 MiB cap. Every list item and mapping entry needs one, and yaml-cpp
// spends about 500 bytes per node (and, inside a flow collection `[...]`, about 250 bytes per
// token queued until the collection closes), so this bounds its memory at some 130 MB before
// any error: a 4 MiB flow list of 2 M items took 1 GB. The largest shipped file has 1,891.
inline constexpr std::uint64_t kYamlBytesPerStructureMark = 32;

// `default_cap_bytes`, or $SCALECAST_MAX_INPUT_MB MiB when that is set to a positive number.
std::uint64_t input_cap_bytes(std::uint64_t default_cap_bytes);

// Throws InputError(path) unless `path` is an existing regular file (or a symlink to one);
// `what` says what was expected ("a platform YAML file").
void check_regular_input(const std::string& path, const std::string& what);

// The whole file, at most `cap_bytes` (InputError beyond, naming the cap and how to raise it).
// Checks it is regular first and remembers it as an input.
std::string read_input_file(const std::string& path, const std::string& what, std::uint64_t cap_bytes);

// Inputs of this process, by the file they resolve to (symlinks followed).
void remember_input(const std::string& path);
bool is_remembered_input(const std::string& path);

// "4 MiB": for messages about caps.
std::string format_cap(std::uint64_t bytes);

}  // namespace scalecast
