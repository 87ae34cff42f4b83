#include "ui/models/DeviceTableModel.h"

#include "core/cost/OpTime.h"
#include "core/graph/GraphSizes.h"
#include "ui/theme/CategoryPalette.h"
#include "ui/util/Format.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <cmath>
#include <limits>

namespace post {
namespace {

// Whether `step` is the step of `document`: the same graph, cluster and placement (a new
// document with the placement on show again is not simulated again: StepSimulation keeps it).
bool isStepOf(const SimulatedStep& step, const GraphDocument& document)
{
    const GraphDocument& of = *step.document;
    return &of == &document
        || (of.graphId == document.graphId && of.cluster == document.cluster && of.placement == document.placement);
}

} // namespace

DeviceTableModel::DeviceTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void DeviceTableModel::setDocument(DocumentPtr document)
{
    // Another placement on the same graph and cluster (a learner's new best) keeps the rows:
    // their values change, not the table (a reset made the view measure every row anew).
    const bool sameRows = document && document_ && document->graphId == document_->graphId
        && document->cluster == document_->cluster;
    if (!sameRows)
        beginResetModel();
    if (!document || !step_ || !isStepOf(*step_, *document)) {
        step_.reset();
        traffic_.clear();
    }
    document_ = std::move(document);
    if (!document_ || document_->graphId != timesGraph_ || document_->cluster != timesCluster_) {
        timesGraph_ = document_ ? document_->graphId : 0;
        timesCluster_ = document_ ? document_->cluster : nullptr;
        opTimes_.clear();
        opParams_.clear();
        graphUs_.clear();
        fastest_ = kNoDevice;
        hasCollectives_ = false;
    }
    load_.clear();
    if (document_ && document_->cluster) {
        const int devices = document_->cluster->deviceCount();
        load_.resize(static_cast<size_t>(devices));
        // Each op's parameters, and its time on each device it was ever placed on, kept in
        // flat arrays for the graph and cluster: the roofline per op and the reads of 107k
        // ops were most of this loop's 2-3 ms.
        const int ops = document_->opCount();
        if (opTimes_.empty()) {
            opTimes_.assign(static_cast<size_t>(ops) * static_cast<size_t>(devices),
                            std::numeric_limits<double>::quiet_NaN());
            opParams_.resize(static_cast<size_t>(ops));
            // Speed: every op that any device may run (no collective, no CPU-only op) on every
            // device, as the simulator times it (these times fill the cache too).
            graphUs_.assign(static_cast<size_t>(devices), 0.0);
            hasCollectives_ = false;
            memoryKnown_ = hasMemorySizes(*document_->graph);
            const Cluster& cluster = *document_->cluster;
            for (OpId op = 0; op < ops; ++op) {
                const Op& o = document_->graph->op(op);
                opParams_[static_cast<size_t>(op)] = o.paramBytes;
                hasCollectives_ = hasCollectives_ || o.isCollective();
                if (o.isCollective() || o.cpuOnly)
                    continue;
                for (DeviceId d = 0; d < devices; ++d) {
                    const double us = opTimeUs(o, cluster.device(d));
                    opTimes_[static_cast<size_t>(op) * static_cast<size_t>(devices) + static_cast<size_t>(d)] = us;
                    graphUs_[static_cast<size_t>(d)] += us;
                }
            }
            fastest_ = kNoDevice;
            for (DeviceId d = 0; d < devices; ++d)
                if (fastest_ == kNoDevice || graphUs_[static_cast<size_t>(d)] < graphUs_[static_cast<size_t>(fastest_)])
                    fastest_ = d;
        }
        if (document_->isPlaced()) {
            const Placement& placement = document_->placement;
            for (OpId op = 0; op < ops; ++op) {
                const DeviceId d = placement[static_cast<size_t>(op)];
                if (d < 0 || d >= devices)
                    continue; // as deviceOf: kNoDevice
                double& us = opTimes_[static_cast<size_t>(op) * static_cast<size_t>(devices) + static_cast<size_t>(d)];
                if (std::isnan(us))
                    us = document_->placedTimeUs(op);
                Load& l = load_[static_cast<size_t>(d)];
                ++l.ops;
                // A collective runs beside the compute lane, which is what Busy counts.
                (document_->graph->op(op).isCollective() ? l.collectiveUs : l.computeUs) += us;
                l.paramBytes += opParams_[static_cast<size_t>(op)];
            }
        }
    }
    if (!sameRows)
        endResetModel();
    else if (!load_.empty())
        emit dataChanged(index(0, 0), index(static_cast<int>(load_.size()) - 1, ColumnCount - 1));
}

void DeviceTableModel::setStep(StepPtr step)
{
    if (step && (!document_ || !isStepOf(*step, *document_)))
        return; // another document's (a stale one's)
    step_ = std::move(step);
    traffic_.assign(load_.size(), Traffic{});
    if (step_) {
        for (const TransferSpan& t : step_->result.timeline.transfers) {
            if (t.from < 0 || t.to < 0 || static_cast<size_t>(std::max(t.from, t.to)) >= traffic_.size())
                continue;
            traffic_[static_cast<size_t>(t.from)].bytesOut += t.bytes;
            ++traffic_[static_cast<size_t>(t.from)].transfersOut;
            traffic_[static_cast<size_t>(t.to)].bytesIn += t.bytes;
            ++traffic_[static_cast<size_t>(t.to)].transfersIn;
        }
    }
    if (!load_.empty())
        emit dataChanged(index(0, Busy), index(static_cast<int>(load_.size()) - 1, TransfersOut));
}

double DeviceTableModel::relativeSpeed(DeviceId d) const
{
    if (d < 0 || static_cast<size_t>(d) >= graphUs_.size() || fastest_ == kNoDevice)
        return std::numeric_limits<double>::quiet_NaN();
    const double best = graphUs_[static_cast<size_t>(fastest_)];
    const double here = graphUs_[static_cast<size_t>(d)];
    if (!(best > 0.0) || !std::isfinite(best))
        return std::numeric_limits<double>::quiet_NaN(); // no op with a time: nothing to compare
    return std::isfinite(here) ? best / here : 0.0;
}

bool DeviceTableModel::overMemory(DeviceId d) const
{
    if (!step_ || !document_ || d < 0 || static_cast<size_t>(d) >= step_->result.peakMemoryBytes.size())
        return false;
    const double capacity = document_->cluster->device(d).memoryBytes;
    return std::isfinite(capacity) && step_->result.peakMemoryBytes[static_cast<size_t>(d)] > capacity;
}

int DeviceTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(load_.size());
}

int DeviceTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DeviceTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DeviceId id = index.row();
    const Device& dev = document_->cluster->device(id);
    const Load& load = load_[static_cast<size_t>(id)];
    if (role == DeviceIdRole)
        return id;
    if (role == Qt::DecorationRole && index.column() == Name)
        return CategoryPalette::colour(id);
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Speed ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    // A peak over the device's memory (the step does not fit) stands out: red, bold, a mark
    // and a tooltip, as the status bar's "out of memory".
    if (index.column() == PeakMemory && (role == Qt::ForegroundRole || role == Qt::FontRole || role == Qt::ToolTipRole)
        && overMemory(id)) {
        if (role == Qt::ForegroundRole)
            return QBrush(QColor(210, 60, 50));
        if (role == Qt::FontRole) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return tr("Over this device's memory (%1): the placement does not fit").arg(formatBytes(dev.memoryBytes));
    }
    if (role == Qt::ToolTipRole && index.column() == Speed) {
        const double speed = relativeSpeed(id);
        const QString kind = dev.kind == DeviceKind::Cpu ? tr("CPU") : tr("GPU");
        const QString file = tr("The cluster file gives it speed %1: relative to a speed-1 %2, a scale of its kind "
                                "alone.")
                                 .arg(dev.speed)
                                 .arg(kind);
        if (std::isnan(speed))
            return tr("The graph has no op with a time to compare the devices by.\n") + file;
        return tr("%1× the speed of %2, the cluster's fastest device for this graph: the graph's ops (collectives and "
                  "CPU-only ops left out) take %3 here and %4 there.\n")
                   .arg(QString::number(speed, 'g', 3), QString::fromStdString(document_->cluster->device(fastest_).name),
                        formatMicroseconds(graphUs_[static_cast<size_t>(id)]),
                        formatMicroseconds(graphUs_[static_cast<size_t>(fastest_)]))
            + file;
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool display = role == Qt::DisplayRole;
    switch (index.column()) {
    case Name:
        return QString::fromStdString(dev.name);
    case Kind:
        return QString::fromLatin1(toString(dev.kind).data()).toUpper();
    case Speed: {
        const double speed = relativeSpeed(id);
        if (!display)
            return speed;
        return std::isnan(speed) ? QStringLiteral("–") : QString::number(speed, 'g', 3) + QStringLiteral("×");
    }
    case Memory:
        if (display)
            return std::isinf(dev.memoryBytes) ? tr("unlimited") : formatBytes(dev.memoryBytes);
        return dev.memoryBytes;
    case Ops:
        return load.ops;
    case ComputeTime:
        return display ? QVariant(formatMicroseconds(load.computeUs)) : QVariant(load.computeUs);
    case Collectives:
        return display ? QVariant(formatMicroseconds(load.collectiveUs)) : QVariant(load.collectiveUs);
    case ParamBytes:
        return display ? QVariant(formatBytes(load.paramBytes)) : QVariant(load.paramBytes);
    default:
        break;
    }
    // The step's columns: empty until it is simulated.
    const auto d = static_cast<size_t>(id);
    if (!step_ || d >= step_->result.deviceBusyUs.size() || d >= traffic_.size())
        return {};
    const SimResult& r = step_->result;
    const Traffic& t = traffic_[d];
    switch (index.column()) {
    case Busy:
        return display ? QVariant(formatMicroseconds(r.deviceBusyUs[d])) : QVariant(r.deviceBusyUs[d]);
    case Idle: {
        const double idle = std::max(0.0, r.stepTimeUs - r.deviceBusyUs[d]);
        return display ? QVariant(formatMicroseconds(idle)) : QVariant(idle);
    }
    case PeakMemory: {
        const double peak = d < r.peakMemoryBytes.size() ? r.peakMemoryBytes[d] : 0.0;
        if (!display)
            return peak;
        if (!memoryKnown_) // 0 B for want of sizes, not a finding
            return tr("unknown");
        return overMemory(id) ? QStringLiteral("⚠ ") + formatBytes(peak) : formatBytes(peak);
    }
    case BytesIn:
        return display ? QVariant(formatBytes(t.bytesIn)) : QVariant(t.bytesIn);
    case BytesOut:
        return display ? QVariant(formatBytes(t.bytesOut)) : QVariant(t.bytesOut);
    case TransfersIn:
        return t.transfersIn;
    case TransfersOut:
        return t.transfersOut;
    default:
        return {};
    }
}

