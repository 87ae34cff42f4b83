// MSR training graphs as one training step (docs/importers.md, "MSR"): a file in the pipelined
// (throughput) form, with no edge between its forward and backward nodes, gets every forward
// sink joined to every backward source, so that the simulated step runs the backward pass after
// the forward pass; --msr-pipelined (ImportOptions::msrPipelined) keeps the file's edges alone.
#include "core/io/GraphFile.h"
#include "core/io/msr/MsrReader.h"
#include "core/io/native/ClusterPresets.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/Simulator.h"
#include "tests/support/TestData.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

using namespace post;

namespace {

// Two forward sinks (f3, f4) and two backward sources (b1, b5); the backward edges run in the
// forward direction, as in MSR's LayerGraphs. Each layer's nodes share a colour class.
const char* kPipelined = R"({"maxSizePerFPGA": 1e10, "maxFPGAs": 4, "maxCPUs": 1,
  "nodes": [
    {"id": 1, "name": "f1", "fpgaLatency": 1.0, "cpuLatency": 10, "isBackwardNode": 0, "colorClass": 1, "size": 10},
    {"id": 2, "name": "f2", "fpgaLatency": 1.0, "cpuLatency": 10, "isBackwardNode": 0, "colorClass": 2, "size": 10},
    {"id": 3, "name": "f3", "fpgaLatency": 1.0, "cpuLatency": 10, "isBackwardNode": 0, "colorClass": 3, "size": 10},
    {"id": 4, "name": "f4", "fpgaLatency": 1.0, "cpuLatency": 10, "isBackwardNode": 0, "colorClass": 4, "size": 10},
    {"id": 5, "name": "f5", "fpgaLatency": 1.0, "cpuLatency": 10, "isBackwardNode": 0, "colorClass": 5, "size": 10},
    {"id": 11, "name": "b1", "fpgaLatency": 2.0, "cpuLatency": 20, "isBackwardNode": 1, "colorClass": 1, "size": 10},
    {"id": 12, "name": "b2", "fpgaLatency": 2.0, "cpuLatency": 20, "isBackwardNode": 1, "colorClass": 2, "size": 10},
    {"id": 13, "name": "b3", "fpgaLatency": 2.0, "cpuLatency": 20, "isBackwardNode": 1, "colorClass": 3, "size": 10},
    {"id": 14, "name": "b4", "fpgaLatency": 2.0, "cpuLatency": 20, "isBackwardNode": 1, "colorClass": 4, "size": 10},
    {"id": 15, "name": "b5", "fpgaLatency": 2.0, "cpuLatency": 20, "isBackwardNode": 1, "colorClass": 5, "size": 10}
  ],
  "edges": [
    {"sourceId": 1, "destId": 2, "cost": 0.001, "size": 1000000},
    {"sourceId": 2, "destId": 3, "cost": 0.001, "size": 1000000},
    {"sourceId": 5, "destId": 3, "cost": 0.001, "size": 1000000},
    {"sourceId": 1, "destId": 4, "cost": 0.001, "size": 1000000},
    {"sourceId": 11, "destId": 12, "cost": 0.001, "size": 1000000},
    {"sourceId": 12, "destId": 13, "cost": 0.001, "size": 1000000},
    {"sourceId": 15, "destId": 13, "cost": 0.001, "size": 1000000},
    {"sourceId": 11, "destId": 14, "cost": 0.001, "size": 1000000}
  ]})";

std::vector<std::string> edgeList(const Graph& g)
{
    std::vector<std::string> edges;
    for (const Edge& e : g.edges())
        edges.push_back(g.op(e.from).name + ">" + g.op(e.to).name + ":" + std::to_string(static_cast<long long>(e.bytes)));
    return edges;
}

ImportOptions pipelined()
{
    ImportOptions options;
    options.msrPipelined = true;
    return options;
}

// When the last forward op ends and the first backward op starts in the simulated step.
struct Halves {
    double forwardEndUs = 0.0;
    double backwardStartUs = std::numeric_limits<double>::infinity();
};

Halves simulateHalves(const Graph& g, const Cluster& cluster, const Placement& placement)
{
    Simulator simulator(g, cluster);
    const SimResult& r = simulator.run(placement, true);
    Halves h;
    for (const OpSpan& span : r.timeline.ops) {
        if (g.op(span.op).type == "backward")
            h.backwardStartUs = std::min(h.backwardStartUs, span.startUs);
        else
            h.forwardEndUs = std::max(h.forwardEndUs, span.endUs);
    }
    return h;
}

