// UTF-8 validity of text users give us. YAML files are UTF-8 (YAML 1.2, 5.2) but yaml-cpp passes
// any byte through, and a name holding a stray Latin-1 byte would reach nlohmann's JSON writer,
// which refuses it (type_error.316) after the whole simulation ran. Checked when a file is read.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace scalecast {

// The offset of the first byte that does not start or continue a well-formed UTF-8 character
// (overlong forms, surrogates and code points beyond U+10FFFF included), or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace scalecast
