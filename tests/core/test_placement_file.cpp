#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/io/native/PlacementExport.h"
#include "core/io/native/PlacementFile.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"

#include <QtTest>

using namespace post;

namespace {

Graph toyGraph()
{
    GraphBuilder b("toy");
    for (const char* name : {"a", "b", "c", "x,\"y\""}) {
        Op op;
        op.name = name;
        op.timeUs = {10, 1};
        if (std::string(name) == "b" || std::string(name) == "c")
            op.colocate = "g1";
        b.addOp(op);
    }
    b.addEdge("a", "b");
    b.addEdge("b", "c");
    b.addEdge("a", "x,\"y\"");
    return std::move(b).build();
}

Cluster toyCluster()
{
    return Cluster("box",
                   {{"/device:CPU:0", DeviceKind::Cpu, 1.0, 1e9},
                    {"/device:GPU:0", DeviceKind::Gpu, 1.0, 1e9},
                    {"/device:GPU:1", DeviceKind::Gpu, 1.0, 1e9}},
                   Link{});
}

} // namespace

class TestPlacementFile : public QObject {
    Q_OBJECT

private slots:
    void parsesAndRoundTrips()
    {
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p = parsePlacement(R"({"format": "post-placement/1", "graph": "toy", "cluster": "box",
            "placement": {"a": "/device:CPU:0", "b": "/device:GPU:1", "c": "/device:GPU:1",
                          "x,\u0022y\u0022": "/job:localhost/replica:0/task:0/device:GPU:0"}})",
                                           "p.json", g, c);
        QCOMPARE(p, (Placement{0, 2, 2, 1}));
        const std::string text = placementJson(g, c, p);
        QCOMPARE(parsePlacement(text, "again.json", g, c), p);
        QCOMPARE(text,
                 std::string("{\n"
                             "  \"format\": \"post-placement/1\",\n"
                             "  \"graph\": \"toy\",\n"
                             "  \"cluster\": \"box\",\n"
                             "  \"placement\": {\n"
                             "    \"a\": \"/device:CPU:0\",\n"
                             "    \"b\": \"/device:GPU:1\",\n"
                             "    \"c\": \"/device:GPU:1\",\n"
                             "    \"x,\\\"y\\\"\": \"/device:GPU:0\"\n"
                             "  }\n"
                             "}\n"));
    }

    // What made a placement goes after "cluster"; a reader checks it and ignores it.
    void namesWhatMadeIt()
    {
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p{0, 2, 2, 1};
        const std::string text = placementJson(g, c, p, {}, PlacementProvenance{"post", 7, 1234.5});
        QVERIFY(text.find("  \"cluster\": \"box\",\n  \"algorithm\": \"post\",\n  \"seed\": 7,\n"
                          "  \"step_time_us\": 1234.5,\n  \"placement\": {")
                != std::string::npos);
        QCOMPARE(parsePlacement(text, "made.json", g, c), p);
        // The step time alone (a placement no run made), and nothing at all by default.
        const std::string stepOnly = placementJson(g, c, p, {}, PlacementProvenance{{}, 7, 10.0});
        QVERIFY(stepOnly.find("\"seed\"") == std::string::npos);
        QVERIFY(stepOnly.find("\"step_time_us\": 10,") != std::string::npos);
        QVERIFY(placementJson(g, c, p).find("step_time_us") == std::string::npos);
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 parsePlacement(R"({"format": "post-placement/1", "seed": -1,
            "placement": {"a": "/device:CPU:0", "b": "/device:GPU:1", "c": "/device:GPU:1", "x,\u0022y\u0022": "/device:GPU:0"}})",
                                                "bad.json", g, c));
    }

    // A search's start (place --start): its file, step time and fingerprint, after "dispatch";
    // read back as written, checked like every field, and written only with the algorithm.
    void recordsTheStart()
    {
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p{0, 2, 2, 1};
        // 64-bit FNV-1a of "a\t/device:CPU:0\nb\t/device:GPU:1\nc\t/device:GPU:1\nx,\"y\"\t/device:GPU:0\n",
        // computed apart (Python's int arithmetic).
        QCOMPARE(placementFingerprint(g, c, p), std::string("fnv1a64:a5613cb5b28ab10a"));
        QVERIFY(placementFingerprint(g, c, Placement{0, 2, 2, 2}) != placementFingerprint(g, c, p));
        PlacementProvenance made{"post@best", 3, 900.0, Dispatch::CriticalPath,
                                 PlacementStart{"dir/start.json", 1000.5, placementFingerprint(g, c, p)}};
        const std::string text = placementJson(g, c, p, {}, made);
        QVERIFY2(text.find("  \"dispatch\": \"critical-path\",\n  \"start\": {\"file\": \"dir/start.json\", "
                           "\"step_time_us\": 1000.5, \"fingerprint\": \"fnv1a64:a5613cb5b28ab10a\"},\n  \"placement\"")
                     != std::string::npos,
                 text.c_str());
        PlacementWithProvenance read = parsePlacementWithProvenance(text, "made.json", g, c);
        QVERIFY(read.made.start == made.start);
        // Post Studio's start (the placement on show) has no file; a start without an algorithm
        // (nothing searched) is not written.
        made.start->file.clear();
        read = parsePlacementWithProvenance(placementJson(g, c, p, {}, made), "shown.json", g, c);
        QVERIFY(read.made.start == made.start);
        made.algorithm.clear();
        QVERIFY(placementJson(g, c, p, {}, made).find("\"start\"") == std::string::npos);
        // The same placement spelt otherwise (keys in another order, TensorFlow's long names)
        // has the same fingerprint.
        const Placement longNames = parsePlacement(
            R"({"format": "post-placement/1", "placement": {"x,\u0022y\u0022": "/job:localhost/replica:0/task:0/device:GPU:0",
                "c": "/device:GPU:1", "b": "/device:GPU:1", "a": "/device:CPU:0"}})",
            "long.json", g, c);
        QCOMPARE(placementFingerprint(g, c, longNames), placementFingerprint(g, c, p));
        // Checked: the fingerprint's form, its presence, the start's keys and types.
        const std::string head = R"({"format": "post-placement/1", "algorithm": "post", "start": )";
        const std::string tail =
            R"(, "placement": {"a": "/device:CPU:0", "b": "/device:GPU:1", "c": "/device:GPU:1", "x,\u0022y\u0022": "/device:GPU:0"}})";
        for (const auto& [start, field] :
             {std::pair{R"({"fingerprint": "fnv1a64:A5613CB5B28AB10A"})", "start.fingerprint"},
              {R"({"fingerprint": "fnv1a64:a5613cb5b28ab10"})", "start.fingerprint"},
              {R"({"fingerprint": "sha256:a5613cb5b28ab10a"})", "start.fingerprint"},
              {R"({"file": "s.json"})", "start"},
              {R"({"file": 7, "fingerprint": "fnv1a64:a5613cb5b28ab10a"})", "start.file"},
              {R"({"step_time_us": -1, "fingerprint": "fnv1a64:a5613cb5b28ab10a"})", "start.step_time_us"},
              {R"({"fingerprint": "fnv1a64:a5613cb5b28ab10a", "seed": 1})", "start.seed"},
              {R"("s.json")", "start"}}) {
            try {
                parsePlacement(head + start + tail, "bad.json", g, c);
                QFAIL(start);
            } catch (const InputError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("bad.json: field " + std::string(field)) != std::string::npos, what.c_str());
            }
        }
    }

    // parsePlacementWithProvenance gives back what placementJson wrote of how it was made.
    void readsWhatMadeIt()
    {
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p{0, 2, 2, 1};
        const PlacementProvenance made{"post", 7, 1234.5, Dispatch::CriticalPath};
        const std::string text = placementJson(g, c, p, {}, made);
        QVERIFY(text.find("\"step_time_us\": 1234.5,\n  \"dispatch\": \"critical-path\",") != std::string::npos);
        PlacementWithProvenance read = parsePlacementWithProvenance(text, "made.json", g, c);
        QCOMPARE(read.placement, p);
        QCOMPARE(read.made.algorithm, std::string("post"));
        QCOMPARE(read.made.seed, std::optional<std::uint64_t>(7));
        QCOMPARE(read.made.stepTimeUs, std::optional<double>(1234.5));
        QCOMPARE(read.made.dispatch, Dispatch::CriticalPath);
        // Ready order is the default: not written, and read as such.
        read = parsePlacementWithProvenance(placementJson(g, c, p, {}, {"m-etf", {}, 20.0}), "ready.json", g, c);
        QCOMPARE(read.made.algorithm, std::string("m-etf"));
        QCOMPARE(read.made.seed, std::optional<std::uint64_t>());
        QCOMPARE(read.made.stepTimeUs, std::optional<double>(20.0));
        QCOMPARE(read.made.dispatch, Dispatch::ReadyOrder);
        // Nothing recorded: nothing read; a seed that is not a whole number is checked, not kept.
        read = parsePlacementWithProvenance(R"({"format": "post-placement/1", "seed": 1.5, "dispatch": "ready",
            "placement": {"a": "/device:CPU:0", "b": "/device:GPU:1", "c": "/device:GPU:1", "x,\u0022y\u0022": "/device:GPU:0"}})",
                                            "hand.json", g, c);
        QCOMPARE(read.placement, p);
        QVERIFY(read.made.algorithm.empty() && !read.made.seed && !read.made.stepTimeUs);
        QCOMPARE(read.made.dispatch, Dispatch::ReadyOrder);
        try {
            parsePlacementWithProvenance(R"({"format": "post-placement/1", "dispatch": "fifo",
            "placement": {"a": "/device:CPU:0", "b": "/device:GPU:1", "c": "/device:GPU:1", "x,\u0022y\u0022": "/device:GPU:0"}})",
                                         "fifo.json", g, c);
            QFAIL("a dispatch rule that does not exist was read");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("fifo.json") != std::string::npos && what.find("dispatch") != std::string::npos,
                     what.c_str());
        }

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("made.json").toStdString();
        writeFileAtomically(path, text);
        read = readPlacementFileWithProvenance(path, g, c);
        QCOMPARE(read.placement, p);
        QCOMPARE(read.made.dispatch, Dispatch::CriticalPath);
        QCOMPARE(read.made.stepTimeUs, std::optional<double>(1234.5));
        QCOMPARE(readPlacementFile(path, g, c), p);
    }

    // The precision mode the step time was timed under is written with it and read back; a file
    // without it (older than the field) reads as not recorded.
    void readsThePrecision()
    {
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p{0, 2, 2, 1};
        PlacementProvenance made{"post", 7, 1234.5};
        made.precision = PrecisionMode::Amp;
        const std::string text = placementJson(g, c, p, {}, made);
        QVERIFY(text.find("\"step_time_us\": 1234.5,\n  \"precision\": \"amp\",") != std::string::npos);
        PlacementWithProvenance read = parsePlacementWithProvenance(text, "amp.json", g, c);
        QCOMPARE(read.made.precision, std::optional<PrecisionMode>(PrecisionMode::Amp));
        QCOMPARE(recordedPrecision(read.made), std::optional<PrecisionMode>(PrecisionMode::Amp));
        // Without a step time there is nothing it was timed under: not written.
        made.stepTimeUs.reset();
        QVERIFY(placementJson(g, c, p, {}, made).find("precision") == std::string::npos);
        const std::string placement =
            R"("placement": {"a": "/device:CPU:0", "b": "/device:GPU:1", "c": "/device:GPU:1", "x,\u0022y\u0022": "/device:GPU:0"}})";
        read = parsePlacementWithProvenance(R"({"format": "post-placement/1", "step_time_us": 5, )" + placement,
                                            "old.json", g, c);
        QVERIFY(!read.made.precision);
        QVERIFY_THROWS_EXCEPTION(
            InputError,
            parsePlacementWithProvenance(R"({"format": "post-placement/1", "precision": "fp16", )" + placement,
                                         "fp16.json", g, c));
    }

    // What a file was made for ("graph", "cluster") is read back; a file of another graph is
    // refused naming the graph it records, one of another cluster is read.
    void namesWhatItWasMadeFor()
    {
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p{0, 2, 2, 1};
        PlacementWithProvenance read = parsePlacementWithProvenance(placementJson(g, c, p), "toy.json", g, c);
        QCOMPARE(read.graphName, std::string("toy"));
        QCOMPARE(read.clusterName, std::string("box"));
        read = parsePlacementWithProvenance(R"({"format": "post-placement/1", "cluster": "k80x4",
            "placement": {"a": "/device:CPU:0", "b": "/device:GPU:1", "c": "/device:GPU:1", "x,\u0022y\u0022": "/device:GPU:0"}})",
                                            "k80.json", g, c);
        QCOMPARE(read.placement, p);
        QCOMPARE(read.clusterName, std::string("k80x4"));
        QVERIFY(read.graphName.empty());
        try {
            parsePlacement(R"({"format": "post-placement/1", "graph": "resnet18", "placement": {"a": "/device:CPU:0"}})",
                           "other.json", g, c);
            QFAIL("a placement of another graph was read");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("3 of 4 ops have no device") != std::string::npos
                         && what.find("the file was made for graph \"resnet18\", not \"toy\"") != std::string::npos,
                     what.c_str());
        }
    }

    void readsAFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("p.json").toStdString();
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p{1, 0, 0, 2};
        writeFileAtomically(path, placementJson(g, c, p));
        QCOMPARE(readPlacementFile(path, g, c), p);
    }

    void exportsCsvAndTensorFlowDevices()
    {
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        const Placement p{0, 2, 2, 1};
        QCOMPARE(placementCsv(g, c, p),
                 std::string("op,device\n"
                             "a,/device:CPU:0\n"
                             "b,/device:GPU:1\n"
                             "c,/device:GPU:1\n"
                             "\"x,\"\"y\"\"\",/device:GPU:0\n"));
        QCOMPARE(placementTensorFlow(g, c, p),
                 std::string("a\t/job:localhost/replica:0/task:0/device:CPU:0\n"
                             "b\t/job:localhost/replica:0/task:0/device:GPU:1\n"
                             "c\t/job:localhost/replica:0/task:0/device:GPU:1\n"
                             "x,\"y\"\t/job:localhost/replica:0/task:0/device:GPU:0\n"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, placementCsv(g, c, Placement{0, 1}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, placementTensorFlow(g, c, Placement{0, 1, 1, 3}));
    }

    void tensorFlowNamesForOtherDeviceNames()
    {
        const Cluster c("odd",
                        {{"gpu-a", DeviceKind::Gpu, 1.0, 1.0},
                         {"host", DeviceKind::Cpu, 1.0, 1.0},
                         {"gpu-b", DeviceKind::Gpu, 1.0, 1.0},
                         {"/job:worker/replica:0/task:1/device:GPU:0", DeviceKind::Gpu, 1.0, 1.0}},
                        Link{});
        QCOMPARE(tensorFlowDeviceName(c, 0), std::string("/job:localhost/replica:0/task:0/device:GPU:0"));
        QCOMPARE(tensorFlowDeviceName(c, 1), std::string("/job:localhost/replica:0/task:0/device:CPU:0"));
        QCOMPARE(tensorFlowDeviceName(c, 2), std::string("/job:localhost/replica:0/task:0/device:GPU:1"));
        QCOMPARE(tensorFlowDeviceName(c, 3), std::string("/job:worker/replica:0/task:1/device:GPU:0"));
    }

    void malformedInputs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("fragments");
        const QString head = R"({"format": "post-placement/1", "placement": )";
        const QString rest = R"("c": "/device:GPU:0", "x,\u0022y\u0022": "/device:GPU:0"}})";
        auto row = [&](const char* name, const QString& text, const QStringList& fragments) {
            QTest::newRow(name) << text << fragments;
        };
        row("truncated", head + R"({"a": "/device:CPU:0")", {"line 1, column 66", "unexpected end of input"});
        row("unknown op", head + R"({"a": "/device:GPU:0", "zz": "/device:GPU:0", "b": "/device:GPU:0", )" + rest,
            {"field placement.zz", "unknown op \"zz\"", "graph \"toy\""});
        row("unknown device", head + R"({"a": "/device:GPU:9", "b": "/device:GPU:0", )" + rest,
            {"field placement.a", "unknown device \"/device:GPU:9\"", "/device:GPU:1"});
        row("device not string", head + R"({"a": 1, "b": "/device:GPU:0", )" + rest,
            {"field placement.a", "must be a string"});
        row("unplaced ops", head + R"({"a": "/device:GPU:0", "c": "/device:GPU:0"}})",
            {"field placement", "2 of 4 ops have no device", "\"b\"", "\"x,\"y\"\""});
        row("split colocation", head + R"({"a": "/device:GPU:0", "b": "/device:GPU:1", )" + rest,
            {"field placement", "colocation group 'g1' is split", "'b'", "'c'"});
        row("duplicate op", head + R"({"a": "/device:GPU:0", "a": "/device:GPU:1", "b": "/device:GPU:0", )" + rest,
            {"field placement", "\"a\" appears twice"});
        row("placement not object", head + R"(["a"]})", {"field placement", "must be an object"});
        row("placement missing", R"({"format": "post-placement/1"})", {"field placement", "missing"});
        row("wrong format", R"({"format": "post-graph/1", "placement": {}})", {"field format", "post-placement/1"});
        row("newer version", R"({"format": "post-placement/2", "placement": {}})",
            {"field format", "unsupported version"});
        row("graph not string", R"({"format": "post-placement/1", "graph": 3, "placement": {}})",
            {"field graph", "must be a string"});
    }

    void malformedInputs()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, fragments);
        const QByteArray utf8 = text.toUtf8();
        const Graph g = toyGraph();
        const Cluster c = toyCluster();
        try {
            (void)parsePlacement(std::string_view(utf8.constData(), size_t(utf8.size())), "bad-placement.json", g, c);
            QFAIL("malformed input was accepted");
        } catch (const InputError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith("bad-placement.json: "), qPrintable(message));
            for (const QString& fragment : fragments)
                QVERIFY2(message.contains(fragment), qPrintable(message + "\n  lacks: " + fragment));
        }
    }
};

QTEST_APPLESS_MAIN(TestPlacementFile)
#include "test_placement_file.moc"
