#pragma once

#include <optional>
#include <string>

namespace post {

class RegularInput;

// An ONNX model file's bytes without the bytes of its large weights, which are never read:
// each initializer of the main graph holding over 64 KiB of floating-point raw data (float,
// float16, bfloat16, double) whose length fits its type and dims comes back marked as
// external data (data_location EXTERNAL), as weights kept beside a model in files of their
// own are, and like those it is counted by its dims (docs/importers.md, "Weights"). The file
// is read field by field and those bytes are skipped, so a 553 MB VGG-16 export takes a few
// milliseconds instead of a copy of the whole file (and protobuf's second copy). nullopt
// where the file does not read as protobuf fields (truncated, a group, a length past its
// message): the caller reads it whole, and the parser reports what is wrong. An initializer
// with anything unusual (typed data beside the raw bytes, a length that does not fit its
// dims, external data of its own) is kept as it is, for the checks to find.
std::optional<std::string> onnxWithoutWeightBytes(const RegularInput& file);

} // namespace post
