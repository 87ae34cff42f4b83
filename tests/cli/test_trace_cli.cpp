// post-cli on execution and Chakra traces: --help lists the importer table, a wrong or
// truncated trace is exit 1 naming the file and the field, a Kineto trace given as the graph
// is refused naming --costs, a real trace is placed.
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include "core/io/ImporterTable.h"

#include <QTemporaryDir>
#include <QtTest>

using testsupport::runCli;

class TestTraceCli : public QObject {
    Q_OBJECT

private slots:
    void helpListsEveryFormat()
    {
        const auto r = runCli({"--help"});
        QCOMPARE(r.exitCode, 0);
        for (const post::ImporterRow& row : post::importerTable()) {
            const QString name = QString::fromUtf8(post::toString(row.format).data());
            QVERIFY2(r.out.contains("\n  " + name + " "), qPrintable(name));
            QVERIFY2(
                r.out.contains("docs/importers.md#" + QString::fromUtf8(row.docsAnchor.data(), row.docsAnchor.size())),
                qPrintable(name));
        }
        const auto bad = runCli({"info", "x", "--format", "chakra"});
        QCOMPARE(bad.exitCode, 2);
        for (const char* name : {"pytorch-et", "chakra-json", "chakra-et", "onnx"})
            QVERIFY2(bad.err.contains(name), qPrintable(bad.err));
    }

    void wrongTracesExitOneNamingFileAndField()
    {
        QTemporaryDir dir;
        const QString cut = testdata::writeFile(dir, "cut_et.json",
                                                "{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1, \"na" /* cut off */);
        auto r = runCli({"info", cut});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(cut) && r.err.contains("line 1"), qPrintable(r.err));
        const QString noDeps = testdata::writeFile(
            dir, "c.json", R"({"workload_graph": [{"Id": 1, "Name": "a", "NodeType": 4, "runtime": 1}]})");
        r = runCli({"info", noDeps});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(noDeps) && r.err.contains("workload_graph[0].data_deps"), qPrintable(r.err));
        const QString kineto = testdata::writeFile(dir, "run.pt.trace.json",
                                                   R"({"schemaVersion": 1, "traceEvents": []})");
        r = runCli({"info", kineto});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(kineto) && r.err.contains("--costs"), qPrintable(r.err));
    }

    void aRealTraceIsPlaced()
    {
        REQUIRE_SHARED_DATA(data);
        const auto r = runCli({"place", data + "/traces/param/linear_et.json.gz", "--cluster", "v100x4-nvlink",
                               "--algo", "m-etf", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("\"best_step_time_ms\""), qPrintable(r.out.left(400)));
        QVERIFY2(r.err.contains("execution trace, schema 1.0.1"), qPrintable(r.err));
    }
};

QTEST_APPLESS_MAIN(TestTraceCli)
#include "test_trace_cli.moc"
