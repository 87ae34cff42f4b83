#pragma once

#include "ui/document/SimulatedStep.h"

#include "ui/util/ElidingLabel.h"

#include <string>

namespace post {

class StepSimulation;

// The status bar's figures for the shown placement: simulated step time, whether it fits
// in memory, and the largest peak memory. In a narrow window it gives way last: it keeps up
// to 420 px of its text, then ends in "…" with the whole text in its tooltip.
class StepStatusLabel : public ElidingLabel {
    Q_OBJECT

public:
    explicit StepStatusLabel(QWidget* parent = nullptr);

    void setStep(const StepPtr& step);
    void setBusy(bool busy);
    // Shows every step `steps` simulates, and its busy state (the hub's StepSimulation).
    void followSteps(StepSimulation* steps);

    // The text for a step (empty for none), e.g.
    // "Step 12.3 ms · fits memory · peak 3.40 GB on GPU:0 · tf32" (the last: its precision mode).
    static QString textFor(const SimulatedStep& step);
    // Its memory part: "fits memory · peak 3.40 GB on GPU:0", or "out of memory: GPU:0 needs
    // 19.6 GB of 12.9 GB" (the device furthest over its memory).
    static QString memoryText(const SimulatedStep& step);
    // The note on eager PyTorch's host thread when it takes longer than the step (the label's
    // tooltip then ends with it), else empty.
    static std::string hostNoteFor(const SimulatedStep& step);
};

} // namespace post
