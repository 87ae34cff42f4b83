// Replays every input the fuzzers once crashed, hung or exhausted memory on
// (tests/data/fuzz-regressions/<target>/, see docs/testing.md) and checks the input limits.
#include "FuzzTargets.h"
#include "TestData.h"
#include "util/InputError.h"

#include "io/ClusterFile.h"
#include "io/DotEdgeBound.h"
#include "io/NativeGraphReader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtTest>

#include <string>

using namespace post;

namespace {

QString regressionDir()
{
    return testdata::sourceDir() + QStringLiteral("/tests/data/fuzz-regressions");
}

// "" when the importer took the input or refused it with InputError (for `mustRefuse`: only
// the latter); otherwise what went wrong.
QString replay(const fuzz::FuzzTarget& target, const QByteArray& bytes, bool mustRefuse)
{
    try {
        target.parse(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
        return mustRefuse ? QStringLiteral("accepted, but it is beyond a documented limit") : QString();
    } catch (const InputError&) {
        return {};
    } catch (const std::exception& e) {
        return QStringLiteral("threw a non-InputError: ") + QString::fromStdString(e.what());
    }
}

} // namespace

class FuzzRegressionsTest : public QObject {
    Q_OBJECT

private slots:
    void everyFolderNamesATarget()
    {
        const QStringList folders = QDir(regressionDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY2(!folders.isEmpty(), qPrintable(regressionDir() + " has no target folders"));
        for (const QString& folder : folders)
            QVERIFY2(fuzz::findFuzzTarget(folder.toStdString()), qPrintable(folder + " is not in fuzz/FuzzTargets.cpp"));
    }

    void replaysWithoutCrashing_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("path");
        for (const fuzz::FuzzTarget& target : fuzz::fuzzTargets()) {
            const QString name = QString::fromUtf8(target.name.data(), static_cast<qsizetype>(target.name.size()));
            const QDir dir(regressionDir() + "/" + name);
            for (const QString& file : dir.entryList(QDir::Files, QDir::Name))
                QTest::newRow(qPrintable(name + "/" + file)) << name << dir.filePath(file);
        }
    }

    void replaysWithoutCrashing()
    {
        QFETCH(QString, target);
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
        // limit-*: hand-made inputs past a documented limit (docs/formats.md), which must be refused.
        const bool mustRefuse = QFileInfo(path).fileName().startsWith(QStringLiteral("limit-"));
        const QString problem = replay(*fuzz::findFuzzTarget(target.toStdString()), file.readAll(), mustRefuse);
        QVERIFY2(problem.isEmpty(), qPrintable(path + ": " + problem));
    }

    // Nesting deeper than JsonInput's limit is refused before it can exhaust the stack or
    // memory; a document just inside the limit still reaches the field checks.
    void deepJsonNestingIsAnInputError()
    {
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        try {
            parseNativeGraph(deep, "deep.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.location()), QStringLiteral("line 1, column 257"));
            QVERIFY2(QString::fromStdString(e.message()).contains("nested more than 256 levels deep"), e.what());
        }
        const std::string shallow = std::string(256, '[') + std::string(256, ']');
        try {
            parseNativeGraph(shallow, "shallow.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.location()), QStringLiteral("top level"));
        }
    }

    // Costs past GraphBuilder's limits are refused naming the op's field and the limit.
    void absurdOpCostIsAnInputError()
    {
        try {
            parseNativeGraph("{\"format\": \"post-graph/1\", \"ops\": [{\"name\": \"a\"}, "
                             "{\"name\": \"b\", \"time_us\": {\"gpu\": 2e15, \"cpu\": 1}}]}",
                             "big.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.location()), QStringLiteral("field ops[1]"));
            QVERIFY2(QString::fromStdString(e.message()).contains("time_us.gpu must be at most 1e+15, got 2e+15"), e.what());
        }
    }

    // A cluster's links form a devices x devices table: beyond the limit it is refused with
    // the count, not allocated.
    void tooManyDevicesIsAnInputError()
    {
        // (No raw strings here: moc misreads one that ends in a quote.)
        std::string text = "{\"format\": \"post-cluster/1\", \"devices\": [";
        for (int i = 0; i < 1025; ++i)
            text += std::string(i ? "," : "") + "{\"name\": \"d" + std::to_string(i) + "\", \"kind\": \"gpu\"}";
        text += "]}";
        try {
            parseCluster(text, "big.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.location()), QStringLiteral("field devices"));
            QVERIFY2(QString::fromStdString(e.message()).contains("1025 devices"), e.what());
        }
    }

    // The DOT pre-scan counts the edges edge statements make (a {..} -> {..} statement joins
    // every pair), so an edge-product bomb is refused before cgraph builds it.
    void dotEdgeBoundCountsGroupProducts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("edges");
        QTest::newRow("chain and groups") << "digraph { a -> b -> c; {x y} -> {p q r} }" << 8.0; // 2 + 2 x 3
        QTest::newRow("named subgraph") << "digraph { a -> subgraph s {b c} }" << 2.0;
        QTest::newRow("group chain, quoted label") << "digraph { {a b} -> {c d} -> e [label=\"x -> y\"] }" << 6.0; // 4 + 2
        QTest::newRow("attributes are no nodes") << "digraph { node [shape=box]; a -> b [bytes=4]; rankdir=LR }" << 1.0;
    }

    void dotEdgeBoundCountsGroupProducts()
    {
        QFETCH(QString, text);
        QFETCH(double, edges);
        const std::string dot = text.toStdString();
        checkDotEdgeBound(dot, "g.dot", edges); // exactly at the limit: accepted
        QVERIFY_THROWS_EXCEPTION(InputError, checkDotEdgeBound(dot, "g.dot", edges - 1.0));
    }
};

QTEST_APPLESS_MAIN(FuzzRegressionsTest)
#include "test_fuzz_regressions.moc"
