#include "ui/learn/PlacementCoalescer.h"

#include <QTimer>

#include <algorithm>
#include <utility>

namespace post {

PlacementCoalescer::PlacementCoalescer(QObject* parent)
    : QObject(parent)
    , timer_(new QTimer(this))
{
    timer_->setSingleShot(true);
    connect(timer_, &QTimer::timeout, this, &PlacementCoalescer::schedule);
}

void PlacementCoalescer::offer(Placement placement)
{
    ++offered_;
    if (pending_)
        ++superseded_;
    else
        heldSince_.start();
    placement_ = std::move(placement);
    pending_ = true;
    if (!timer_->isActive())
        schedule();
}

void PlacementCoalescer::flush()
{
    timer_->stop();
    if (pending_)
        applyNow();
}

void PlacementCoalescer::drop()
{
    timer_->stop();
    pending_ = false;
    placement_.clear();
}

void PlacementCoalescer::retry()
{
    if (pending_)
        timer_->start(0);
}

void PlacementCoalescer::schedule()
{
    if (!pending_)
        return;
    if (lastApply_.isValid() && lastApply_.elapsed() < frameMs_) {
        timer_->start(static_cast<int>(frameMs_ - lastApply_.elapsed()));
        return;
    }
    if (busy_ && busy_() && heldSince_.elapsed() < maxHoldMs_) {
        // retry() comes when the gate opens; the timer bounds how long the best waits.
        timer_->start(static_cast<int>(std::max<qint64>(1, maxHoldMs_ - heldSince_.elapsed())));
        return;
    }
    applyNow();
}

void PlacementCoalescer::applyNow()
{
    timer_->stop();
    pending_ = false;
    Placement placement = std::exchange(placement_, Placement{});
    ++applied_;
    lastApply_.start();
    emit apply(placement);
}

} // namespace post
