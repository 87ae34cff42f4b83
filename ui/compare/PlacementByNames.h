#pragma once

#include "core/graph/Placement.h"
#include "ui/document/GraphDocument.h"

#include <QString>

namespace post {

// Another document's placement carried over to `mine`'s graph and cluster by op and device
// names (the same file read in two windows, or two files of one graph). Empty, with
// `problem` set to a sentence naming both sides (`myName`, `theirName`), when `theirs` shows
// no placement, the graphs differ (op count, an op name) or `mine`'s cluster lacks a device
// `theirs` places ops on.
Placement placementByNames(const GraphDocument& mine, const QString& myName, const DocumentPtr& theirs,
                           const QString& theirName, QString* problem);

} // namespace post
