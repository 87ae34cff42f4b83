#pragma once

#include "core/session/Session.h"

#include <string>
#include <string_view>

namespace post {

// Post Studio's session format, "post-session/1" (see docs/formats.md): a post-graph/1,
// a post-cluster/1 and (when placed) a post-placement/1 document embedded as they are,
// with the learner settings and the run log. Throws InputError naming `source` and the
// field at fault (fields of the embedded documents are prefixed: graph.ops[3].name).
Session parseSession(std::string_view text, const std::string& source);
Session readSessionFile(const std::string& path);

// `session.graph` and `session.cluster` must be set; the placement must be empty or
// cover every op (std::invalid_argument otherwise).
std::string sessionJson(const Session& session);
// Atomic (AtomicFile): a crash leaves the old file or the new one.
void writeSessionFile(const std::string& path, const Session& session);

// True when `text` starts like a post-session document (a cheap sniff for "Open").
bool looksLikeSession(std::string_view text);

} // namespace post
