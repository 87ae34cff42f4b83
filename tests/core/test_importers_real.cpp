// Every real graph in ../shared/data, imported and checked against figures this test
// derives on its own from the raw text (QRegularExpression, QJsonDocument), never from
// the importer code. Mapping under test: docs/importers.md.
#include "tests/support/TestData.h"

#include "core/io/GraphFile.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

using namespace post;

namespace {

QByteArray readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(path));
    return file.readAll();
}

QStringList filesUnder(const QString& dir, const QStringList& patterns)
{
    QStringList files;
    QDirIterator it(dir, patterns, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

QString formatName(GraphFormat format)
{
    const std::string_view name = post::toString(format);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

bool near(double actual, double expected)
{
    return std::abs(actual - expected) <= 1e-9 * std::max(1.0, std::abs(expected));
}

// (from name, to name) -> bytes of every edge of a graph (the importers keep pairs unique).
std::map<std::pair<std::string, std::string>, double> edgeMap(const Graph& g)
{
    std::map<std::pair<std::string, std::string>, double> edges;
    for (const Edge& e : g.edges())
        edges[{g.op(e.from).name, g.op(e.to).name}] = e.bytes;
    return edges;
}

// A PipeDream profile as this test reads it, independently of PipeDreamReader.
struct Profile {
    struct Layer {
        QString description;
        double forwardMs = 0, backwardMs = 0, activation = 0, params = 0;
        bool input = false;
    };
    std::map<QString, Layer> layers;
    QList<std::pair<QString, QString>> edges;
};

Profile readProfile(const QString& path)
{
    static const QRegularExpression nodeLine(
        R"(^(\S+) -- (.*) -- forward_compute_time=([0-9.]+), backward_compute_time=([0-9.]+), )"
        R"(activation_size=(\[[^\]]*\]|[0-9.]+), parameter_size=([0-9.]+)$)");
    static const QRegularExpression edgeLine(R"(^\t(\S+) -- (\S+)$)");
    Profile profile;
    for (const QString& line : QString::fromUtf8(readAll(path)).split('\n', Qt::SkipEmptyParts)) {
        if (auto m = edgeLine.match(line); m.hasMatch()) {
            profile.edges.append({m.captured(1), m.captured(2)});
            continue;
        }
        auto m = nodeLine.match(line);
        if (!m.hasMatch())
            qFatal("test cannot read line '%s' of %s", qPrintable(line), qPrintable(path));
        Profile::Layer layer;
        layer.description = m.captured(2);
        layer.input = layer.description.startsWith("Input");
        layer.forwardMs = m.captured(3).toDouble();
        layer.backwardMs = m.captured(4).toDouble();
        QString activation = m.captured(5);
        activation.remove('[').remove(']');
        for (const QString& part : activation.split(';'))
            layer.activation += part.trimmed().toDouble();
        layer.params = m.captured(6).toDouble();
        profile.layers[m.captured(1)] = layer;
    }
    return profile;
}

// Checks a training step built from a PipeDream profile: op and edge counts, totals and
// every single edge of the expansion (forward, backward, saved activations).
void checkTrainingStep(const Graph& g, const Profile& p, const QString& file)
{
    const QByteArray where = file.toUtf8();
    int inputs = 0, edgesFromNonInputs = 0;
    double gpuUs = 0, params = 0;
    for (const auto& [id, layer] : p.layers) {
        inputs += layer.input ? 1 : 0;
        if (!layer.input)
            gpuUs += (layer.forwardMs + layer.backwardMs) * 1000.0;
        params += layer.params;
    }
    for (const auto& [from, to] : p.edges)
        edgesFromNonInputs += p.layers.at(from).input ? 0 : 1;
    const int layers = static_cast<int>(p.layers.size());

    QVERIFY2(g.opCount() == 2 * layers - inputs, where);
    QVERIFY2(g.edgeCount() == static_cast<int>(p.edges.size()) + edgesFromNonInputs + (layers - inputs), where);
    QVERIFY2(g.colocationGroupCount() == layers - inputs, where);
    QVERIFY2(near(g.totalTimeUs(DeviceKind::Gpu), gpuUs), where);
    QVERIFY2(near(g.totalTimeUs(DeviceKind::Cpu), 10.0 * gpuUs), where); // default cpuSlowdown
    QVERIFY2(near(g.totalParamBytes(), params), where);

    const auto edges = edgeMap(g);
    QVERIFY2(edges.size() == static_cast<size_t>(g.edgeCount()), where);
    for (const auto& [from, to] : p.edges) {
        const double activation = p.layers.at(from).activation;
        const auto forward = edges.find({from.toStdString(), to.toStdString()});
        QVERIFY2(forward != edges.end() && near(forward->second, activation), where + " forward " + from.toUtf8());
        if (!p.layers.at(from).input) {
            const auto backward = edges.find({to.toStdString() + "/grad", from.toStdString() + "/grad"});
            QVERIFY2(backward != edges.end() && near(backward->second, activation), where + " backward " + to.toUtf8());
        }
    }
    std::vector<int> position(static_cast<size_t>(g.opCount()));
    for (size_t i = 0; i < g.topologicalOrder().size(); ++i)
        position[static_cast<size_t>(g.topologicalOrder()[i])] = static_cast<int>(i);
    for (const auto& [id, layer] : p.layers) {
        const auto forward = g.find(id.toStdString());
        QVERIFY2(forward.has_value(), where + " " + id.toUtf8());
        const Op& op = g.op(*forward);
        QVERIFY2(near(op.time(DeviceKind::Gpu), layer.input ? 0.0 : layer.forwardMs * 1000.0), where + " " + id.toUtf8());
        QVERIFY2(near(op.outputBytes, layer.activation), where + " " + id.toUtf8());
        QVERIFY2(near(op.paramBytes, layer.params), where + " " + id.toUtf8());
        const auto grad = g.find(id.toStdString() + "/grad");
        QVERIFY2(grad.has_value() != layer.input, where + " " + id.toUtf8());
        if (!grad)
            continue;
        QVERIFY2(near(g.op(*grad).time(DeviceKind::Gpu), layer.backwardMs * 1000.0), where + " " + id.toUtf8());
        QVERIFY2(g.colocationGroup(*forward) >= 0 && g.colocationGroup(*forward) == g.colocationGroup(*grad),
                 where + " " + id.toUtf8());
        const auto saved = edges.find({id.toStdString(), id.toStdString() + "/grad"});
        QVERIFY2(saved != edges.end() && saved->second == 0.0, where + " saved " + id.toUtf8());
        QVERIFY2(position[static_cast<size_t>(*forward)] < position[static_cast<size_t>(*grad)], where);
    }
}

} // namespace

class TestImportersReal : public QObject {
    Q_OBJECT

private slots:
    void pipeDreamProfiles()
    {
        REQUIRE_SHARED_DATA(data);
        const QStringList files = filesUnder(data + "/pipedream", {"graph.txt"});
        QVERIFY2(files.size() >= 10, "expected the 10 PipeDream profiles");
        for (const QString& file : files) {
            QCOMPARE(formatName(sniffGraphFormat(readAll(file).toStdString(), file.toStdString())),
                     formatName(GraphFormat::PipeDream));
            const Graph g = readGraphFile(file.toStdString());
            QCOMPARE(QString::fromStdString(g.name()), QFileInfo(file).dir().dirName());
            checkTrainingStep(g, readProfile(file), file);
            if (QTest::currentTestFailed())
                return;
            qInfo("%s: %d ops, %d edges, %.1f ms GPU per step", qPrintable(QFileInfo(file).dir().dirName()),
                  g.opCount(), g.edgeCount(), g.totalTimeUs(DeviceKind::Gpu) / 1000.0);
        }
    }

    // Values read off alexnet/graph.txt by hand.
    void alexnetByHand()
    {
        REQUIRE_SHARED_DATA(data);
        const Graph g = readGraphFile((data + "/pipedream/alexnet/graph.txt").toStdString());
        QCOMPARE(g.opCount(), 45);   // 23 layers forward + 22 backward (no gradient for the input)
        QCOMPARE(g.edgeCount(), 67); // 23 forward + 22 backward + 22 saved-activation edges
        const Op& conv = g.op(*g.find("node2"));
        QCOMPARE(conv.type, std::string("Conv2d"));
        QCOMPARE(conv.time(DeviceKind::Gpu), 22316.0);
        QCOMPARE(conv.time(DeviceKind::Cpu), 223160.0);
        QCOMPARE(conv.paramBytes, 93184.0);
        QCOMPARE(conv.colocate, std::string("node2"));
        const Op& convGrad = g.op(*g.find("node2/grad"));
        QCOMPARE(convGrad.type, std::string("Conv2dBackward"));
        QCOMPARE(convGrad.time(DeviceKind::Gpu), 6405.0);
        QCOMPARE(convGrad.colocate, std::string("node2"));
        QCOMPARE(convGrad.paramBytes, 0.0);
        const Op& input = g.op(*g.find("node1"));
        QCOMPARE(input.type, std::string("Input"));
        QCOMPARE(input.time(DeviceKind::Gpu), 0.0); // 635.902 ms of data loading is not compute
        QVERIFY(!g.find("node1/grad"));
        const auto edges = edgeMap(g);
        QCOMPARE(edges.at({"node1", "node2"}), 154140672.0);
        QCOMPARE(edges.at({"node3/grad", "node2/grad"}), 198246400.0);
        QCOMPARE(edges.at({"node2", "node2/grad"}), 0.0);
        // The step starts at the input and ends with the first conv's gradient.
        QCOMPARE(g.op(g.topologicalOrder().front()).name, std::string("node1"));
        QCOMPARE(g.op(g.topologicalOrder().back()).name, std::string("node2/grad"));
    }

    void gnmtSumsActivationLists()
    {
        REQUIRE_SHARED_DATA(data);
        const Graph g = readGraphFile((data + "/pipedream/gnmt/graph.txt").toStdString());
        // node7 -- LSTM(2048, 1024) -- ... activation_size=[6291456.0; 131072.0; 131072.0]
        QCOMPARE(g.op(*g.find("node7")).outputBytes, 6291456.0 + 131072.0 + 131072.0);
        QCOMPARE(g.op(*g.find("node7")).type, std::string("LSTM"));
        // Three inputs (Input0..2): 48 layers -> 48 + 45 ops.
        QCOMPARE(g.opCount(), 93);
    }

    void cpuSlowdownScalesPipeDreamTimes()
    {
        REQUIRE_SHARED_DATA(data);
        ImportOptions options;
        options.cpuSlowdown = 3.0;
        const Graph g = readGraphFile((data + "/pipedream/vgg16/graph.txt").toStdString(), GraphFormat::Auto, options);
        QVERIFY(near(g.totalTimeUs(DeviceKind::Cpu), 3.0 * g.totalTimeUs(DeviceKind::Gpu)));
    }

    void alexnetDotEqualsText()
    {
        REQUIRE_SHARED_DATA(data);
        const std::string dotFile = (data + "/pipedream/alexnet/graph.dot").toStdString();
        QCOMPARE(formatName(sniffGraphFormat(readAll(QString::fromStdString(dotFile)).toStdString(), dotFile)),
                 formatName(GraphFormat::Dot));
        const Graph dot = readGraphFile(dotFile);
        const Graph txt = readGraphFile((data + "/pipedream/alexnet/graph.txt").toStdString());
        QCOMPARE(dot.name(), txt.name());
        QCOMPARE(dot.opCount(), txt.opCount());
        QCOMPARE(dot.edgeCount(), txt.edgeCount());
        for (OpId i = 0; i < dot.opCount(); ++i) {
            const Op& a = dot.op(i);
            const Op& b = txt.op(i);
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.type, b.type);
            QCOMPARE(a.timeUs, b.timeUs);
            QCOMPARE(a.outputBytes, b.outputBytes);
            QCOMPARE(a.paramBytes, b.paramBytes);
            QCOMPARE(a.colocate, b.colocate);
        }
        for (EdgeId e = 0; e < dot.edgeCount(); ++e) {
            QCOMPARE(dot.edge(e).from, txt.edge(e).from);
            QCOMPARE(dot.edge(e).to, txt.edge(e).to);
            QCOMPARE(dot.edge(e).bytes, txt.edge(e).bytes);
        }
        checkTrainingStep(dot, readProfile(data + "/pipedream/alexnet/graph.txt"), QString::fromStdString(dotFile));
    }

    void msrGraphs()
    {
        REQUIRE_SHARED_DATA(data);
        const QStringList files = filesUnder(data + "/msr", {"*.json"});
        QVERIFY2(files.size() >= 12, "expected the 12 MSR graphs");
        for (const QString& file : files) {
            const QByteArray where = file.toUtf8();
            const QByteArray bytes = readAll(file);
            QCOMPARE(formatName(sniffGraphFormat(bytes.toStdString(), file.toStdString())), formatName(GraphFormat::Msr));
            const QJsonObject root = QJsonDocument::fromJson(bytes).object();
            const QJsonArray nodes = root["nodes"].toArray();
            const QJsonArray edges = root["edges"].toArray();
            QVERIFY2(!nodes.isEmpty() && !edges.isEmpty(), where);

            // The file's own edges: the join that makes a LayerGraphs training graph one step
            // (test_msr_training_step) is left out here.
            ImportOptions literal;
            literal.msrPipelined = true;
            const Graph g = readGraphFile(file.toStdString(), GraphFormat::Auto, literal);
            QVERIFY2(g.opCount() == nodes.size(), where);
            QVERIFY2(g.edgeCount() == edges.size(), where);

            std::map<int, QString> nameOf;
            std::map<int, int> classSize;
            std::map<QString, double> maxOut;
            double gpuUs = 0, cpuUs = 0, size = 0, edgeBytes = 0;
            for (const QJsonValue& v : nodes) {
                const QJsonObject n = v.toObject();
                nameOf[n["id"].toInt()] = n["name"].toString();
                gpuUs += n["fpgaLatency"].toDouble() * 1000.0;
                cpuUs += n["cpuLatency"].toDouble() * 1000.0;
                size += n["size"].toDouble();
                if (n.contains("colorClass"))
                    ++classSize[n["colorClass"].toInt()];
            }
            const auto graphEdges = edgeMap(g);
            for (const QJsonValue& v : edges) {
                const QJsonObject e = v.toObject();
                const QString from = nameOf.at(e["sourceId"].toInt());
                const double bytes = e["size"].toDouble(); // every shipped edge gives its size
                edgeBytes += bytes;
                maxOut[from] = std::max(maxOut[from], bytes);
                const auto it = graphEdges.find({from.toStdString(), nameOf.at(e["destId"].toInt()).toStdString()});
                QVERIFY2(it != graphEdges.end() && it->second == bytes, where + " edge from " + from.toUtf8());
            }
            int groups = 0;
            for (const auto& [colorClass, count] : classSize)
                groups += count > 1 ? 1 : 0;

            QVERIFY2(near(g.totalTimeUs(DeviceKind::Gpu), gpuUs), where);
            QVERIFY2(near(g.totalTimeUs(DeviceKind::Cpu), cpuUs), where);
            QVERIFY2(near(g.totalResidentBytes(), size), where);
            QVERIFY2(g.totalParamBytes() == 0.0, where); // size is the whole need, never x the optimizer factor
            double graphEdgeBytes = 0;
            for (const Edge& e : g.edges())
                graphEdgeBytes += e.bytes;
            QVERIFY2(near(graphEdgeBytes, edgeBytes), where);
            QVERIFY2(g.colocationGroupCount() == groups, where);

            for (const QJsonValue& v : nodes) {
                const QJsonObject n = v.toObject();
                const auto id = g.find(n["name"].toString().toStdString());
                QVERIFY2(id.has_value(), where + " " + n["name"].toString().toUtf8());
                const Op& op = g.op(*id);
                QVERIFY2(near(op.time(DeviceKind::Gpu), n["fpgaLatency"].toDouble() * 1000.0), where);
                QVERIFY2(near(op.residentBytes, n["size"].toDouble()), where);
                QVERIFY2(op.outputBytes == maxOut[n["name"].toString()], where);
                const bool grouped = n.contains("colorClass") && classSize[n["colorClass"].toInt()] > 1;
                QVERIFY2(op.colocate == (grouped ? "color" + std::to_string(n["colorClass"].toInt()) : std::string()),
                         where);
                const bool backward = n["isBackwardNode"].isBool() ? n["isBackwardNode"].toBool()
                                                                   : n["isBackwardNode"].toInt() == 1;
                QVERIFY2(op.type == (backward ? "backward" : "forward"), where);
            }
            qInfo("%s: %d ops, %d edges, %d colocation groups", qPrintable(QFileInfo(file).fileName()), g.opCount(),
                  g.edgeCount(), g.colocationGroupCount());
        }
    }

    // resnet50 as a hand check: node77 is a layer both sets profile.
    void msrByHand()
    {
        REQUIRE_SHARED_DATA(data);
        const Graph g = readGraphFile((data + "/msr/LayerGraphs/resnet50_inference.json").toStdString());
        QCOMPARE(g.name(), std::string("resnet50_inference"));
        const Op& op = g.op(*g.find("node77"));
        QCOMPARE(op.time(DeviceKind::Gpu), 1236.0);       // fpgaLatency 1.236 ms
        QVERIFY(near(op.time(DeviceKind::Cpu), 12360.0)); // cpuLatency 12.36 ms
        QCOMPARE(op.residentBytes, 205524992.0);
        QCOMPARE(op.paramBytes, 0.0);
        QCOMPARE(op.colocate, std::string()); // a class of one constrains nothing
        const Graph training = readGraphFile((data + "/msr/LayerGraphs/resnet50_training.json").toStdString());
        QCOMPARE(training.colocationGroupCount(), 177); // each forward layer with its backward node
    }
};

QTEST_APPLESS_MAIN(TestImportersReal)
#include "test_importers_real.moc"
