#pragma once

#include <QString>

namespace post {

// What the node colours mean.
enum class ColourMode { Device, OpType, ComputeTime, Memory };

inline constexpr ColourMode kColourModes[] = {ColourMode::Device, ColourMode::OpType, ColourMode::ComputeTime,
                                              ColourMode::Memory};

QString toString(ColourMode mode); // for menus: "Device", "Op type", ...

} // namespace post
