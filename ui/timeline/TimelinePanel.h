#pragma once

#include "ui/document/SimulatedStep.h"

#include <QWidget>

namespace post {

class ElidingLabel;

class StepSimulation;

class TimelineView;

// The Timeline tab: a line of figures and zoom buttons over the Gantt chart.
class TimelinePanel : public QWidget {
    Q_OBJECT

public:
    explicit TimelinePanel(QWidget* parent = nullptr);

    void setStep(StepPtr step);
    void setBusy(bool busy);
    // Shows every step `steps` simulates, and its busy state (the hub's StepSimulation).
    void followSteps(StepSimulation* steps);
    TimelineView* view() const { return view_; }
    QString summaryText() const;

signals:
    void opClicked(post::OpId op);

private:
    void updatePlaceholder();

    TimelineView* view_;
    ElidingLabel* summary_;
    bool busy_ = false;
};

} // namespace post