QVariant DeviceTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section >= Speed && section < ColumnCount) {
        switch (section) {
        case Speed:
            return tr("How fast the device runs this graph's ops, against the cluster's fastest device for them "
                      "(1× = the fastest, 0.25× = four times as long): one scale for CPUs and GPUs alike. The "
                      "cluster file's speed, relative to a device of the same kind, is in each cell's tooltip");
        case ComputeTime:
            return tr("Summed time of the ops placed here that run on its compute lane (collectives are in "
                      "Collectives): what Busy counts once the step is simulated");
        case Collectives:
            return tr("Summed time of the collectives placed here: they run on the device's communication channel, "
                      "beside its compute lane, so neither Compute nor Busy counts them");
        case Busy:
            return tr("Time the device's compute lane is busy in the simulated step (collectives, on their own "
                      "lane, not counted: as post-cli simulate's busy)");
        case Idle:
            return tr("Step time minus busy time: waiting for inputs or with nothing to run");
        case PeakMemory:
            return tr("Peak memory in the simulated step (parameters and live tensors)");
        case BytesIn:
        case TransfersIn:
            return tr("Tensors received from other devices (one transfer per tensor and destination)");
        case BytesOut:
        case TransfersOut:
            return tr("Tensors sent to other devices (one transfer per tensor and destination)");
        default:
            return {};
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Device");
    case Kind:
        return tr("Kind");
    case Speed:
        return tr("Speed (vs fastest)");
    case Memory:
        return tr("Memory");
    case Ops:
        return tr("Ops");
    case ComputeTime:
        return tr("Compute");
    case Collectives:
        return tr("Collectives");
    case ParamBytes:
        return tr("Parameters");
    case Busy:
        return tr("Busy");
    case Idle:
        return tr("Idle");
    case PeakMemory:
        return tr("Peak memory");
    case BytesIn:
        return tr("Bytes in");
    case BytesOut:
        return tr("Bytes out");
    case TransfersIn:
        return tr("Transfers in");
    case TransfersOut:
        return tr("Transfers out");
    default:
        return {};
    }
}

} // namespace post
