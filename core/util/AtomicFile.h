#pragma once

#include <string>
#include <string_view>

namespace post {

// Replaces `path` with `content` so that readers (and a crash) see either the old file or
// the complete new one, never a partial write: writes a temporary file in the same
// directory, fsyncs it, renames it over `path` and fsyncs the directory. An existing
// file's permission bits are kept. On failure removes the temporary file and throws
// InputError naming `path` and the system's reason.
//
// The target is checked first (checkWriteTarget): something that is not a regular file (a
// device, a FIFO, a directory) is refused, never replaced; so is a read-only file unless
// `force`. A symbolic link is written through: the file it points to is replaced and the
// link stays; a link to nothing is refused.
void writeFileAtomically(const std::string& path, std::string_view content, bool force = false);

// Throws InputError naming `path` when writeFileAtomically(path, ..., force) would refuse it
// (see there) or cannot create a file in its directory: for commands to check their outputs
// before a long run rather than lose its result at the end.
void checkWriteTarget(const std::string& path, bool force = false);

// The file a write to `path` replaces: `path`, or where its chain of symlinks ends.
std::string writeTargetOf(const std::string& path);

// Installs SIGINT and SIGTERM handlers that remove the temporary files of writes in
// progress, then end the process as the signal would have. For programs (post-cli,
// post-studio); a handler installed before is called afterwards instead of the default.
void removeTemporaryFilesOnSignals();

} // namespace post
