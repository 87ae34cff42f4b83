#pragma once

#include <optional>
#include <string>

namespace post {

// What a path is when it is not a regular file: "a directory", "a FIFO (named pipe)", "a
// character device", "a block device", "a socket"; nullopt for a regular file (a symlink
// counts as what it points to) and for a path that does not exist.
std::optional<std::string> nonRegularKind(const std::string& path);

// Throws InputError naming `path` unless it is a regular file (or "-", standard input, which
// its reader handles). Uses stat only, so it never blocks: an open() of a FIFO waits for a
// writer, forever. A missing file passes; its reader's open() reports it.
void requireRegularInput(const std::string& path);

// True when both paths name the same existing file (same device and inode, through
// symlinks and hard links), or when neither exists and they are the same path once made
// absolute and normalised.
bool sameFile(const std::string& a, const std::string& b);

} // namespace post
