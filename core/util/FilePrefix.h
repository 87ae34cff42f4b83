#pragma once

#include <cstdint>
#include <string>

namespace post {

// The first bytes of a file and its whole size, for readers that decide from the start of a
// file (its format, its magic bytes) whether to read it whole: junk is refused by its first
// 64 KiB, not after reading (and holding) up to 2 GiB of it.
struct FilePrefix {
    std::string bytes;      // at most the `maxBytes` asked for
    std::uint64_t size = 0; // of the whole file
};

// Throws InputError naming `path` as readFileText does: not a regular file (checked before
// any open() that could block), cannot be opened or read.
FilePrefix readFilePrefix(const std::string& path, std::size_t maxBytes = std::size_t(64) << 10);

} // namespace post
