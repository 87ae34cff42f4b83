#pragma once

#include <string>
#include <string_view>

namespace post {

// Replaces `path` with `content` so that readers (and a crash) see either the old file or
// the complete new one, never a partial write: writes a temporary file in the same
// directory, fsyncs it, renames it over `path` and fsyncs the directory. An existing
// file's permission bits are kept. On failure removes the temporary file and throws
// InputError naming `path` and the system's reason.
void writeFileAtomically(const std::string& path, std::string_view content);

} // namespace post
