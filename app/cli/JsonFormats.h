#pragma once

// The "format" tag of every JSON object post-cli prints (--json), "family/version": a
// script checks it before reading a field. Each has a JSON Schema in resources/schemas/
// (docs/formats.md); bump the version when a field changes meaning or goes away.
namespace post::cli {

inline constexpr const char* kInfoJsonFormat = "post-info/1";
inline constexpr const char* kSimulateJsonFormat = "post-simulate/1";
inline constexpr const char* kPlaceJsonFormat = "post-place/1";
inline constexpr const char* kCompareJsonFormat = "post-compare/1";
inline constexpr const char* kZooListJsonFormat = "post-zoo-list/1";

} // namespace post::cli
