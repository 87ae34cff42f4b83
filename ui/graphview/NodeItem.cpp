#include "ui/graphview/NodeItem.h"

#include "ui/theme/ViewTheme.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace post {
namespace {

constexpr double kRadius = 6.0;
constexpr double kPadX = 10.0;
constexpr double kPadY = 6.0;
constexpr double kMinWidth = 72.0;
constexpr double kMaxWidth = 230.0;
constexpr double kMixBarHeight = 5.0;
constexpr double kHalo = 5.0;
constexpr double kMarkMargin = kHalo + 4.0; // room for the dashed outline and the badges

} // namespace

NodeItem::NodeItem(int viewNode, const QRectF& rect, QString title, QString subtitle, bool isGroup)
    : viewNode_(viewNode)
    , rect_(rect)
    , title_(std::move(title))
    , subtitle_(std::move(subtitle))
    , isGroup_(isGroup)
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(false);
    setToolTip(subtitle_.isEmpty() ? title_ : title_ + QStringLiteral("\n") + subtitle_);
    setZValue(1);
    shownTitle_ = elideName(title_, QFontMetricsF(titleFont()), rect_.width() - 2 * kPadX);
}

QString NodeItem::elideName(const QString& name, const QFontMetricsF& metrics, double width)
{
    if (metrics.horizontalAdvance(name) <= width)
        return name;
    const QStringList parts = name.split(QLatin1Char('/'));
    if (parts.size() < 3)
        return metrics.elidedText(name, Qt::ElideMiddle, width);
    // Middle components in the order they go: without digits first, nearest the middle first.
    std::vector<int> order;
    for (int i = 1; i + 1 < parts.size(); ++i)
        order.push_back(i);
    const double middle = (parts.size() - 1) / 2.0;
    auto hasDigit = [&](int i) {
        return std::any_of(parts[i].begin(), parts[i].end(), [](QChar c) { return c.isDigit(); });
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        if (hasDigit(a) != hasDigit(b))
            return !hasDigit(a);
        return std::abs(a - middle) < std::abs(b - middle);
    });
    std::vector<bool> keep(static_cast<size_t>(parts.size()), true);
    QString shown = name;
    for (int drop : order) {
        keep[static_cast<size_t>(drop)] = false;
        QStringList pieces;
        for (int i = 0; i < parts.size(); ++i) {
            if (keep[static_cast<size_t>(i)])
                pieces.push_back(parts[i]);
            else if (pieces.isEmpty() || pieces.back() != QStringLiteral("…"))
                pieces.push_back(QStringLiteral("…"));
        }
        shown = pieces.join(QLatin1Char('/'));
        if (metrics.horizontalAdvance(shown) <= width)
            return shown;
    }
    return metrics.elidedText(shown, Qt::ElideMiddle, width);
}

QFont NodeItem::titleFont()
{
    QFont f;
    f.setPointSizeF(9.0);
    f.setWeight(QFont::DemiBold);
    return f;
}

QFont NodeItem::subtitleFont()
{
    QFont f;
    f.setPointSizeF(7.5);
    return f;
}

QSizeF NodeItem::sizeFor(const QString& title, const QString& subtitle)
{
    const QFontMetricsF tm(titleFont());
    const QFontMetricsF sm(subtitleFont());
    const double textWidth = std::max(tm.horizontalAdvance(title), sm.horizontalAdvance(subtitle));
    // A little slack: text measured here can come out a pixel or two wider when drawn scaled.
    const double width = std::clamp(textWidth + 2 * kPadX + 6, kMinWidth, kMaxWidth);
    const double height = tm.height() + sm.height() + 2 * kPadY + 1;
    return {std::ceil(width), std::ceil(height)};
}

void NodeItem::setPaint(NodePaint paint)
{
    paint_ = std::move(paint);
    update();
}

void NodeItem::setAccentColours(const QColor& selection, const QColor& searchHit)
{
    selectionColour_ = selection;
    searchHitColour_ = searchHit;
    update();
}

void NodeItem::setHighlighted(bool on)
{
    if (highlighted_ == on)
        return;
    highlighted_ = on;
    update();
}

void NodeItem::setMarks(const NodeMarks& marks)
{
    if (marks == marks_)
        return;
    marks_ = marks;
    QString tip = subtitle_.isEmpty() ? title_ : title_ + QStringLiteral("\n") + subtitle_;
    if (marks_.critical > 0)
        tip += isGroup_ ? QStringLiteral("\n%1 ops on the critical path").arg(marks_.critical)
                        : QStringLiteral("\nOn the critical path");
    if (marks_.moved > 0)
        tip += isGroup_ ? QStringLiteral("\n%1 ops moved by the diff").arg(marks_.moved)
                        : QStringLiteral("\nMoved by the diff (dashed: its other device)");
    setToolTip(tip);
    setZValue(marks_.any() ? 1.5 : 1); // outlines and badges over neighbouring boxes
    update();
}

