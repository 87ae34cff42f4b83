#pragma once

#include "core/graph/Ids.h"

namespace post {

// A tensor flowing from one op to another.
struct Edge {
    OpId from = kNoOp;
    OpId to = kNoOp;
    double bytes = 0.0;
};

} // namespace post
