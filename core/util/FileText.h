#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace post {

// The limit on a file's text, read or decompressed: 2 GiB.
inline constexpr std::size_t kMaxFileTextBytes = std::size_t(2) << 30;

// The first bytes of a file and its whole size (readRegularInput, readFilePrefix).
struct FilePrefix {
    std::string bytes;      // at most the `maxBytes` asked for
    std::uint64_t size = 0; // of the whole file
};

// The one open/fstat/read of an input file behind readFileText and readFilePrefix: opens `path`
// as a regular file and reads up to `maxBytes` of it. Throws InputError naming `path` when it is
// not a regular file (a directory, FIFO, device or socket: refused before any open() that could
// block, and by fstat after it), cannot be opened or read, or, with `refuseLarger`, is larger
// than `maxBytes` (by its size, before anything is read).
FilePrefix readRegularInput(const std::string& path, std::size_t maxBytes, bool refuseLarger);

// Reads a whole file; throws InputError naming the file when it cannot be read, is not a
// regular file (a directory, FIFO, device or socket: refused before any open() that could
// block), or is larger than `maxBytes`. A gzip file (it starts with the magic bytes 1f 8b,
// as PyTorch's `.pt.trace.json.gz` do) is decompressed transparently: `maxBytes` bounds
// the decompressed text as well, so a "gzip bomb" is refused naming the file, and a corrupt
// or truncated stream is an InputError naming the file.
std::string readFileText(const std::string& path, std::size_t maxBytes = kMaxFileTextBytes);

// True when `bytes` starts with the gzip magic bytes (1f 8b).
bool isGzip(std::string_view bytes);

// `bytes` decompressed when it is gzip (isGzip; concatenated members are joined, as gzip -d
// does), returned unchanged otherwise. Throws InputError naming `source` for a corrupt or
// truncated stream and for decompressed text over `maxBytes`.
std::string gunzipIfCompressed(std::string bytes, const std::string& source, std::size_t maxBytes = kMaxFileTextBytes);

} // namespace post
