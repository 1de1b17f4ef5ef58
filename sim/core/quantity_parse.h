// Parsing of the quantities users write: sizes ("64MB", "1GiB", "4096"), bandwidths
// ("25GB/s", "100Gbps") and times ("1.5us", "2ms"). Decimal prefixes are powers of 1000,
// binary ones (KiB, MiB, GiB) powers of 1024; bandwidths in bits are divided by 8.
// Each returns std::nullopt when the text is not such a quantity; callers name the field.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalecast {

std::optional<double> parse_bytes(const std::string& text);
// The same, but a bare number is refused: where a size would otherwise silently mean bytes
// (`--bucket 25` for 25 MiB), the unit must be written.
std::optional<double> parse_bytes_with_unit(const std::string& text);
std::optional<double> parse_bandwidth_Bps(const std::string& text);
std::optional<double> parse_seconds(const std::string& text);

// "8,16,32" or "8-4096" (powers of two from 8 to 4096) or "8:4096:x2"; sizes like "1KB-1GB".
std::optional<std::vector<double>> parse_bytes_list(const std::string& text);
std::optional<std::vector<int>> parse_int_list(const std::string& text);

// Human-readable forms for tables.
std::string format_bytes(double bytes);
std::string format_seconds(double seconds);

}  // namespace scalecast
