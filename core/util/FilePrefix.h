#pragma once

#include "core/util/FileText.h"

#include <cstddef>
#include <string>

namespace post {

// The first bytes of a file (FilePrefix, core/util/FileText.h) and its whole size, for readers
// that decide from the start of a file (its format, its magic bytes) whether to read it whole:
// junk is refused by its first 64 KiB, not after reading (and holding) up to 2 GiB of it.
// Throws InputError naming `path` as readFileText does (readRegularInput).
inline FilePrefix readFilePrefix(const std::string& path, std::size_t maxBytes = std::size_t(64) << 10)
{
    return readRegularInput(path, maxBytes, false);
}

} // namespace post
