#pragma once

#include "ui/layout/LayoutEngine.h"

#include <QMetaType>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

namespace post {

// An edge's route: cubic Bezier control points (3k+1 of them) from the tail's border
// (or where its arrowhead starts) to where the head's arrowhead starts, and the tips.
struct EdgeRoute {
    std::vector<QPointF> bezier;
    QPointF arrowTip;
    bool tailArrow = false; // two-way edges: an arrowhead at the tail too, ending at tailTip
    QPointF tailTip;
};

// Where the layout put everything, in scene coordinates (y down, origin at the top left).
struct LayoutResult {
    enum class Status { Done, Cancelled, Failed };

    quint64 requestId = 0;
    Status status = Status::Done;
    QString error;                  // when Failed
    std::vector<QRectF> nodeRects;  // indexed like LayoutInput::nodeSizes
    std::vector<EdgeRoute> edges;   // indexed like LayoutInput::edges
    std::vector<QRectF> frameRects; // indexed like LayoutInput::frameParent (empty without frames)
    QRectF bounds;
    LayoutEngine engine = LayoutEngine::Dot;
    double elapsedMs = 0.0;

    bool ok() const { return status == Status::Done; }
};

} // namespace post

Q_DECLARE_METATYPE(post::LayoutResult)
