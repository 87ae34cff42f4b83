// The JSON Schemas of resources/schemas/ against real outputs: every post-cli --json
// object, the native files the program writes (post-graph/1 from the zoo and a session,
// post-cluster/1 presets, post-placement/1 from place --out, post-session/1), and files
// that break a rule, which must fail. The check runs tests/schemas/validate.py with
// python3-jsonschema; without it the tests skip (docs/testing.md).
#include "tests/support/KinetoTraces.h"
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/session/SessionFile.h"

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <memory>

namespace {

using Result = testsupport::ProgramRun;

Result run(const QString& program, const QStringList& args) { return testsupport::runProgram(program, args); }

} // namespace

class TestSchemas : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString python_;

    QString schemaDir() const { return testdata::sourceDir() + "/resources/schemas"; }

    // SCHEMA=FILE pairs, one validator run.
    Result validate(const QStringList& pairs)
    {
        return run(python_, QStringList{testdata::sourceDir() + "/tests/schemas/validate.py", schemaDir()} + pairs);
    }

    QString write(const QString& name, const QByteArray& content) { return testdata::writeFile(dir_, name, content); }

    // post-cli's standard output, written to a file.
    QString cliOutput(const QString& name, const QStringList& args)
    {
        const Result r = run(testdata::cliPath(), args);
        if (r.exitCode != 0)
            qWarning() << args << r.err;
        return write(name, r.out.toUtf8());
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        python_ = QStandardPaths::findExecutable("python3");
        if (python_.isEmpty())
            QSKIP("python3 is not installed: schema tests skipped");
        const Result r = run(python_, {testdata::sourceDir() + "/tests/schemas/validate.py", schemaDir(), "--check"});
        if (r.exitCode == 77)
            QSKIP("python3-jsonschema is not installed (scripts/dev installs it): schema tests skipped");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("9 schemas are valid"), qPrintable(r.out));
    }

    // Every file the program writes, each against its schema, in one validator run.
    void realOutputsAreValid()
    {
        QStringList pairs;
        const auto add = [&](const QString& schema, const QString& file) { pairs << schema + "=" + file; };
        // post-cli --json.
        const QString graph = testdata::sourceDir() + "/samples/graphs/inception-block.json";
        const QString pbtxt = testdata::sourceDir() + "/tests/data/pbtxt/train_pipeline.pbtxt";
        const QList<QPair<QString, QStringList>> cases = {
            {"post-info-1", {"info", graph, "--json"}},
            {"post-info-1", {"info", pbtxt, "--json"}},
            {"post-simulate-1", {"simulate", graph, "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--json"}},
            {"post-simulate-1", {"simulate", pbtxt, "--cluster", "v100x4-nvlink", "--all-on", "/device:GPU:1", "--json"}},
            {"post-place-1", {"place", graph, "--cluster", "k80x4", "--algo", "m-etf", "--json"}},
            {"post-place-1", {"place", pbtxt, "--cluster", "k80x4", "--algo", "post", "--samples", "40", "--json"}},
            {"post-compare-1",
             {"compare", graph, "--cluster", "k80x2", "--algos", "single,m-topo,random", "--samples", "40", "--json"}},
            {"post-place-1",
             {"place", testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", "--cluster", "k80x4", "--algo", "milp",
              "--time", "5", "--json"}},
            {"post-compare-1",
             {"compare", testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", "--cluster", "k80x4", "--algos",
              "milp,m-etf", "--time", "2", "--json"}},
            {"post-place-1", // grouped mode: grouped_bound_ms and grouped_bound_groups
             {"place", testdata::sourceDir() + "/samples/graphs/inception-block.json", "--cluster", "k80x4", "--algo",
              "milp", "--time", "1", "--set", "milp-groups=8", "--json"}},
            {"post-compare-1",
             {"compare", testdata::sourceDir() + "/samples/graphs/inception-block.json", "--cluster", "k80x4",
              "--algos", "milp", "--time", "1", "--set", "milp-groups=8", "--json"}},
            {"post-zoo-list-1", {"zoo", "list", "--json"}},
            // A PyTorch execution trace: eager PyTorch's host_dispatch_ms and host_dispatched_ops.
            {"post-info-1",
             {"info", testdata::sourceDir() + "/tests/data/fuzz-regressions/pytorch-et/step-with-views.json", "--json"}},
            {"post-simulate-1",
             {"simulate", testdata::sourceDir() + "/tests/data/fuzz-regressions/pytorch-et/step-with-views.json",
              "--cluster", "h100x8-nvlink", "--all-on", "/device:GPU:0", "--json"}},
            {"post-place-1",
             {"place", testdata::sourceDir() + "/tests/data/fuzz-regressions/pytorch-et/step-with-views.json",
              "--cluster", "h100x8-nvlink", "--algo", "m-etf", "--json"}},
            {"post-compare-1",
             {"compare", testdata::sourceDir() + "/tests/data/fuzz-regressions/pytorch-et/step-with-views.json",
              "--cluster", "h100x8-nvlink", "--algos", "single,m-etf", "--seeds", "1", "--json"}},
            {"post-simulate-1",
             {"simulate", graph, "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--dispatch", "critical-path",
              "--json"}},
        };
        int k = 0;
        for (const auto& [schema, args] : cases)
            add(schema, cliOutput(QString("out%1.json").arg(k++), args));
        // Measured times (--costs TRACE): info's op_times and a saved graph's measured_by.
        const QString toy = testdata::writeFile(dir_, "toy.json", R"({"format": "post-graph/1", "name": "toy",
            "ops": [{"name": "/conv/Conv", "type": "Conv", "time_us": {"gpu": 10, "cpu": 100}, "flops": 1e6},
                    {"name": "/conv/Conv/grad", "type": "Conv", "time_us": {"gpu": 20, "cpu": 200}}],
            "edges": [{"from": "/conv/Conv", "to": "/conv/Conv/grad"}]})");
        testdata::KinetoTraceWriter trace(testdata::KinetoLayout::PyTorch2);
        trace.op("aten::conv2d", 30, 1).backward("ConvolutionBackward", 60, 1);
        const QString traceFile = testdata::writeFile(dir_, "toy.pt.trace.json", QByteArray::fromStdString(trace.text()));
        add("post-info-1", cliOutput("measured-info.json", {"info", toy, "--costs", traceFile, "--json"}));
        add("post-info-1", cliOutput("typed-info.json", {"info", toy, "--costs", "v100=" + traceFile, "--json"}));
        const QString measured = dir_.filePath("measured-graph.json");
        QCOMPARE(run(testdata::cliPath(), {"convert", toy, "--costs", traceFile, "--out", measured}).exitCode, 0);
        add("post-graph-1", measured);
        // post-graph/1: the samples (the zoo's output) and what a session embeds (below).
        for (const QString& f : QDir(testdata::sourceDir() + "/samples/graphs").entryList({"*.json"}))
            add("post-graph-1", testdata::sourceDir() + "/samples/graphs/" + f);
        // post-cluster/1: every preset.
        const QStringList presets = QDir(testdata::sourceDir() + "/resources/clusters").entryList({"*.json"});
        QCOMPARE(presets.size(), 6);
        for (const QString& f : presets)
            add("post-cluster-1", testdata::sourceDir() + "/resources/clusters/" + f);
        // post-graph/1 with times per device type and measured types, as convert writes it
        // (docs/clusters.md, "Device types").
        const QString typed = write("typed.json", R"({"format": "post-graph/1", "ops": [
            {"name": "a", "time_us": {"v100": 120, "t4": 310, "cpu": 2400}, "measured": ["t4"]}]})");
        const QString converted = dir_.filePath("typed-out.json");
        QCOMPARE(run(testdata::cliPath(), {"convert", typed, "--out", converted}).exitCode, 0);
        QFile convertedFile(converted);
        QVERIFY(convertedFile.open(QIODevice::ReadOnly));
        QVERIFY(convertedFile.readAll().contains("\"t4\": 310"));
        add("post-graph-1", typed);
        add("post-graph-1", converted);
        // post-graph/1 with the "origin" of an import (an ONNX model's format, FLOPs and fusion).
        const QString fromOnnx = dir_.filePath("cnn-converted.json");
        QCOMPARE(run(testdata::cliPath(),
                     {"convert", testdata::sourceDir() + "/tests/data/onnx/cnn.onnx", "--out", fromOnnx})
                     .exitCode,
                 0);
        add("post-graph-1", fromOnnx);
        // post-placement/1: what place --out writes.
        const QString placement = dir_.filePath("best.json");
        QCOMPARE(
            run(testdata::cliPath(), {"place", pbtxt, "--cluster", "k80x4", "--algo", "m-etf", "--out", placement}).exitCode,
            0);
        add("post-placement-1", placement);
        const QString byPath = dir_.filePath("by-path.json"); // with "dispatch"
        QCOMPARE(run(testdata::cliPath(),
                     {"place", graph, "--cluster", "k80x4", "--algo", "m-etf", "--dispatch", "critical-path", "--out",
                      byPath})
                     .exitCode,
                 0);
        add("post-placement-1", byPath);
        const QString started = dir_.filePath("started.json"); // with "start"
        QCOMPARE(run(testdata::cliPath(),
                     {"place", graph, "--cluster", "k80x4", "--algo", "local-search", "--samples", "5", "--start",
                      byPath, "--out", started})
                     .exitCode,
                 0);
        add("post-placement-1", started);
        add("post-place-1",
            cliOutput("started-place.json",
                      {"place", graph, "--cluster", "k80x4", "--algo", "local-search", "--samples", "5", "--start",
                       byPath, "--json"})); // start_step_time_ms
        // post-session/1: a TensorFlow graph (its CPU-pinned ops are "cpu_only" in the embedded
        // graph), a placement, samples and updates of every kind.
        post::Session s;
        s.source = pbtxt.toStdString();
        s.graph = std::make_shared<const post::Graph>(post::readGraphFile(pbtxt.toStdString()));
        s.cluster = std::make_shared<const post::Cluster>(post::loadCluster("k80x4"));
        s.placement.assign(static_cast<std::size_t>(s.graph->opCount()), 0);
        s.learner = {"ce", 100, 7, 2.5}; // with a time limit
        s.run.state = post::SessionRunState::Done;
        s.run.lowerBoundUs = 12.5;
        s.samples = {{0, 130.25, true, nullptr}, {1, 9e9, false, nullptr}};
        s.updates = {{2, post::UpdateKind::CrossEntropy, 125.0, 120.0, 0.75},
                     {4, post::UpdateKind::Ppo, std::nan(""), 110.0, 0.5},
                     {6, post::UpdateKind::Reinforce, std::nan(""), std::nan(""), 0.25}};
        const QString session = dir_.filePath("s.session.json");
        post::writeSessionFile(session.toStdString(), s);
        QFile f(session);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("\"cpu_only\": true"));
        add("post-session-1", session);

        const Result r = validate(pairs);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QString("%1 of %1 files valid").arg(pairs.size())), qPrintable(r.out));
    }

    // The schemas reject what the readers reject: a misspelt field, a missing tag, a
    // wrong type.
    void brokenFilesFail()
    {
        struct Broken {
            const char* name;
            const char* schema;
            QByteArray json;
            const char* fragment;
        };
        // clang-format off
        const Broken cases[] = {
            {"graph: misspelt field", "post-graph-1", QByteArray(R"({"format": "post-graph/1", "ops": [{"name": "a", "time_ms": {"gpu": 1}}]})"), "time_ms"},
            {"graph: negative time", "post-graph-1", QByteArray(R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": -1}}]})"), "-1"},
            {"cluster: no devices", "post-cluster-1", QByteArray(R"({"format": "post-cluster/1", "devices": []})"), "devices"},
            {"cluster: kind as type", "post-cluster-1", QByteArray(R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", "type": "gpu"}]})"), "type"},
            {"graph: upper-case type", "post-graph-1", QByteArray(R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": 1, "V100": 2}}]})"), "V100"},
            {"placement: version 2", "post-placement-1", QByteArray(R"({"format": "post-placement/2", "placement": {}})"), "format"},
            {"info: no format tag", "post-info-1", QByteArray(R"({"name": "g", "ops": 1})"), "format"},
            {"compare: row without algo", "post-compare-1", QByteArray(R"({"format": "post-compare/1", "graph": "g", "cluster": "c", "samples": 1, "seeds": 1,
                "lower_bound_ms": 0, "lower_bound_source": "work", "single_device_ms": 1, "results": [{"mean_step_time_ms": 1}]})"), "algo"},
            {"compare: unknown bound source", "post-compare-1", QByteArray(R"({"format": "post-compare/1", "graph": "g", "cluster": "c", "samples": 1, "seeds": 1,
                "lower_bound_ms": 0, "lower_bound_source": "guess", "single_device_ms": 1, "results": []})"), "guess"},
            {"compare: a budget of no time", "post-compare-1", QByteArray(R"({"format": "post-compare/1", "graph": "g", "cluster": "c", "dispatch": "ready", "samples": 1,
                "time_s": 0, "seeds": 1, "lower_bound_ms": 0, "lower_bound_source": "work", "single_device_ms": 1, "results": []})"), "time_s"},
            {"session: embedded graph broken", "post-session-1", QByteArray(R"({"format": "post-session/1", "learner": {"algorithm": "post", "samples": 1, "seed": 1},
                "graph": {"format": "post-graph/1", "ops": [{"type": "Relu"}]},
                "cluster": {"format": "post-cluster/1", "devices": [{"name": "/device:GPU:0", "kind": "gpu"}]}})"), "name"},
        };
        // clang-format on
        QStringList pairs;
        for (const Broken& b : cases)
            pairs << QString(b.schema) + "="
                    + write(QString(b.name).replace(QRegularExpression("[^a-z]+"), "-") + ".json", b.json);
        const Result r = validate(pairs);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QString("0 of %1 files valid").arg(pairs.size())), qPrintable(r.out + r.err));
        for (const Broken& b : cases) {
            const QString file = QString(b.name).replace(QRegularExpression("[^a-z]+"), "-") + ".json";
            const QStringList lines = r.err.split('\n').filter(file);
            QVERIFY2(!lines.isEmpty() && lines.join('\n').contains(b.fragment),
                     qPrintable(QString(b.name) + ": " + r.err));
        }
    }
};

QTEST_APPLESS_MAIN(TestSchemas)
#include "test_schemas.moc"
