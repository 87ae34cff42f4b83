#pragma once

#include "ui/timeline/SimulatedStep.h"

#include <QLabel>

namespace post {

// The status bar's figures for the shown placement: simulated step time, whether it fits
// in memory, and the largest peak memory.
class StepStatusLabel : public QLabel {
    Q_OBJECT

public:
    explicit StepStatusLabel(QWidget* parent = nullptr);

    void setStep(const StepPtr& step);
    void setBusy(bool busy);

    // The text for a step (empty for none), e.g.
    // "Step 12.3 ms · fits memory · peak 3.40 GB on GPU:0 · tf32" (the last: its precision mode).
    static QString textFor(const SimulatedStep& step);
};

} // namespace post
