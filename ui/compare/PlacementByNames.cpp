#include "ui/compare/PlacementByNames.h"

#include <QCoreApplication>

#include <optional>
#include <string>
#include <unordered_map>

namespace post {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("PlacementByNames", text); }

} // namespace

Placement placementByNames(const GraphDocument& mine, const QString& myName, const DocumentPtr& theirs,
                           const QString& theirName, QString* problem)
{
    if (!theirs || !theirs->isPlaced()) {
        *problem =
            tr("%1 shows no placement to diff against.").arg(theirName.isEmpty() ? tr("The other window") : theirName);
        return {};
    }
    const Graph& graph = *mine.graph;
    const Graph& otherGraph = *theirs->graph;
    if (graph.opCount() != otherGraph.opCount()) {
        *problem = tr("The graphs differ: %1 has %2 ops, %3 has %4. Only placements of one graph can be diffed.")
                       .arg(myName)
                       .arg(graph.opCount())
                       .arg(theirName)
                       .arg(otherGraph.opCount());
        return {};
    }
    Placement placement(static_cast<size_t>(graph.opCount()), kNoDevice);
    std::unordered_map<std::string, DeviceId> deviceOf; // the other document's device -> ours
    for (OpId op = 0; op < graph.opCount(); ++op) {
        // The same file read twice lists its ops in one order: try the same id first.
        const std::string& name = graph.op(op).name;
        std::optional<OpId> there = otherGraph.op(op).name == name ? std::optional<OpId>(op) : otherGraph.find(name);
        if (!there) {
            *problem = tr("The graphs differ: op “%1” of %2 is not in %3. Only placements of one graph can be diffed.")
                           .arg(QString::fromStdString(name), myName, theirName);
            return {};
        }
        const DeviceId d = theirs->placement[static_cast<size_t>(*there)];
        if (d < 0 || d >= theirs->cluster->deviceCount()) {
            *problem = tr("%1 leaves op “%2” unplaced.").arg(theirName, QString::fromStdString(name));
            return {};
        }
        const std::string& deviceName = theirs->cluster->device(d).name;
        auto it = deviceOf.find(deviceName);
        if (it == deviceOf.end()) {
            const std::optional<DeviceId> here = mine.cluster->find(deviceName);
            if (!here) {
                *problem = tr("The clusters differ: %1 places ops on %2, which %3's cluster (%4) does not have.")
                               .arg(theirName, QString::fromStdString(deviceName), myName,
                                    QString::fromStdString(mine.cluster->name()));
                return {};
            }
            it = deviceOf.emplace(deviceName, *here).first;
        }
        placement[static_cast<size_t>(op)] = it->second;
    }
    return placement;
}

} // namespace post