// Each colocation group (colour class) on GPU (k mod 4), free ops round robin: a placement that
// spreads both halves over four devices.
Placement spread(const Graph& g, const Cluster& cluster)
{
    std::vector<DeviceId> gpus;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
        if (cluster.device(d).kind == DeviceKind::Gpu)
            gpus.push_back(d);
    std::map<std::string, DeviceId> groupDevice;
    Placement placement(static_cast<size_t>(g.opCount()));
    for (OpId i = 0; i < g.opCount(); ++i) {
        const std::string& group = g.op(i).colocate;
        DeviceId device = gpus[static_cast<size_t>(i) % gpus.size()];
        if (!group.empty())
            device = groupDevice.emplace(group, gpus[groupDevice.size() % gpus.size()]).first->second;
        placement[static_cast<size_t>(i)] = device;
    }
    return placement;
}

} // namespace

class TestMsrTrainingStep : public QObject {
    Q_OBJECT

private slots:
    void joinsForwardSinksToBackwardSources()
    {
        const QTemporaryDir dir;
        const QString file = testdata::writeFile(dir, "tiny_training.json", kPipelined);
        const ImportedGraph imported = readGraphFileWithPlacement(file.toStdString());
        const Graph& g = imported.graph;
        QCOMPARE(g.opCount(), 10);
        // The file's 8 edges in its order, then 2 sinks x 2 sources, 0 bytes each.
        QCOMPARE(edgeList(g),
                 (std::vector<std::string>{"f1>f2:1000000", "f2>f3:1000000", "f5>f3:1000000", "f1>f4:1000000",
                                           "b1>b2:1000000", "b2>b3:1000000", "b5>b3:1000000", "b1>b4:1000000",
                                           "f3>b1:0", "f3>b5:0", "f4>b1:0", "f4>b5:0"}));
        QCOMPARE(g.op(*g.find("f3")).outputBytes, 0.0); // a join edge adds no output bytes
        QCOMPARE(imported.notes.size(), std::size_t(1));
        const std::string& note = imported.notes[0];
        for (const char* part : {"pipelined", "5 forward nodes", "5 backward nodes", "2 forward sink(s)",
                                 "2 backward source(s)", "4 edge(s) of 0 bytes", "--msr-pipelined"})
            QVERIFY2(note.find(part) != std::string::npos, note.c_str());
    }

    void optionKeepsThePipelinedForm()
    {
        const ImportedGraph imported = parseGraphWithPlacement(kPipelined, "tiny_training.json", GraphFormat::Msr,
                                                               pipelined());
        QCOMPARE(imported.graph.edgeCount(), 8);
        for (const Edge& e : imported.graph.edges())
            QCOMPARE(imported.graph.op(e.from).type, imported.graph.op(e.to).type); // no edge between the halves
        QCOMPARE(imported.notes.size(), std::size_t(1));
        QVERIFY2(imported.notes[0].find("kept as is (--msr-pipelined)") != std::string::npos, imported.notes[0].c_str());
    }

    // The simulated step: with the join no backward op starts before the last forward op ends;
    // in the file's form some does (the test would catch a join that orders nothing).
    void backwardStartsAfterForwardEnds()
    {
        const Cluster cluster = loadCluster("v100x4-nvlink");
        const Graph joined = parseMsrGraph(kPipelined, "tiny_training.json", {});
        const Graph asIs = parseMsrGraph(kPipelined, "tiny_training.json", pipelined());
        const Halves step = simulateHalves(joined, cluster, spread(joined, cluster));
        QVERIFY2(step.backwardStartUs >= step.forwardEndUs,
                 qPrintable(
                     QString("backward at %1 us, forward ends %2 us").arg(step.backwardStartUs).arg(step.forwardEndUs)));
        const Halves pipelinedStep = simulateHalves(asIs, cluster, spread(asIs, cluster));
        QVERIFY(pipelinedStep.backwardStartUs < pipelinedStep.forwardEndUs);
    }

