#include "ui/graphview/FrameItem.h"

#include "ui/graphview/NodeItem.h"
#include "ui/layout/ScopeRelayout.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace post {
namespace {

constexpr double kRadius = 8.0;
constexpr double kMixWidth = 40.0;
constexpr double kMixHeight = 6.0;

} // namespace

FrameItem::FrameItem(int frame, const QRectF& rect, QString title, QString subtitle, int depth)
    : frame_(frame)
    , rect_(rect)
    , title_(std::move(title))
    , subtitle_(std::move(subtitle))
{
    setToolTip(title_ + QStringLiteral("\n") + subtitle_);
    // Behind the boxes and edges; an inner frame over its outer one.
    setZValue(-10.0 + depth);
}

void FrameItem::setColours(const QColor& tint, const QColor& border, const QColor& text)
{
    tint_ = tint;
    border_ = border;
    text_ = text;
    update();
}

void FrameItem::setMix(std::vector<std::pair<QColor, double>> mix)
{
    mix_ = std::move(mix);
    update();
}

void FrameItem::setMarks(const NodeMarks& marks)
{
    if (marks == marks_)
        return;
    marks_ = marks;
    update();
}

QRectF FrameItem::boundingRect() const
{
    // Badges stand half above the top edge.
    return rect_.adjusted(-2, -NodeItem::kBadgeHeight / 2 - 1, 2, 2);
}

QPainterPath FrameItem::shape() const
{
    // Only the header takes clicks, so a click between inner boxes still pans the view.
    QPainterPath path;
    path.addRect(QRectF(rect_.topLeft(), QSizeF(rect_.width(), ScopeRelayout::kFrameHeader)));
    return path;
}

void FrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setPen(marks_.critical > 0 ? QPen(marks_.criticalColour, 2.0) : QPen(border_, 1.2));
    painter->setBrush(tint_);
    painter->drawRoundedRect(rect_, kRadius, kRadius);
    if (marks_.any())
        NodeItem::paintBadges(painter, rect_, marks_, lod >= 0.35);
    const QRectF header(rect_.left() + kRadius, rect_.top() + 3, rect_.width() - 2 * kRadius,
                        ScopeRelayout::kFrameHeader - 6);
    double textRight = header.right();
    const QFontMetricsF titleMetrics(NodeItem::titleFont());
    // The bar only where the title still fits beside it.
    if (!mix_.empty() && header.width() - kMixWidth - 6 >= titleMetrics.horizontalAdvance(title_)) {
        const QRectF bar(header.right() - kMixWidth, header.center().y() - kMixHeight / 2, kMixWidth, kMixHeight);
        double x = bar.left();
        painter->setPen(Qt::NoPen);
        for (const auto& [colour, share] : mix_) {
            painter->setBrush(colour);
            painter->drawRect(QRectF(x, bar.top(), bar.width() * share, bar.height()));
            x += bar.width() * share;
        }
        textRight = bar.left() - 6;
    }
    if (lod < 0.35)
        return;
    const QFont titleFont = NodeItem::titleFont();
    const QFont subFont = NodeItem::subtitleFont();
    const QFontMetricsF tm(titleFont);
    const QFontMetricsF sm(subFont);
    const double width = textRight - header.left();
    const QString title = tm.elidedText(title_, Qt::ElideMiddle, width);
    painter->setPen(text_);
    painter->setFont(titleFont);
    painter->drawText(QRectF(header.left(), header.top(), width, header.height()), Qt::AlignLeft | Qt::AlignVCenter,
                      title);
    const double used = tm.horizontalAdvance(title) + 8;
    if (used < width) {
        QColor muted = text_;
        muted.setAlphaF(0.7f);
        painter->setPen(muted);
        painter->setFont(subFont);
        painter->drawText(QRectF(header.left() + used, header.top(), width - used, header.height()),
                          Qt::AlignLeft | Qt::AlignVCenter, sm.elidedText(subtitle_, Qt::ElideRight, width - used));
    }
}

} // namespace post
