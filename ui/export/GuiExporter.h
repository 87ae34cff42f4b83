#pragma once

#include "ui/document/GraphDocument.h"

#include <QString>

namespace post {

class GraphScene;
struct SimResult;

// What File ▸ Export writes, without dialogs (the menu and the tests call these). Every
// write is atomic (core's writeFileAtomically); failures throw InputError naming the file.
// Placement exports need a placed document (InputError otherwise).
struct GuiExporter {
    static void placementJson(const GraphDocument& document, const QString& path);
    static void placementCsv(const GraphDocument& document, const QString& path);
    static void placementTensorFlow(const GraphDocument& document, const QString& path);
    // The TensorFlow GraphDef the document was read from, every node's device set from the
    // shown placement: core's pbtxtWithPlacement, as post-cli place --pbtxt-out writes it.
    // InputError when the document is no .pbtxt or its file no longer gives this graph.
    static void placementPbtxt(const GraphDocument& document, const QString& path);

    // The drawn graph as it looks on screen (boxes, edges, labels), on the view's background,
    // under a caption band with the file, the cluster, the shown placement's step time and
    // the colour legend (PictureCaption).
    static void graphSvg(GraphScene& scene, const QString& path);
    // At `scale` pixels per scene unit, reduced so the image (caption included) stays under
    // `maxPixels` and kMaxPngSide a side. The default cap keeps it under Qt's 128 MB image reading limit.
    static void graphPng(GraphScene& scene, const QString& path, double scale = 2.0, double maxPixels = kMaxPngPixels);
    static constexpr double kMaxPngPixels = 30e6;
    static constexpr int kMaxPngSide = 16384;

    // Every op with its device's fill colour (see DotExport.h).
    static void graphDot(const GraphDocument& document, const QString& path);

    // The simulated step for chrome://tracing or Perfetto. `simulated` is used when given
    // and it holds a timeline of this document's placement; else the step is simulated here.
    static void chromeTrace(const GraphDocument& document, const QString& path, const SimResult* simulated = nullptr);
};

} // namespace post
