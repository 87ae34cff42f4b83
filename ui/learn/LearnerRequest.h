#pragma once

#include "document/GraphDocument.h"

#include <QMetaType>

#include <cstdint>
#include <string>

namespace post {

// One learner run: the document keeps the graph and cluster alive while it runs.
struct LearnerRequest {
    quint64 runId = 0;
    DocumentPtr document;
    std::string algorithm = "post";
    int samples = 2400;
    std::uint64_t seed = 1;
};

} // namespace post

Q_DECLARE_METATYPE(post::LearnerRequest)
