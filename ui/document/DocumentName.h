#pragma once

#include <QString>

namespace post {

// The name a document goes by in titles and messages: its file name, with its folder when
// the name says nothing (PipeDream's graph.txt: "resnet50/graph.txt").
QString documentDisplayName(const QString& path);

} // namespace post
