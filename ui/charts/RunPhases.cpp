#include "ui/charts/RunPhases.h"

#include <QCoreApplication>

#include <set>

namespace post {

int RunPhases::segmentOf(double x) const
{
    int segment = 0;
    for (const LearnerPhase& p : phases_)
        if (p.firstSample > 0 && p.firstSample < x)
            ++segment;
    return segment;
}

QList<QVector<QPointF>> RunPhases::split(const QVector<QPointF>& points) const
{
    QList<QVector<QPointF>> out;
    int current = -1;
    for (const QPointF& p : points) {
        const int segment = segmentOf(p.x());
        if (segment != current || out.isEmpty()) {
            out.append(QVector<QPointF>{});
            current = segment;
        }
        out.back().append(p);
    }
    return out;
}

int RunPhases::raceRuns() const
{
    std::set<int> runs;
    for (const LearnerPhase& p : phases_)
        if (p.kind == PhaseKind::LearnerRun)
            runs.insert(p.run);
    return static_cast<int>(runs.size());
}

QString RunPhases::describe(bool finished) const
{
    if (phases_.empty())
        return {};
    bool classical = false;
    bool local = false;
    bool exact = false;
    bool raced = false;
    bool kicks = false; // post@best's search after its race: the plateau walk, the local search with kicks or both
    bool walk = false;
    for (const LearnerPhase& p : phases_) {
        classical = classical || p.kind == PhaseKind::ClassicalStarts;
        local = local || (p.kind == PhaseKind::LocalSearch && !raced);
        kicks = kicks || (p.kind == PhaseKind::LocalSearch && raced);
        walk = walk || p.kind == PhaseKind::PlateauWalk;
        exact = exact || p.kind == PhaseKind::ExactSolve;
        raced = raced || p.kind == PhaseKind::LearnerRun;
    }
    QStringList parts;
    if (classical)
        parts << QCoreApplication::translate("RunPhases", "classical starts");
    if (local)
        parts << QCoreApplication::translate("RunPhases", "local search");
    if (exact) // milp: its model's solves, each placement they give timed and climbed from
        return (parts << QCoreApplication::translate("RunPhases", "MILP solves")).join(QStringLiteral(", "));
    const int runs = raceRuns();
    if (runs > 0) {
        parts << (runs == 1 ? QCoreApplication::translate("RunPhases", "one Post run")
                            : QCoreApplication::translate("RunPhases", "race of %1 Post runs").arg(runs));
        if (walk) // then, where the walk stalled, the local search with kicks
            parts << QCoreApplication::translate("RunPhases", "plateau walk");
        if (kicks)
            parts << QCoreApplication::translate("RunPhases", "local search with kicks");
        return parts.join(QStringLiteral(", "));
    }
    if (finished && local)
        return QCoreApplication::translate("RunPhases", "%1 only (the budget ran out before any learning)")
            .arg(parts.join(QCoreApplication::translate("RunPhases", " and ")));
    return parts.join(QStringLiteral(", "));
}

} // namespace post
