#include "ui/document/GraphDocument.h"

#include "core/cost/OpTime.h"
#include "core/sim/CollectiveTime.h"

#include <QObject>

#include <algorithm>
#include <atomic>

namespace post {

bool GraphDocument::hasOpenDataSizes() const
{
    return std::any_of(dataSizes.begin(), dataSizes.end(), [](const DataDependentSize& s) { return s.value < 0; });
}

std::uint64_t GraphDocument::newGraphId()
{
    static std::atomic<std::uint64_t> last{0}; // documents are made on pool threads too
    return ++last;
}

QString GraphDocument::batchText() const
{
    if (modelBatch > 0 && modelBatch != batch)
        return QObject::tr("%1 (fixed by the model)").arg(modelBatch);
    return QString::number(batch);
}

DeviceId GraphDocument::deviceOf(OpId op) const
{
    if (!isPlaced() || !cluster || op < 0 || op >= opCount())
        return kNoDevice;
    const DeviceId d = placement[static_cast<size_t>(op)];
    return d >= 0 && d < cluster->deviceCount() ? d : kNoDevice;
}

double GraphDocument::placedTimeUs(OpId op) const
{
    const Op& o = graph->op(op);
    const DeviceId d = deviceOf(op);
    if (d == kNoDevice)
        return o.time(DeviceKind::Gpu);
    if (collectiveIsModelled(o)) // the simulator's ring model (docs/simulator.md, "Collectives")
        return CollectiveLinks(*cluster).ringTimeUs(o, d);
    return opTimeUs(o, cluster->device(d));
}

} // namespace post
