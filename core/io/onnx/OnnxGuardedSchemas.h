#pragma once

// Internal to the ONNX importer (includes the ONNX schema headers; core .cpp files only).
#include <onnx/defs/schema.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace post {

// The ONNX schema registry as shape inference sees it, with a check in front of every
// inference function. ONNX 1.12's functions (uninstrumented, inside libonnx) index input
// dimensions and divide by attributes they never checked, so a malformed model crashes
// them (docs/testing.md, "Fuzzers"). The check sees the node's actual input types at the
// moment its function runs, including shapes inferred earlier in the same pass, and
// refuses what would crash with the library's own InferenceError, which names the node.
class OnnxGuardedSchemas final : public onnx::ISchemaRegistry {
public:
    const onnx::OpSchema* GetSchema(const std::string& key, const int maxInclusiveVersion,
                                    const std::string& domain) const override;

private:
    mutable std::mutex mutex_;
    mutable std::unordered_map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
};

} // namespace post
