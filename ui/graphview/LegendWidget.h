#pragma once

#include "ui/theme/Legend.h"

#include <QWidget>

namespace post {

// Draws a Legend: colour swatches with labels, or a colour ramp with its end values.
class LegendWidget : public QWidget {
    Q_OBJECT

public:
    explicit LegendWidget(QWidget* parent = nullptr);

    void setLegend(const Legend& legend);
    const Legend& legend() const { return legend_; }
    void setPanelColours(const QColor& panel, const QColor& border, const QColor& text);

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    Legend legend_;
    QColor panel_;
    QColor border_;
    QColor text_;
};

} // namespace post