double NodeItem::paintBadges(QPainter* painter, const QRectF& box, const NodeMarks& marks, bool withText)
{
    QFont font = subtitleFont();
    font.setWeight(QFont::Bold);
    const QFontMetricsF metrics(font);
    double right = box.right() - kRadius - 2;
    const double top = box.top() - kBadgeHeight / 2;
    auto badge = [&](const QString& text, const QColor& fill) {
        const double width = metrics.horizontalAdvance(text) + 10;
        const QRectF pill(right - width, top, width, kBadgeHeight);
        painter->setPen(Qt::NoPen);
        painter->setBrush(fill);
        painter->drawRoundedRect(pill, kBadgeHeight / 2, kBadgeHeight / 2);
        if (withText) {
            painter->setPen(ViewTheme::textOn(fill));
            painter->setFont(font);
            painter->drawText(pill, Qt::AlignCenter, text);
        }
        right = pill.left() - 3;
    };
    if (marks.critical > 0)
        badge(QStringLiteral("◆ %1").arg(marks.critical), marks.criticalColour);
    if (marks.moved > 0)
        badge(QStringLiteral("⇄ %1").arg(marks.moved), marks.movedColour);
    return right + 3;
}

QRectF NodeItem::boundingRect() const { return rect_.adjusted(-kMarkMargin, -kMarkMargin, kMarkMargin, kMarkMargin); }

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(rect_, kRadius, kRadius);
    return path;
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const bool selected = isSelected();

    if (highlighted_ || selected) {
        QColor halo = selected ? selectionColour_ : searchHitColour_;
        halo.setAlpha(110);
        painter->setPen(Qt::NoPen);
        painter->setBrush(halo);
        painter->drawRoundedRect(rect_.adjusted(-kHalo + 1, -kHalo + 1, kHalo - 1, kHalo - 1), kRadius + 3, kRadius + 3);
    }

    QPen border(selected ? selectionColour_ : paint_.border, selected ? 2.5 : 1.2);
    if (isGroup_ && !selected)
        border.setWidthF(2.0);
    painter->setPen(border);
    painter->setBrush(paint_.fill);
    painter->drawRoundedRect(rect_, kRadius, kRadius);

    if (marks_.critical > 0) {
        painter->setPen(QPen(marks_.criticalColour, 3.2));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(rect_, kRadius, kRadius);
    }
    if (marks_.moved > 0) {
        QPen dashed(marks_.movedColour, 2.2, Qt::DashLine);
        painter->setPen(dashed);
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(rect_.adjusted(-3.5, -3.5, 3.5, 3.5), kRadius + 3, kRadius + 3);
    }

    if (paint_.mix.size() > 1) {
        // Device mix of a group: a stacked bar inside the bottom edge.
        const QRectF bar(rect_.left() + kRadius, rect_.bottom() - kMixBarHeight - 2, rect_.width() - 2 * kRadius,
                         kMixBarHeight);
        double x = bar.left();
        painter->setPen(Qt::NoPen);
        for (const auto& [colour, share] : paint_.mix) {
            const double w = bar.width() * share;
            painter->setBrush(colour);
            painter->drawRect(QRectF(x, bar.top(), w, bar.height()));
            x += w;
        }
    }

    if (isGroup_ && marks_.any())
        paintBadges(painter, rect_, marks_, lod >= 0.35);

    // Text is unreadable when zoomed far out; skipping it keeps big graphs fluid.
    if (lod < 0.35)
        return;
    const QRectF inner = rect_.adjusted(kPadX, kPadY, -kPadX, -kPadY);
    const QFontMetricsF tm(titleFont());
    painter->setPen(paint_.text);
    painter->setFont(titleFont());
    const QRectF titleRect(inner.left(), inner.top(), inner.width(), tm.height());
    painter->drawText(titleRect, Qt::AlignHCenter | Qt::AlignVCenter, shownTitle_);
    if (!subtitle_.isEmpty()) {
        const QFontMetricsF sm(subtitleFont());
        QColor muted = paint_.text;
        muted.setAlphaF(0.75f);
        painter->setPen(muted);
        painter->setFont(subtitleFont());
        const QRectF subRect(inner.left(), titleRect.bottom(), inner.width(), sm.height());
        painter->drawText(subRect, Qt::AlignHCenter | Qt::AlignVCenter,
                          sm.elidedText(subtitle_, Qt::ElideRight, inner.width()));
    }
}

} // namespace post
