#pragma once

#include "core/graph/Collective.h"

#include <string_view>

namespace post {

// The kind of a collective named by a trace, from the letters of its name, lower-cased, by
// prefix, longest first: Chakra's "AllReduce" and "ReduceScatterBlock", c10d's "allreduce_" and
// "_reduce_scatter_base_", NCCL's "AllGather". CollectiveKind::None where no kind's name starts
// the letters (the caller decides what an unnamed collective is).
CollectiveKind collectiveKindOfLetters(std::string_view name);

} // namespace post
