#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace post {

// The newest IR version and ai.onnx opset the importer reads. libonnx 1.12 (Debian 12)
// knows IR 8 and opset 17; newer models are brought to those forms first
// (docs/importers.md, "Newer opsets").
inline constexpr int kOnnxMaxIrVersion = 11;
inline constexpr int kOnnxMaxOpset = 23;
// The opset libonnx's checker and shape inference see after the rewrite.
inline constexpr int kOnnxLibraryOpset = 17;
inline constexpr int kOnnxLibraryIrVersion = 8;
// Nodes libonnx cannot check or infer are moved to this domain: ONNX skips ops of a
// domain it has no schema for, and OnnxOwnShapes infers what it can of them.
inline constexpr const char* kOnnxOpaqueDomain = "post.opaque";

// True for the ai.onnx domain ("" or "ai.onnx").
inline bool isOnnxDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// Rewrites a model of IR > 8 or opset 18..kOnnxMaxOpset to what libonnx 1.12 reads: ops
// whose inputs or attributes changed in opsets 18-23 take their opset-17 form (Reduce*
// axes as an input become the attribute, Split num_outputs, Pad without axes, Resize
// without antialias, Cast without saturate, ...); ops libonnx has no opset-17 schema for
// (new ops, forms with no opset-17 equivalent) move to kOnnxOpaqueDomain, op type kept.
// Subgraphs (If, Loop, Scan bodies) alike. Nodes of opset <= 17 models are kept, except
// default-domain ops unknown to libonnx, which become opaque too. Call before
// checkOnnxModel; `opset` is the model's ai.onnx opset as read.
void downgradeOnnxModel(onnx::ModelProto& model, int opset);

} // namespace post
