#pragma once

#include "ui/learn/LearnerSnapshot.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QVector>

#include <vector>

namespace post {

// The phases of the run a learning chart shows (core's PhaseEvent: post@best's classical
// starts, its local search and each turn of a race's Post runs), so that lines of one run's
// state (elite threshold, entropy) are never joined across another's samples, and the title
// says what the run did.
class RunPhases {
public:
    void clear() { phases_.clear(); }
    void add(const LearnerPhase& phase) { phases_.push_back(phase); }
    bool empty() const { return phases_.empty(); }
    const std::vector<LearnerPhase>& phases() const { return phases_; }

    // The segment of a point at `x` (samples drawn, as an update's afterSample): the number of
    // phases that started before it, each later phase beginning a new segment.
    int segmentOf(double x) const;
    // `points` (ordered by x) cut where a new phase starts: one run of points per segment.
    QList<QVector<QPointF>> split(const QVector<QPointF>& points) const;
    // How many distinct runs of a race have started (0 when none).
    int raceRuns() const;
    // What the run did so far (empty without phases): "classical starts, local search, race of
    // 5 Post runs"; a finished run that never reached its race says so.
    QString describe(bool finished) const;

private:
    std::vector<LearnerPhase> phases_;
};

} // namespace post
