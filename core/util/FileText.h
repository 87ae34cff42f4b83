#pragma once

#include <string>

namespace post {

// Reads a whole file; throws InputError naming the file when it cannot be read, is not a
// regular file (a directory, FIFO, device or socket: refused before any open() that could
// block), or is larger than `maxBytes`.
std::string readFileText(const std::string& path, std::size_t maxBytes = std::size_t(2) << 30);

} // namespace post
