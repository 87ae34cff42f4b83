#include "ui/timeline/TimelinePanel.h"

#include "ui/document/StepSimulation.h"
#include "ui/timeline/StepStatusLabel.h"
#include "ui/timeline/TimelineView.h"
#include "ui/util/ElidingLabel.h"
#include "ui/util/Format.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <vector>

namespace post {

TimelinePanel::TimelinePanel(QWidget* parent)
    : QWidget(parent)
    , view_(new TimelineView(this))
    , summary_(new ElidingLabel(this))
{
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(8, 4, 8, 4);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long summary is cut with "…" (its tooltip then has it all), never widening the window.
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(summary_, 1);
    auto addButton = [&](const QString& text, const QString& tip, auto slot) {
        auto* button = new QToolButton(this);
        button->setText(text);
        button->setToolTip(tip);
        button->setAutoRaise(true);
        connect(button, &QToolButton::clicked, view_, slot);
        bar->addWidget(button);
    };
    addButton(tr("Fit"), tr("Show the whole step (F)"), [this] { view_->fit(); });
    addButton(tr("Zoom In"), tr("Zoom in on time (+, or the wheel)"), [this] { view_->zoomBy(1.5); });
    addButton(tr("Zoom Out"), tr("Zoom out (-)"), [this] { view_->zoomBy(1 / 1.5); });
    auto* critical = new QToolButton(this);
    critical->setText(tr("Critical Path"));
    critical->setToolTip(tr("Outline the ops and transfers that make the step as long as it is (C)"));
    critical->setCheckable(true);
    critical->setChecked(view_->showsCriticalPath());
    critical->setAutoRaise(true);
    critical->setObjectName(QStringLiteral("criticalPath"));
    connect(critical, &QToolButton::toggled, view_, &TimelineView::setShowCriticalPath);
    connect(view_, &TimelineView::criticalPathToggled, critical, &QToolButton::setChecked);
    bar->addWidget(critical);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(view_, 1);
    connect(view_, &TimelineView::opClicked, this, &TimelinePanel::opClicked);
    updatePlaceholder();
}

void TimelinePanel::setStep(StepPtr step)
{
    view_->setStep(std::move(step));
    summary_->setText(summaryText()); // elided: the whole text is its tooltip
    updatePlaceholder();
}

void TimelinePanel::setBusy(bool busy)
{
    busy_ = busy;
    updatePlaceholder();
    if (busy)
        summary_->setText(tr("Simulating…"));
}

void TimelinePanel::updatePlaceholder()
{
    view_->setPlaceholderText(
        busy_ ? tr("Simulating the step…")
              : tr("No placement to simulate.\nRun a placer from the Learner panel or open a placement."));
}

QString TimelinePanel::summaryText() const
{
    const StepPtr& step = view_->step();
    if (!step)
        return tr("No placement");
    const auto& result = step->result;
    const int links = static_cast<int>(step->lanes.size()) - step->deviceLaneCount;
    // The devices that hold ops, of the cluster's (every op on one GPU is "on 1 of 5 devices").
    const int devices = step->deviceLaneCount - step->collectiveLaneCount;
    std::vector<char> used(static_cast<size_t>(std::max(devices, 0)), 0);
    for (const DeviceId d : step->document->placement)
        if (d >= 0 && d < devices)
            used[static_cast<size_t>(d)] = 1;
    const auto holding = static_cast<int>(std::count(used.begin(), used.end(), 1));
    const QString on = holding == devices ? (devices == 1 ? tr("1 device") : tr("%1 devices").arg(devices))
                                          : tr("%1 of %2 devices").arg(holding).arg(devices);
    // Out of memory, as the status bar says it: the device furthest over its memory.
    const QString memory = result.feasible ? QString() : QStringLiteral(" · ⚠ ") + StepStatusLabel::memoryText(*step);
    return tr("Step %1%2 · %3 ops on %4 · %5 transfers over %6 links · critical path %7 ops, %8 transfers · "
              "drag to pan, wheel to zoom, click an op to select it")
        .arg(formatMicroseconds(result.stepTimeUs), memory)
        .arg(result.timeline.ops.size())
        .arg(on)
        .arg(result.timeline.transfers.size())
        .arg(links)
        .arg(step->criticalOps.size())
        .arg(step->criticalTransfers.size());
}

void TimelinePanel::followSteps(StepSimulation* steps)
{
    connect(steps, &StepSimulation::simulated, this, &TimelinePanel::setStep);
    connect(steps, &StepSimulation::busyChanged, this, &TimelinePanel::setBusy);
}

} // namespace post
