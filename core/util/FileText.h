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

// The one read of an input file behind readFileText and readFilePrefix: opens `path` as
// openRegularInput does and reads up to `maxBytes` of it (what is there, where it shrank
// meanwhile). Throws InputError naming `path` as openRegularInput does, and when it cannot be
// read.
FilePrefix readRegularInput(const std::string& path, std::size_t maxBytes, bool refuseLarger);

// A regular file open for reads at any offset (openRegularInput), so that a reader can take
// the parts of a large file it needs and leave the rest unread (ONNX weights:
// onnxWithoutWeightBytes).
class RegularInput {
public:
    RegularInput(const RegularInput&) = delete;
    RegularInput& operator=(const RegularInput&) = delete;
    RegularInput(RegularInput&& other) noexcept;
    RegularInput& operator=(RegularInput&&) = delete;
    ~RegularInput();

    std::uint64_t size() const { return size_; }
    // Reads `n` bytes at `offset` into `out`; false where the file ends first (it shrank) or
    // the read fails.
    bool readAt(std::uint64_t offset, std::size_t n, char* out) const;
    // Reads up to `n` bytes at `offset` into `out`: how many (fewer where the file ends
    // first), or -1 when a read fails (errno tells why).
    std::int64_t readUpTo(std::uint64_t offset, std::size_t n, char* out) const;

private:
    friend RegularInput openRegularInput(const std::string& path, std::size_t maxBytes, bool refuseLarger);
    RegularInput(int fd, std::uint64_t size)
        : fd_(fd)
        , size_(size)
    {
    }
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

// `path` opened as a regular file: throws InputError naming it when it is not one (a
// directory, FIFO, device or socket: refused before any open() that could block, and by fstat
// after it), cannot be opened, or, with `refuseLarger`, is larger than `maxBytes`.
RegularInput openRegularInput(const std::string& path, std::size_t maxBytes, bool refuseLarger = true);

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
