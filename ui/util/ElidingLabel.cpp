#include "ui/util/ElidingLabel.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOption>
#include <QToolTip>

#include <algorithm>

namespace post {

ElidingLabel::ElidingLabel(QWidget* parent)
    : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void ElidingLabel::setMinimumTextWidth(int pixels)
{
    minimumTextWidth_ = std::max(0, pixels);
    updateGeometry();
}

QSize ElidingLabel::minimumSizeHint() const
{
    const QSize whole = QLabel::sizeHint();
    const QMargins m = contentsMargins();
    const int frame = m.left() + m.right() + 2 * margin();
    return {std::min(whole.width(), minimumTextWidth_ + frame), whole.height()};
}

QString ElidingLabel::shownText() const
{
    const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
    return fontMetrics().elidedText(text(), Qt::ElideRight, std::max(0, room.width()));
}

bool ElidingLabel::isElided() const { return shownText() != text(); }

QString ElidingLabel::effectiveToolTip() const
{
    if (!isElided())
        return toolTip();
    return toolTip().isEmpty() || toolTip() == text() ? text() : text() + QStringLiteral("\n\n") + toolTip();
}

bool ElidingLabel::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const QString tip = effectiveToolTip();
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), tip, this);
        return true;
    }
    return QLabel::event(event);
}

void ElidingLabel::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    drawFrame(&painter);
    const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
    QStyleOption option;
    option.initFrom(this);
    style()->drawItemText(&painter, room, static_cast<int>(alignment()), option.palette, isEnabled(), shownText(),
                          foregroundRole());
}

} // namespace post
