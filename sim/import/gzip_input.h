// Reads a file that may be gzip-compressed, as a stream, without holding it in memory: zlib's
// gzread decompresses (or passes a plain file through) into a small buffer that a JSON parser
// pulls from. Kineto traces are often hundreds of MB once decompressed.
//
// What it hands out is capped, checked chunk by chunk while streaming (a parser still holds one
// string or number whole, so the caps bound its memory too):
//  - every file: kMaxStreamedBytes (8 GiB; $SCALECAST_MAX_INPUT_MB sets every input cap);
//  - a compressed file also: kMaxInflateRatio times its compressed size, at least
//    kInflateFloorBytes. Kineto's JSON deflates 13-17x (the three shared traces); deflate's
//    limit is about 1000x, reached by whitespace or one repeated string: a decompression bomb,
//    1 MB on disk and a GiB read. $SCALECAST_MAX_INFLATE_RATIO sets the ratio.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <memory>
#include <streambuf>
#include <string>

namespace scalecast {

inline constexpr std::uint64_t kMaxStreamedBytes = std::uint64_t{8} << 30;
inline constexpr double kMaxInflateRatio = 100;
inline constexpr std::uint64_t kInflateFloorBytes = std::uint64_t{16} << 20;

// The most a compressed file of `compressed_bytes` may decompress to (before the absolute cap).
std::uint64_t inflate_cap_bytes(std::uint64_t compressed_bytes);

class GzipInputBuffer : public std::streambuf {
 public:
  // Throws InputError when the file is not a regular file or cannot be opened; `what` names
  // what was expected ("a Kineto trace"). Remembers it as an input (sim/core/input_file.h).
  // `buffer_bytes` is the most the read buffer holds; a smaller file gets one of about its
  // (decompressed) size, at least 16 KiB.
  GzipInputBuffer(const std::string& path, const std::string& what, size_t buffer_bytes = 1 << 18);
  ~GzipInputBuffer() override;
  GzipInputBuffer(const GzipInputBuffer&) = delete;
  GzipInputBuffer& operator=(const GzipInputBuffer&) = delete;

  // Bytes handed out so far (decompressed), for error messages.
  size_t offset() const { return consumed_ + static_cast<size_t>(gptr() - eback()); }

 protected:
  // Refills the buffer; throws InputError on a corrupt or truncated gzip stream (zlib reports
  // "unexpected end of file"), so a cut-off download never parses as a shorter trace.
  int_type underflow() override;

 private:
  void check_cap(size_t got) const;

  std::string path_;
  std::string what_;
  gzFile file_ = nullptr;
  bool compressed_ = false;
  std::uint64_t compressed_bytes_ = 0;
  std::uint64_t cap_bytes_ = 0;  // the lower of the two caps that apply
  // Not zeroed (gzread writes before anything reads): clearing 256 KiB per file opened was a
  // fifth of the time of reading a small trace.
  std::unique_ptr<char[]> buffer_;
  size_t buffer_bytes_ = 0;
  size_t consumed_ = 0;
};

}  // namespace scalecast
