#pragma once

#include "ui/theme/Legend.h"
#include "ui/theme/ViewTheme.h"

#include <QFont>
#include <QRectF>
#include <QString>

class QPainter;

namespace post {

class GraphScene;

// The band over an exported graph picture (File ▸ Export ▸ Graph as SVG / PNG): what the
// picture shows (file, cluster, op count), the shown placement's simulated step time and
// memory, and the colour legend as on screen, so a picture read on its own says what its
// colours and numbers mean. Laid out in scene units, so SVG and PNG (scaled) agree.
struct PictureCaption {
    QString title; // "tiny-mlp.json · k80x4 · 4 ops"
    QString step;  // "step 1.25 ms · fits memory", or why there is none
    Legend legend;
    ViewTheme theme;
    QFont font;

    static PictureCaption of(const GraphScene& scene);

    // The band's height for a picture `width` wide, and the width it needs at least.
    double height(double width) const;
    double minimumWidth() const;
    void paint(QPainter& painter, const QRectF& band) const;
};

} // namespace post
