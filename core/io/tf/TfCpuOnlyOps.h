#pragma once

#include <string_view>

namespace post {

// True for a TensorFlow op type that has no GPU kernel, so TensorFlow without soft
// placement refuses a graph that puts it on a GPU: image decoding and encoding, input
// queues and readers, file I/O, checkpoint save/restore, string ops, summaries, datasets
// and iterators, lookup tables (the table in docs/importers.md). Such ops are pinned to
// the CPU (Op::cpuOnly).
bool tfOpHasNoGpuKernel(std::string_view opType);

} // namespace post
