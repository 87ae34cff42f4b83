#include "core/graph/Graph.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include "tests/support/TestData.h"

#include <QtTest>

#include <cmath>

using namespace post;

class TestNativeFormats : public QObject {
    Q_OBJECT

private:
    static Graph parse(const char* text, const ImportOptions& options = {})
    {
        return parseNativeGraph(text, "toy.json", options);
    }

    static std::string sample(const char* name)
    {
        return testdata::sourceDir().toStdString() + "/samples/graphs/" + name;
    }

    static void expectSameGraph(const Graph& a, const Graph& b)
    {
        QCOMPARE(a.name(), b.name());
        QCOMPARE(a.opCount(), b.opCount());
        QCOMPARE(a.edgeCount(), b.edgeCount());
        for (OpId i = 0; i < a.opCount(); ++i) {
            const Op& x = a.op(i);
            const Op& y = b.op(i);
            QCOMPARE(x.name, y.name);
            QCOMPARE(x.type, y.type);
            // Exact: the writer must print every double so it reads back bit for bit.
            QVERIFY(x.timeUs == y.timeUs);
            QVERIFY(x.outputBytes == y.outputBytes);
            QVERIFY(x.paramBytes == y.paramBytes);
            QVERIFY(x.residentBytes == y.residentBytes);
            QCOMPARE(x.colocate, y.colocate);
        }
        for (EdgeId e = 0; e < a.edgeCount(); ++e) {
            QCOMPARE(a.edge(e).from, b.edge(e).from);
            QCOMPARE(a.edge(e).to, b.edge(e).to);
            QVERIFY(a.edge(e).bytes == b.edge(e).bytes);
        }
    }

private slots:
    void parsesEveryField()
    {
        const Graph g = parse(R"({"format": "post-graph/1", "name": "toy",
            "ops": [{"name": "a", "type": "MatMul", "time_us": {"gpu": 100, "cpu": 1000},
                     "output_bytes": 4000000, "param_bytes": 512, "resident_bytes": 2048,
                     "colocate": "g1"},
                    {"name": "b", "time_us": {"gpu": 7.5}, "output_bytes": 10, "colocate": "g1"},
                    {"name": "c", "time_us": {"cpu": 30}},
                    {"name": "d", "x-comment": "extensions are ignored"}],
            "edges": [{"from": "a", "to": "b", "bytes": 123},
                      {"from": "a", "to": "c"},
                      {"from": "b", "to": "d"}]})");
        QCOMPARE(g.name(), std::string("toy"));
        QCOMPARE(g.opCount(), 4);
        const Op& a = g.op(*g.find("a"));
        QCOMPARE(a.type, std::string("MatMul"));
        QCOMPARE(a.time(DeviceKind::Gpu), 100.0);
        QCOMPARE(a.time(DeviceKind::Cpu), 1000.0);
        QCOMPARE(a.outputBytes, 4e6);
        QCOMPARE(a.paramBytes, 512.0);
        QCOMPARE(a.residentBytes, 2048.0);
        // Missing CPU time: GPU time x cpuSlowdown (10); missing GPU time: CPU time / 10.
        QCOMPARE(g.op(*g.find("b")).time(DeviceKind::Cpu), 75.0);
        QCOMPARE(g.op(*g.find("c")).time(DeviceKind::Gpu), 3.0);
        // ... and each says so (`info` and the inspector call them "derived", not "given").
        QVERIFY(g.op(*g.find("b")).derived(DeviceKind::Cpu) && !g.op(*g.find("b")).derived(DeviceKind::Gpu));
        QVERIFY(g.op(*g.find("c")).derived(DeviceKind::Gpu) && !g.op(*g.find("c")).derived(DeviceKind::Cpu));
        QCOMPARE(a.derivedKinds, 0U);
        const Op& d = g.op(*g.find("d"));
        QCOMPARE(d.time(DeviceKind::Gpu), 0.0);
        QCOMPARE(d.time(DeviceKind::Cpu), 0.0);
        QCOMPARE(d.outputBytes, 0.0);
        QCOMPARE(d.residentBytes, 0.0);
        QCOMPARE(d.type, std::string());
        QCOMPARE(g.edge(0).bytes, 123.0);
        QCOMPARE(g.edge(1).bytes, 4e6); // the producer's output_bytes
        QCOMPARE(g.edge(2).bytes, 10.0);
        QCOMPARE(g.colocationGroupCount(), 1);
        QCOMPARE(g.colocationGroup(*g.find("a")), g.colocationGroup(*g.find("b")));
        QCOMPARE(g.colocationGroup(*g.find("c")), -1);
    }

    void cpuSlowdownOptionDerivesTheMissingTime()
    {
        ImportOptions options;
        options.cpuSlowdown = 4.0;
        const Graph g = parse(R"({"format": "post-graph/1",
            "ops": [{"name": "b", "time_us": {"gpu": 2.5}}, {"name": "c", "time_us": {"cpu": 10}}]})",
                              options);
        QCOMPARE(g.op(0).time(DeviceKind::Cpu), 10.0);
        QCOMPARE(g.op(1).time(DeviceKind::Gpu), 2.5);
        // Without "name" the graph is named after the file; "edges" may be left out.
        QCOMPARE(g.name(), std::string("toy"));
        QCOMPARE(g.edgeCount(), 0);
    }

    void writerRoundTrips()
    {
        const Graph g = parse(R"({"format": "post-graph/1", "name": "odd \u0022names\u0022 ü",
            "ops": [{"name": "x,\u0022y\u0022\n", "type": "T", "time_us": {"gpu": 0.1, "cpu": 1e-7},
                     "output_bytes": 1e20, "param_bytes": 123.456, "resident_bytes": 0.1,
                     "colocate": "grp"},
                    {"name": "z", "time_us": {"gpu": 3}, "output_bytes": 9007199254740993,
                     "body": "body: 2 ops, x 7 iterations"}],
            "edges": [{"from": "x,\u0022y\u0022\n", "to": "z", "bytes": 0.30000000000000004}]})");
        const std::string text = nativeGraphJson(g);
        const Graph back = parseNativeGraph(text, "again.json");
        expectSameGraph(g, back);
        // Reading back does not depend on the reader's cpuSlowdown: both times are written.
        ImportOptions other;
        other.cpuSlowdown = 3.0;
        expectSameGraph(g, parseNativeGraph(text, "again.json", other));
        QCOMPARE(nativeGraphJson(back), text);
        QVERIFY2(QString::fromStdString(text).contains(R"("bytes": 0.30000000000000004)"), text.c_str());
        QCOMPARE(back.op(0).residentBytes, 0.1);
        QCOMPARE(back.op(1).body, std::string("body: 2 ops, x 7 iterations"));
        QCOMPARE(QString::fromStdString(text).count("\"body\""), 1); // written only where set
        // resident_bytes is written only where non-zero (x, not z).
        QCOMPARE(QString::fromStdString(text).count("resident_bytes"), 1);
        // Integral values print as integers.
        QVERIFY2(QString::fromStdString(text).contains(R"("time_us": {"gpu": 3, "cpu": 30})"), text.c_str());
        // z's CPU time was derived from its GPU time: written with both times and marked so,
        // it reads back derived (a converted PipeDream profile keeps saying so).
        QCOMPARE(QString::fromStdString(text).count(R"("derived": ["cpu"])"), 1);
        QCOMPARE(back.op(1).derivedKinds, 1U << static_cast<int>(DeviceKind::Cpu));
        QCOMPARE(back.op(0).derivedKinds, 0U);
    }

    void derivedTimesAreNotMeasured()
    {
        try {
            parse(R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": 1, "cpu": 10},
                      "measured": ["cpu"], "derived": ["cpu"]}]})");
            QFAIL("accepted a time both measured and derived");
        } catch (const InputError& e) {
            QCOMPARE(e.location(), std::string("field ops[0].derived[0]"));
        }
        QVERIFY_THROWS_EXCEPTION(InputError, parse(R"({"format": "post-graph/1", "ops": [{"name": "a",
                      "time_us": {"gpu": 1}, "derived": ["tpu"]}]})"));
    }

    // "origin" (post-cli convert) gives back the format a graph was first read from and what that
    // import decided, which decide its default precision mode and host-dispatch figures; a graph
    // without one writes none and reads as native.
    void originRoundTrips()
    {
        ImportedGraph imported;
        imported.graph = parse(
            R"({"format": "post-graph/1", "name": "t", "ops": [{"name": "a", "time_us": {"gpu": 1}}]})");
        imported.format = GraphFormat::TorchEt;
        imported.forwardFlops = 1.5e9;
        imported.fused = false;
        imported.fusionWhy = "eager";
        imported.eagerHost = true;
        const std::string text = nativeGraphJson(imported);
        QVERIFY2(text.find(R"("origin": {"format": "pytorch-et", "forward_flops": 1500000000, "kernel_fusion": false, )"
                           R"("kernel_fusion_why": "eager", "eager_host": true})")
                     != std::string::npos,
                 text.c_str());
        ImportedGraph back = importNativeGraph(text, "t.json");
        QVERIFY(back.origin == GraphFormat::TorchEt);
        QVERIFY(back.frameworkPrecision() == PrecisionMode::Pytorch);
        QCOMPARE(back.forwardFlops, 1.5e9);
        QCOMPARE(back.fused, std::optional<bool>(false));
        QCOMPARE(back.fusionWhy, std::string("eager"));
        QVERIFY(back.eagerHost);
        back.format = GraphFormat::PostGraph; // as GraphFile sets it: the origin stays the trace's
        QCOMPARE(nativeGraphJson(back), text);
        expectSameGraph(parseNativeGraph(text, "t.json"), imported.graph);

        ImportedGraph native = importNativeGraph(nativeGraphJson(imported.graph), "n.json");
        QVERIFY(native.origin == GraphFormat::Auto && !native.eagerHost && native.forwardFlops < 0.0 && !native.fused);
        native.format = GraphFormat::PostGraph;
        QVERIFY(native.frameworkPrecision() == PrecisionMode::Tf32);
        QCOMPARE(nativeGraphJson(native), nativeGraphJson(imported.graph));
        for (const char* bad : {R"({"format": "post-graph/1", "origin": {"format": "post-graph"}, "ops": []})",
                                R"({"format": "post-graph/1", "origin": {"eager_host": true}, "ops": []})",
                                R"({"format": "post-graph/1", "origin": {"format": "onnx", "flops": 1}, "ops": []})",
                                R"({"format": "post-graph/1", "origin": {"format": "onnx", "data_dependent_sizes":
                                    [{"node": "pick", "largest": 4, "value": 5}]}, "ops": []})",
                                R"({"format": "post-graph/1", "origin": {"format": "onnx", "data_dependent_sizes":
                                    [{"node": "pick", "largest": 4, "value": 1.5}]}, "ops": []})"})
            QVERIFY_THROWS_EXCEPTION(InputError, importNativeGraph(bad, "bad.json"));
    }

    // A graph read with sizes that depend on the data (--count, --count-max) keeps them when
    // converted: read again, it says so, and a worst case stays one.
    void dataDependentSizesRoundTrip()
    {
        ImportedGraph imported;
        imported.graph = parse(
            R"({"format": "post-graph/1", "name": "t", "ops": [{"name": "a", "time_us": {"gpu": 1}}]})");
        imported.format = GraphFormat::Onnx;
        DataDependentSize given{"pick", "node 2 'pick' (NonZero)", "the nonzero elements of a [16] tensor", 16, 4,
                                false};
        DataDependentSize most{"keep", "node 8 'keep' (NonMaxSuppression)", "the boxes kept", 5, 5, true};
        DataDependentSize open{"later", "node 9 'later' (NonZero)", "", 7, -1, false}; // not written
        imported.dataDependentSizes = {given, most, open};
        const std::string text = nativeGraphJson(imported);
        ImportedGraph back = importNativeGraph(text, "t.json");
        QCOMPARE(back.dataDependentSizes.size(), std::size_t(2));
        QCOMPARE(back.dataDependentSizes[0].location, given.location);
        QCOMPARE(back.dataDependentSizes[0].value, std::int64_t{4});
        QVERIFY(back.dataDependentSizes[1].atMost);
        QCOMPARE(back.notes.size(), std::size_t(1));
        QVERIFY2(back.notes[0].find("as given (--count): 'pick' 4") != std::string::npos
                     && back.notes[0].find("worst case: 'keep' 5") != std::string::npos,
                 back.notes[0].c_str());
        back.format = GraphFormat::PostGraph;
        QCOMPARE(nativeGraphJson(back), text);
    }

    void samplesLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("minOps");
        QTest::addColumn<int>("maxOps");
        QTest::newRow("inception-block") << "inception-block.json" << 80 << 150;
        QTest::newRow("tiny-mlp") << "tiny-mlp.json" << 8 << 12;
    }

    void samplesLoad()
    {
        QFETCH(QString, file);
        QFETCH(int, minOps);
        QFETCH(int, maxOps);
        const std::string path = sample(file.toUtf8().constData());
        const Graph g = parseNativeGraph(readFileText(path), path);
        QVERIFY2(g.opCount() >= minOps && g.opCount() <= maxOps, qPrintable(QString::number(g.opCount())));
        QCOMPARE(g.name() + ".json", file.toStdString());
        // Every backward op and parameter update sits in its forward op's colocation group.
        int backward = 0;
        for (const Op& op : g.ops()) {
            QVERIFY2(op.time(DeviceKind::Gpu) > 0.0, op.name.c_str());
            for (const char* prefix : {"grad/", "update/"})
                if (op.name.starts_with(prefix)) {
                    ++backward;
                    const auto forward = g.find(op.name.substr(std::string(prefix).size()));
                    QVERIFY2(forward, op.name.c_str());
                    QVERIFY(g.colocationGroup(*forward) >= 0);
                    QCOMPARE(g.colocationGroup(*g.find(op.name)), g.colocationGroup(*forward));
                }
        }
        QVERIFY(backward > g.opCount() / 2);
    }

    void inceptionSampleHasThreeFourBranchBlocks()
    {
        const std::string path = sample("inception-block.json");
        const Graph g = parseNativeGraph(readFileText(path), path);
        int concats = 0;
        for (OpId id = 0; id < g.opCount(); ++id)
            if (g.op(id).type == "Concat") {
                ++concats;
                QCOMPARE(g.inEdges(id).size(), size_t(4));
            }
        QCOMPARE(concats, 3);
        // The concat's output size is the sum of its four branches' outputs.
        const OpId concat = *g.find("mixed_5b/concat");
        double sum = 0.0;
        for (EdgeId e : g.inEdges(concat))
            sum += g.edge(e).bytes;
        QCOMPARE(g.op(concat).outputBytes, sum);
        QCOMPARE(g.op(concat).outputBytes, 32.0 * 35 * 35 * 256 * 4); // batch 32, 35x35x256 fp32
    }

    // "collective" (docs/formats.md): read, written back only where set, and refused when wrong.
    void collectivesRoundTrip()
    {
        const Graph g = parse(R"({"format": "post-graph/1", "ops": [
            {"name": "ar", "time_us": {"gpu": 0}, "collective": {"kind": "all_reduce", "bytes": 1048576, "ranks": 8}},
            {"name": "bc", "collective": {"kind": "broadcast"}},
            {"name": "mm", "time_us": {"gpu": 5}}]})");
        QCOMPARE(g.op(0).collective, CollectiveKind::AllReduce);
        QCOMPARE(g.op(0).collectiveBytes, 1048576.0);
        QCOMPARE(g.op(0).collectiveRanks, 8);
        QCOMPARE(g.op(1).collective, CollectiveKind::Broadcast);
        QCOMPARE(g.op(1).collectiveRanks, 0); // the cluster's GPUs
        QVERIFY(!g.op(2).isCollective());
        const std::string text = nativeGraphJson(g);
        QVERIFY2(text.find(R"("collective": {"kind": "all_reduce", "bytes": 1048576, "ranks": 8})") != std::string::npos,
                 text.c_str());
        QVERIFY2(text.find(R"("collective": {"kind": "broadcast"})") != std::string::npos, text.c_str());
        QCOMPARE(QString::fromStdString(text).count("collective"), 2);
        const Graph back = parseNativeGraph(text, "again.json");
        QCOMPARE(nativeGraphJson(back), text);
        try {
            parse(R"({"format": "post-graph/1", "ops": [{"name": "x", "collective": {"kind": "allreduce"}}]})");
            QFAIL("an unknown kind was taken");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("ops[0].collective.kind"), e.what());
            QVERIFY2(QString(e.what()).contains("all_reduce"), e.what());
        }
    }

    void malformedInputs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("fragments");
        const QString head = R"({"format": "post-graph/1", "ops": )";
        auto row = [&](const char* name, const QString& text, const QStringList& fragments) {
            QTest::newRow(name) << text << fragments;
        };
        row("truncated", "{\n  \"format\": \"post-graph/1\",\n  \"ops\": [\n    {\"name\": \"a\"",
            {"line 4, column 17", "unexpected end of input"});
        row("trailing comma", "{\"format\": \"post-graph/1\",\n\"ops\": [{\"name\": \"a\",}]}", {"line 2, column 22"});
        row("empty file", "", {"line 1, column 1"});
        row("NaN literal", head + "[{\"name\": \"a\", \"time_us\": {\"gpu\": NaN}}]}", {"line 1, column 69"});
        row("overflowing number", head + "[{\"name\": \"a\",\n \"time_us\": {\"gpu\": 1e999}}]}",
            {"line 2, column 21", "1e999", "too large"});
        row("NaN string", head + R"([{"name": "a", "time_us": {"gpu": "NaN"}}]})",
            {"field ops[0].time_us.gpu", "must be a number", "\"NaN\"", "no NaN"});
        row("Infinity string", head + R"([{"name": "a", "time_us": {"cpu": "Infinity"}}]})",
            {"field ops[0].time_us.cpu", "must be a number"});
        row("quoted number", head + R"([{"name": "a", "output_bytes": "12"}]})",
            {"field ops[0].output_bytes", "must be a number", "without quotes"});
        row("quoted -inf", head + R"([{"name": "a", "time_us": {"gpu": "-inf"}}]})",
            {"field ops[0].time_us.gpu", "must be a number", "no NaN or infinity"});
        row("a word for a number", head + R"([{"name": "a", "time_us": {"gpu": "fast"}}]})",
            {"field ops[0].time_us.gpu", "must be a number, got the string \"fast\""});
        row("negative time", head + R"([{"name": "a"}, {"name": "b", "time_us": {"gpu": -1}}]})",
            {"field ops[1].time_us.gpu", ">= 0", "-1"});
        row("negative bytes", head + R"([{"name": "a", "param_bytes": -5}]})", {"field ops[0].param_bytes", ">= 0"});
        row("negative resident bytes", head + R"([{"name": "a", "resident_bytes": -1}]})",
            {"field ops[0].resident_bytes", ">= 0"});
        row("resident bytes as string", head + R"([{"name": "a", "resident_bytes": "1"}]})",
            {"field ops[0].resident_bytes", "must be a number"});
        row("bool as number", head + R"([{"name": "a", "output_bytes": true}]})",
            {"field ops[0].output_bytes", "must be a number, got true"});
        row("name not a string", head + R"([{"name": 7}]})", {"field ops[0].name", "must be a string"});
        row("missing name", head + R"([{"name": "a"}, {"type": "x"}]})", {"field ops[1].name", "missing"});
        row("empty name", head + R"([{"name": ""}]})", {"field ops[0].name", "empty"});
        // A key other than a kind names a device type (docs/clusters.md): one that cannot be a
        // type is refused, and a type's time needs a kind's beside it.
        row("unknown kind", head + R"([{"name": "a", "time_us": {"TPU": 3}}]})",
            {"field ops[0].time_us.TPU", "neither a device kind"});
        row("type without kind", head + R"([{"name": "a", "time_us": {"tpu": 3}}]})",
            {"field ops[0].time_us.tpu", "needs one for a device kind"});
        row("time_us not object", head + R"([{"name": "a", "time_us": 3}]})", {"field ops[0].time_us", "object"});
        row("colocate not string", head + R"([{"name": "a", "colocate": 1}]})", {"field ops[0].colocate", "string"});
        row("unknown field", head + R"([{"name": "a", "time_ms": {"gpu": 1}}]})",
            {"field ops[0].time_ms", "unknown field"});
        row("duplicate op", head + R"([{"name": "a"}, {"name": "b"}, {"name": "a"}]})",
            {"field ops[2].name", "duplicate op \"a\"", "ops[0]"});
        row("duplicate key", head + R"([{"name": "a", "type": "x", "name": "b"}]})",
            {"field ops[0]", "\"name\" appears twice"});
        row("ops not array", head + R"({"a": 1}})", {"field ops", "must be an array"});
        row("ops missing", R"({"format": "post-graph/1"})", {"field ops", "missing"});
        row("op not object", head + R"([3]})", {"field ops[0]", "must be an object"});
        row("edge to unknown op", head + R"([{"name": "a"}], "edges": [{"from": "a", "to": "zz"}]})",
            {"field edges[0].to", "unknown op \"zz\""});
        row("edge without from", head + R"([{"name": "a"}], "edges": [{"to": "a"}]})",
            {"field edges[0].from", "missing"});
        row("edge negative bytes",
            head + R"([{"name": "a"}, {"name": "b"}], "edges": [{"from": "a", "to": "b", "bytes": -2}]})",
            {"field edges[0].bytes", ">= 0"});
        row("self loop", head + R"([{"name": "a"}], "edges": [{"from": "a", "to": "a"}]})",
            {"field edges[0]", "feeds itself"});
        row("cycle", head + R"([{"name": "s"}, {"name": "p"}, {"name": "q"}],
                "edges": [{"from": "s", "to": "p"}, {"from": "p", "to": "q"}, {"from": "q", "to": "p"}]})",
            {"edges", "cycle", "'p'", "'q'"});
        row("top level array", "[1, 2]", {"top level", "must be an object"});
        row("format missing", R"({"ops": []})", {"field format", "missing", "post-graph/1"});
        row("format not string", R"({"format": 1, "ops": []})", {"field format", "must be a string"});
        row("wrong format", R"({"format": "post-cluster/1", "ops": []})",
            {"field format", "expected \"post-graph/1\"", "post-cluster/1"});
        row("newer version", R"({"format": "post-graph/2", "ops": []})", {"field format", "unsupported version"});
        row("unknown top-level field", R"({"format": "post-graph/1", "ops": [], "nodes": []})",
            {"field nodes", "unknown field"});
    }

    void malformedInputs()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, fragments);
        const QByteArray utf8 = text.toUtf8();
        try {
            (void)parseNativeGraph(std::string_view(utf8.constData(), size_t(utf8.size())), "bad.json");
            QFAIL("malformed input was accepted");
        } catch (const InputError& e) {
            const QString message = QString::fromUtf8(e.what());
            QCOMPARE(e.file(), std::string("bad.json"));
            QVERIFY2(message.startsWith("bad.json: "), qPrintable(message));
            for (const QString& fragment : fragments)
                QVERIFY2(message.contains(fragment), qPrintable(message + "\n  lacks: " + fragment));
        }
    }
};

QTEST_APPLESS_MAIN(TestNativeFormats)
#include "test_native_formats.moc"
