#include "ui/timeline/StepStatusLabel.h"

#include "core/cost/HostDispatch.h"
#include "core/graph/GraphSizes.h"
#include "core/sim/Simulator.h"
#include "ui/document/StepSimulation.h"
#include "ui/util/Format.h"

#include <cctype>
#include <cmath>

namespace post {

namespace {

QString plainToolTip()
{
    return StepStatusLabel::tr("The shown placement, simulated: step time, memory fit and the largest peak memory");
}

} // namespace

StepStatusLabel::StepStatusLabel(QWidget* parent)
    : ElidingLabel(parent)
{
    setObjectName(QStringLiteral("stepStatus"));
    setMinimumTextWidth(420);
    setToolTip(plainToolTip());
    hide();
}

void StepStatusLabel::setStep(const StepPtr& step)
{
    setVisible(step != nullptr);
    setText(step ? textFor(*step) + QStringLiteral("  ") : QString());
    const std::string hostNote = step ? hostNoteFor(*step) : std::string();
    setToolTip(hostNote.empty() ? plainToolTip()
                                : plainToolTip() + QStringLiteral("\n\n") + QString::fromStdString(hostNote));
}

std::string StepStatusLabel::hostNoteFor(const SimulatedStep& step)
{
    const GraphDocument& document = *step.document;
    if (!document.eagerHost || !document.graph || !document.cluster)
        return {};
    std::string note = hostBoundNote(*document.graph, *document.cluster, step.result.stepTimeUs);
    if (!note.empty()) { // a sentence of its own in the tooltip
        note[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(note[0])));
        note.push_back('.');
    }
    return note;
}

void StepStatusLabel::setBusy(bool busy)
{
    if (!busy)
        return;
    setText(tr("Simulating…"));
    show();
}

QString StepStatusLabel::memoryText(const SimulatedStep& step)
{
    const SimResult& r = step.result;
    const Cluster& cluster = *step.document->cluster;
    // Out of memory: name the device furthest over its capacity; else the fullest one.
    const DeviceId worst = mostOverMemory(cluster, r);
    int peak = -1;
    for (int d = 0; d < static_cast<int>(r.peakMemoryBytes.size()); ++d)
        if (peak < 0 || r.peakMemoryBytes[static_cast<size_t>(d)] > r.peakMemoryBytes[static_cast<size_t>(peak)])
            peak = d;
    if (!hasMemorySizes(*step.document->graph)) // every peak is 0 B for want of sizes
        return tr("memory unknown (the graph gives no sizes)");
    if (r.feasible && peak >= 0)
        return tr("fits memory · peak %1 on %2")
            .arg(formatBytes(r.peakMemoryBytes[static_cast<size_t>(peak)]),
                 SimulatedStep::shortDeviceName(cluster.device(peak).name));
    if (worst >= 0)
        return tr("out of memory: %1 needs %2 of %3")
            .arg(SimulatedStep::shortDeviceName(cluster.device(worst).name),
                 formatBytes(r.peakMemoryBytes[static_cast<size_t>(worst)]),
                 formatBytes(cluster.device(worst).memoryBytes));
    return r.feasible ? QString() : tr("out of memory");
}

QString StepStatusLabel::textFor(const SimulatedStep& step)
{
    const SimResult& r = step.result;
    const Cluster& cluster = *step.document->cluster;
    QString text = tr("Step %1").arg(formatMicroseconds(r.stepTimeUs));
    if (const QString memory = memoryText(step); !memory.isEmpty())
        text += QStringLiteral(" · ") + memory;
    // Eager PyTorch's host thread, where it takes longer than the step (the tooltip says more).
    if (const GraphDocument& document = *step.document; document.eagerHost && document.graph)
        if (const double hostUs = eagerDispatchUs(*document.graph, &cluster); hostUs > r.stepTimeUs)
            text += tr(" · host-bound: about %1 to issue its ops").arg(formatMicroseconds(hostUs));
    // The precision mode the step was timed in (the learner panel's Precision).
    text += QStringLiteral(" · ") + precisionName(cluster.precision());
    // And the dispatch rule, when not the default (the learner panel's Dispatch).
    if (step.document->sim.dispatch != Dispatch::ReadyOrder)
        text += tr(" · %1 dispatch").arg(QString::fromLatin1(dispatchName(step.document->sim.dispatch)));
    return text;
}

void StepStatusLabel::followSteps(StepSimulation* steps)
{
    connect(steps, &StepSimulation::simulated, this, &StepStatusLabel::setStep);
    connect(steps, &StepSimulation::busyChanged, this, &StepStatusLabel::setBusy);
}

} // namespace post
