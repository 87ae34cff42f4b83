// Replays every input the fuzzers once crashed, hung or exhausted memory on
// (tests/data/fuzz-regressions/<target>/, see docs/testing.md) and checks the input limits.
#include "core/util/InputError.h"
#include "fuzz/FuzzTargets.h"
#include "tests/support/TestData.h"

#include "core/io/dot/DotEdgeBound.h"
#include "core/io/native/ClusterFile.h"
#include "core/io/native/NativeGraphReader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QtTest>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace post;

namespace {

// POST_FUZZ_REGRESSIONS points the tests at other per-target folders, such as a fuzzing
// corpus (build/fuzz/corpus) to check for order-dependent answers.
QString regressionDir()
{
    const QString other = qEnvironmentVariable("POST_FUZZ_REGRESSIONS");
    return other.isEmpty() ? testdata::sourceDir() + QStringLiteral("/tests/data/fuzz-regressions") : other;
}

// "accepted" or the InputError's text: what the importer answered.
std::string answer(const fuzz::FuzzTarget& target, const QByteArray& bytes)
{
    try {
        target.parse(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
        return "accepted";
    } catch (const InputError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("non-InputError: ") + e.what();
    }
}

// "" when the importer took the input or refused it with InputError (for `mustRefuse`: only
// the latter); otherwise what went wrong.
QString replay(const fuzz::FuzzTarget& target, const QByteArray& bytes, bool mustRefuse)
{
    const std::string result = answer(target, bytes);
    if (result.starts_with("non-InputError: "))
        return QStringLiteral("threw a ") + QString::fromStdString(result);
    if (result == "accepted" && mustRefuse)
        return QStringLiteral("accepted, but it is beyond a documented limit");
    return {};
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
        // limit-*: hand-made inputs past a documented limit (docs/formats.md), which must be refused;
        // accept-*: well-formed seeds that reach a target's deepest checks, which must be taken.
        const QString name = QFileInfo(path).fileName();
        const bool mustRefuse = name.startsWith(QStringLiteral("limit-"));
        const QByteArray bytes = file.readAll();
        const fuzz::FuzzTarget& fuzzTarget = *fuzz::findFuzzTarget(target.toStdString());
        const QString problem = replay(fuzzTarget, bytes, mustRefuse);
        QVERIFY2(problem.isEmpty(), qPrintable(path + ": " + problem));
        if (name.startsWith(QStringLiteral("accept-"))) {
            const std::string result = answer(fuzzTarget, bytes);
            QVERIFY2(result == "accepted", qPrintable(path + ": refused: " + QString::fromStdString(result)));
        }
    }

    // An importer must answer the same whatever was read before it: cgraph once kept its
    // scanner state from a file that ended inside a string, and every later read in the
    // process misparsed. Each input's answer after all of its target's other inputs (in this
    // process) must equal its answer in a fresh process (this binary in answer mode).
    void answersDoNotDependOnEarlierReads()
    {
        for (const fuzz::FuzzTarget& target : fuzz::fuzzTargets()) {
            const QString name = QString::fromUtf8(target.name.data(), static_cast<qsizetype>(target.name.size()));
            const QDir dir(regressionDir() + "/" + name);
            const QStringList files = dir.entryList(QDir::Files, QDir::Name);
            std::vector<QByteArray> inputs;
            for (const QString& file : files) {
                QFile f(dir.filePath(file));
                QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
                inputs.push_back(f.readAll());
            }
            for (const QByteArray& input : inputs)
                answer(target, input);
            for (qsizetype i = 0; i < files.size(); ++i) {
                const QString inProcess = QString::fromStdString(answer(target, inputs[static_cast<size_t>(i)]));
                QProcess fresh;
                fresh.setProcessEnvironment([&] {
                    auto env = QProcessEnvironment::systemEnvironment();
                    env.insert(QStringLiteral("POST_ANSWER_ONE"), name + "\n" + dir.filePath(files[i]));
                    return env;
                }());
                fresh.start(QFile::symLinkTarget(QStringLiteral("/proc/self/exe")), {});
                QVERIFY2(fresh.waitForFinished(60000), qPrintable(files[i] + ": answer process did not finish"));
                const QString alone = QString::fromUtf8(fresh.readAllStandardOutput());
                QVERIFY2(inProcess == alone,
                         qPrintable(name + "/" + files[i] + ": '" + alone + "' in a fresh process, '" + inProcess
                                    + "' after the other inputs"));
            }
        }
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
            QVERIFY2(QString::fromStdString(e.message()).contains("time_us.gpu must be at most 1e+15, got 2e+15"),
                     e.what());
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
        // A re-opened subgraph keeps its nodes: the empty bodies here stand for 2 and 3 nodes.
        QTest::newRow("re-opened subgraphs")
            << "digraph { subgraph A {a b} subgraph B {c d e} subgraph A {} -> subgraph B {} }" << 6.0;
        QTest::newRow("re-opened, quoted names")
            << "digraph { subgraph \"A\" {a b} subgraph \"B\\\"\" {c} subgraph A {} -> subgraph \"B\\\"\" {d} }"
            << 4.0; // {a b} x {c d}
        QTest::newRow("re-opened inside another")
            << "digraph { subgraph A {a b} subgraph C { subgraph A {c} } -> x }" << 3.0; // C holds a b c
        // A concatenated name is not worked out: the body counts as every identifier so far
        // (a, b, c and "B").
        QTest::newRow("concatenated name") << "digraph { a b c; subgraph \"A\" + \"B\" {} -> x }" << 4.0;
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

// POST_ANSWER_ONE="<target>\n<path>": print what the target answers for that one file and
// exit (the fresh process answersDoNotDependOnEarlierReads compares with).
int main(int argc, char** argv)
{
    if (const char* one = std::getenv("POST_ANSWER_ONE")) {
        const QStringList parts = QString::fromUtf8(one).split(QLatin1Char('\n'));
        const fuzz::FuzzTarget* target = parts.size() == 2 ? fuzz::findFuzzTarget(parts[0].toStdString()) : nullptr;
        QFile file(parts.value(1));
        if (!target || !file.open(QIODevice::ReadOnly))
            return 2;
        std::fputs(answer(*target, file.readAll()).c_str(), stdout);
        return 0;
    }
    FuzzRegressionsTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_fuzz_regressions.moc"
