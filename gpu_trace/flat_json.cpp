#include "gpu_trace/flat_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace scalecast::gpu_trace {

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  char text[40];
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9e15)
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

namespace {

struct Cursor {
  const std::string& text;
  size_t at = 0;
  void skip_space() {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' || text[at] == '\n')) ++at;
  }
  bool take(char c) {
    skip_space();
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
};

bool parse_string(Cursor& cursor, std::string& out, std::string& problem) {
  if (!cursor.take('"')) {
    problem = "expected a string at byte " + std::to_string(cursor.at);
    return false;
  }
  out.clear();
  const std::string& text = cursor.text;
  while (cursor.at < text.size()) {
    char c = text[cursor.at++];
    if (c == '"') return true;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (cursor.at >= text.size()) break;
    char e = text[cursor.at++];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        if (cursor.at + 4 > text.size()) break;
        unsigned code = std::strtoul(text.substr(cursor.at, 4).c_str(), nullptr, 16);
        cursor.at += 4;
        // Only what json_quote writes (control characters) and the BMP as UTF-8.
        if (code < 0x80) {
          out += static_cast<char>(code);
        } else if (code < 0x800) {
          out += static_cast<char>(0xC0 | (code >> 6));
          out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (code >> 12));
          out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (code & 0x3F));
        }
        break;
      }
      default:
        problem = "bad escape in a string at byte " + std::to_string(cursor.at - 1);
        return false;
    }
  }
  problem = "unterminated string";
  return false;
}

}  // namespace

bool parse_flat_object(const std::string& text, FlatObject& object, std::string& problem) {
  object.clear();
  Cursor cursor{text};
  if (!cursor.take('{')) {
    problem = "expected a JSON object ('{')";
    return false;
  }
  if (cursor.take('}')) {
    cursor.skip_space();
    if (cursor.at != text.size()) problem = "unexpected text after the object";
    return cursor.at == text.size();
  }
  while (true) {
    std::string key;
    if (!parse_string(cursor, key, problem)) return false;
    if (!cursor.take(':')) {
      problem = "expected ':' after key \"" + key + "\"";
      return false;
    }
    if (object.count(key)) {
      problem = "duplicate key \"" + key + "\"";
      return false;
    }
    FlatValue value;
    cursor.skip_space();
    if (cursor.at < text.size() && text[cursor.at] == '"') {
      value.is_string = true;
      if (!parse_string(cursor, value.text, problem)) return false;
    } else {
      size_t begin = cursor.at;
      while (cursor.at < text.size() && (std::isdigit(static_cast<unsigned char>(text[cursor.at])) ||
                                         text[cursor.at] == '-' || text[cursor.at] == '+' || text[cursor.at] == '.' ||
                                         text[cursor.at] == 'e' || text[cursor.at] == 'E'))
        ++cursor.at;
      value.text = text.substr(begin, cursor.at - begin);
      char* end = nullptr;
      value.number = value.text.empty() ? 0 : std::strtod(value.text.c_str(), &end);
      if (value.text.empty() || end != value.text.c_str() + value.text.size()) {
        problem = "value of \"" + key + "\" is not a string or a number (nested values are not allowed here)";
        return false;
      }
    }
    object[key] = value;
    if (cursor.take(',')) continue;
    if (cursor.take('}')) break;
    problem = "expected ',' or '}' at byte " + std::to_string(cursor.at);
    return false;
  }
  cursor.skip_space();
  if (cursor.at != text.size()) {
    problem = "unexpected text after the object at byte " + std::to_string(cursor.at);
    return false;
  }
  return true;
}

}  // namespace scalecast::gpu_trace