    // Forward-only graphs and files with an edge between their halves (they order the step
    // themselves) are taken as is, without a note.
    void otherFilesTakenAsIs()
    {
        const char* inference = R"({"nodes": [
            {"id": 1, "fpgaLatency": 1, "isBackwardNode": 0}, {"id": 2, "fpgaLatency": 1, "isBackwardNode": 0}],
          "edges": [{"sourceId": 1, "destId": 2, "cost": 0, "size": 8}]})";
        const ImportedGraph forward = parseGraphWithPlacement(inference, "inference.json");
        QCOMPARE(forward.graph.edgeCount(), 1);
        QVERIFY(forward.notes.empty());
        const char* ordered = R"({"nodes": [
            {"id": 1, "fpgaLatency": 1, "isBackwardNode": 0}, {"id": 2, "fpgaLatency": 1, "isBackwardNode": 0},
            {"id": 3, "fpgaLatency": 1, "isBackwardNode": 1}, {"id": 4, "fpgaLatency": 1, "isBackwardNode": 1}],
          "edges": [{"sourceId": 1, "destId": 2, "cost": 0, "size": 8}, {"sourceId": 1, "destId": 3, "cost": 0, "size": 8},
                    {"sourceId": 4, "destId": 3, "cost": 0, "size": 8}]})";
        const ImportedGraph crossing = parseGraphWithPlacement(ordered, "ordered.json");
        QCOMPARE(crossing.graph.edgeCount(), 3); // node2 (a sink) and node4 (a source) stay unjoined
        QVERIFY(crossing.notes.empty());
        const char* backwardOnly = R"({"nodes": [{"id": 1, "fpgaLatency": 1, "isBackwardNode": 1},
            {"id": 2, "fpgaLatency": 1, "isBackwardNode": 1}], "edges": []})";
        QCOMPARE(parseGraphWithPlacement(backwardOnly, "backward.json").graph.edgeCount(), 0);
    }

    // The real MSR files: the LayerGraphs' training graphs are in the pipelined form (counted
    // here from the raw JSON), the OperatorGraphs' bert_l-3_training orders its halves itself.
    void realFiles()
    {
        REQUIRE_SHARED_DATA(data);
        int joinedFiles = 0;
        for (const char* folder : {"LayerGraphs", "OperatorGraphs"})
            for (const QString& name : QDir(data + "/msr/" + folder).entryList({"*.json"}, QDir::Files, QDir::Name)) {
                const QString file = data + "/msr/" + folder + "/" + name;
                const QByteArray where = file.toUtf8();
                QFile in(file);
                QVERIFY2(in.open(QIODevice::ReadOnly), where);
                const QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
                std::map<int, bool> backward;
                for (const QJsonValue& v : root["nodes"].toArray()) {
                    const QJsonObject n = v.toObject();
                    const QJsonValue b = n["isBackwardNode"];
                    backward[n["id"].toInt()] = b.isBool() ? b.toBool() : b.toInt() == 1;
                }
                std::set<int> hasIn, hasOut;
                bool crossing = false;
                const QJsonArray edges = root["edges"].toArray();
                for (const QJsonValue& v : edges) {
                    const int from = v.toObject()["sourceId"].toInt();
                    const int to = v.toObject()["destId"].toInt();
                    hasOut.insert(from);
                    hasIn.insert(to);
                    crossing = crossing || backward.at(from) != backward.at(to);
                }
                int sinks = 0, sources = 0, backwardNodes = 0;
                for (const auto& [id, isBackward] : backward) {
                    backwardNodes += isBackward ? 1 : 0;
                    sinks += !isBackward && !hasOut.count(id) ? 1 : 0;
                    sources += isBackward && !hasIn.count(id) ? 1 : 0;
                }
                const bool pipelinedForm = backwardNodes > 0 && !crossing;
                joinedFiles += pipelinedForm ? 1 : 0;
                const bool layerTraining = name.endsWith("_training.json") && std::string(folder) == "LayerGraphs";
                QVERIFY2(pipelinedForm == layerTraining, where);

                const ImportedGraph g = readGraphFileWithPlacement(file.toStdString());
                const int joins = pipelinedForm ? sinks * sources : 0;
                QVERIFY2(g.graph.edgeCount() == edges.size() + joins, where);
                QVERIFY2(g.notes.size() == (pipelinedForm ? 1u : 0u), where);
                const Graph asIs = readGraphFile(file.toStdString(), GraphFormat::Auto, pipelined());
                QVERIFY2(asIs.edgeCount() == edges.size(), where);
                if (pipelinedForm)
                    qInfo("%s: %d forward sinks x %d backward sources = %d join edges", qPrintable(name), sinks,
                          sources, joins);
            }
        QCOMPARE(joinedFiles, 4); // bert24, gnmt, inceptionv3, resnet50 training
    }

    // resnet50_training on v100x4-nvlink under every classical placer: the step runs forward,
    // then backward.
    void realStepRunsForwardThenBackward()
    {
        REQUIRE_SHARED_DATA(data);
        const Graph g = readGraphFile((data + "/msr/LayerGraphs/resnet50_training.json").toStdString());
        const Cluster cluster = loadCluster("v100x4-nvlink");
        int checked = 0;
        for (const std::string& name : classicalPlacerNames()) {
            const PlaceResult r = makeClassicalPlacer(name)->place(PlaceContext{g, cluster, SimOptions{}});
            const Halves h = simulateHalves(g, cluster, r.best);
            QVERIFY2(h.backwardStartUs >= h.forwardEndUs, name.c_str());
            ++checked;
        }
        QVERIFY(checked >= 3);
    }
};

QTEST_APPLESS_MAIN(TestMsrTrainingStep)
#include "test_msr_training_step.moc"
