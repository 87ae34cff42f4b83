// post-session/1: round trip, the embedded documents, and one message per kind of bad input.
#include "core/graph/GraphBuilder.h"
#include "core/io/native/ClusterFile.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/session/SessionFile.h"
#include "core/util/InputError.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace post;

namespace {

std::shared_ptr<const Graph> toyGraph()
{
    GraphBuilder b("toy");
    for (const char* name : {"a", "b", "c"}) {
        Op op;
        op.name = name;
        op.type = "MatMul";
        op.timeUs = {100.5, 10};
        op.outputBytes = 4000;
        if (std::string(name) != "a")
            op.colocate = "g1";
        b.addOp(op);
    }
    b.addEdge("a", "b");
    b.addEdge("b", "c", 123);
    return std::make_shared<const Graph>(std::move(b).build());
}

std::shared_ptr<const Cluster> toyCluster()
{
    return std::make_shared<const Cluster>(
        "box",
        std::vector<Device>{{"/device:CPU:0", DeviceKind::Cpu, 1.0, 1e9}, {"/device:GPU:0", DeviceKind::Gpu, 2.0, 1e9}},
        Link{});
}

Session toySession()
{
    Session s;
    s.source = "/tmp/toy.json";
    s.graph = toyGraph();
    s.cluster = toyCluster();
    s.placement = {0, 1, 1};
    s.learner = {"ce", 500, 42};
    s.run.state = SessionRunState::Stopped;
    s.run.lowerBoundUs = 12.5;
    s.samples = {{0, 130.25, true}, {1, 9e9, false}, {2, 120.0, true}};
    s.updates = {
        {2, UpdateKind::CrossEntropy, 125.0, 120.0, 0.75},
        {3, UpdateKind::Ppo, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 0.5}};
    return s;
}

// The session text with `from` replaced by `to` (which must occur exactly once).
std::string edited(const std::string& from, const std::string& to)
{
    std::string text = sessionJson(toySession());
    const size_t at = text.find(from);
    if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
        qFatal("edited(): '%s' must occur once", from.c_str());
    return text.replace(at, from.size(), to);
}

QString errorOf(const std::string& text)
{
    try {
        parseSession(text, "s.json");
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("(no error)");
}

} // namespace

class TestSessionFile : public QObject {
    Q_OBJECT

private slots:
    void roundTripsEverything()
    {
        const Session s = toySession();
        const std::string text = sessionJson(s);
        const Session back = parseSession(text, "s.json");
        QCOMPARE(back.source, s.source);
        QCOMPARE(nativeGraphJson(*back.graph), nativeGraphJson(*s.graph));
        QCOMPARE(clusterJson(*back.cluster), clusterJson(*s.cluster));
        QCOMPARE(back.placement, s.placement);
        QCOMPARE(back.learner.algorithm, std::string("ce"));
        QCOMPARE(back.learner.samples, 500);
        QCOMPARE(back.learner.seed, std::uint64_t(42));
        QCOMPARE(back.learner.seconds, 0.0); // no time limit: none written
        QVERIFY(text.find("\"seconds\"") == std::string::npos);
        QVERIFY(back.dispatch == Dispatch::ReadyOrder); // the default: none written
        QVERIFY(text.find("\"dispatch\"") == std::string::npos);
        Session byPath = s;
        byPath.dispatch = Dispatch::CriticalPath;
        const std::string pathText = sessionJson(byPath);
        QVERIFY(pathText.find("\"dispatch\": \"critical-path\"") != std::string::npos);
        QVERIFY(parseSession(pathText, "s.json").dispatch == Dispatch::CriticalPath);
        Session limited = s;
        limited.learner.seconds = 2.5;
        QCOMPARE(parseSession(sessionJson(limited), "s.json").learner.seconds, 2.5);
        QVERIFY(back.run.state == SessionRunState::Stopped);
        QCOMPARE(back.run.lowerBoundUs, 12.5);
        QVERIFY(std::isnan(back.run.singleDeviceUs));
        QCOMPARE(back.samples.size(), size_t(3));
        QCOMPARE(back.samples[0].stepTimeUs, 130.25);
        QCOMPARE(back.samples[1].stepTimeUs, 9e9);
        QVERIFY(!back.samples[1].feasible && back.samples[2].feasible);
        QCOMPARE(back.samples[2].index, 2);
        QCOMPARE(back.updates.size(), size_t(2));
        QVERIFY(back.updates[0].kind == UpdateKind::CrossEntropy);
        QCOMPARE(back.updates[0].eliteThresholdUs, 125.0);
        QCOMPARE(back.updates[0].bestStepTimeUs, 120.0);
        QCOMPARE(back.updates[0].entropy, 0.75);
        QVERIFY(std::isnan(back.updates[1].eliteThresholdUs));
        QVERIFY(std::isinf(back.updates[1].bestStepTimeUs));
        // Writing what was read gives the same text: nothing is lost or reordered.
        QCOMPARE(sessionJson(back), text);
    }

    void embedsTheDocumentsReadably()
    {
        const std::string text = sessionJson(toySession());
        // One sample per line, the embedded graph keeps one op per line.
        QVERIFY(text.find("\n    [1, 9000000000, false],\n") != std::string::npos);
        QVERIFY(text.find("\n  \"graph\": {\n    \"format\": \"post-graph/1\",") != std::string::npos);
        QVERIFY(text.find("\"placement\": {\n      \"a\": \"/device:CPU:0\"") != std::string::npos);
        QVERIFY(looksLikeSession(text));
        QVERIFY(!looksLikeSession(nativeGraphJson(*toyGraph())));
    }

    // The graph's text is kept for the graph last written (autosaves write one graph again
    // and again): the same graph gives the same text; another graph, or a new graph where a
    // dead one lived, gives its own, never the cached one.
    void embeddedGraphTextFollowsTheGraph()
    {
        Session s = toySession();
        const std::string first = sessionJson(s);
        QCOMPARE(sessionJson(s), first);
        GraphBuilder b("other");
        Op op;
        op.name = "x";
        op.timeUs = {7, 3};
        b.addOp(op);
        op.name = "y";
        b.addOp(op);
        op.name = "z";
        b.addOp(op);
        b.addEdge("x", "y");
        s.graph = std::make_shared<const Graph>(std::move(b).build());
        const std::string other = sessionJson(s);
        QVERIFY(other.find("\"name\": \"other\"") != std::string::npos);
        QVERIFY(other.find("\"name\": \"toy\"") == std::string::npos);
        QCOMPARE(nativeGraphJson(*parseSession(other, "o.json").graph), nativeGraphJson(*s.graph));
        // Graphs made and dropped one after another (the allocator may reuse the address).
        for (int i = 0; i < 5; ++i) {
            GraphBuilder c("g" + std::to_string(i));
            Op one;
            one.name = "only" + std::to_string(i);
            one.timeUs = {1, 1};
            c.addOp(one);
            s.graph = std::make_shared<const Graph>(std::move(c).build());
            s.placement = {1};
            const std::string text = sessionJson(s);
            QVERIFY(text.find("\"only" + std::to_string(i) + "\"") != std::string::npos);
        }
    }

    void unplacedSessionWithoutRun()
    {
        Session s = toySession();
        s.placement.clear();
        s.samples.clear();
        s.updates.clear();
        s.run = {};
        const Session back = parseSession(sessionJson(s), "s.json");
        QVERIFY(back.placement.empty());
        QVERIFY(back.samples.empty() && back.updates.empty());
        QVERIFY(back.run.state == SessionRunState::None);
    }

    // Post Studio's extras (x-studio): reference lines, the run's best, the Compare table.
    void studioExtrasRoundTrip()
    {
        Session s = toySession();
        s.studio.document = "/tmp/work.session.json";
        s.studio.classicalUs = 118.5;
        s.studio.classicalPlacer = "m-etf";
        s.studio.warmStartUs = 125.0;
        s.studio.best = {1, 1, 0};
        s.studio.bestUs = 110.25;
        SessionComparison c;
        c.lowerBoundUs = 12.5;
        c.samples = 200;
        c.seeds = 2;
        c.seconds = 1.5;
        ComparisonRow row;
        row.algorithm = "post";
        row.bestUs = {111.0, 115.5};
        row.feasibleRuns = 2;
        row.samples = 200;
        row.wallSeconds = 0.25;
        row.best = {0, 1, 1};
        row.bestUsOverRuns = 111.0;
        row.bestFeasible = true;
        c.rows = {row};
        row.algorithm = "single";
        row.bestUs = {9e9};
        row.feasibleRuns = 0;
        row.best.clear();
        row.bestFeasible = false;
        row.stopped = true;
        c.rows.push_back(row);
        row.algorithm = "milp"; // its bounds: of the graph, and of a grouping only
        row.bounds.solverBoundUs = 108.5;
        row.bounds.solverBoundOpLevel = true;
        row.bounds.provenOptimal = true;
        row.bounds.groupedBoundUs = 120.25;
        row.bounds.groupedBoundGroups = 42;
        row.bounds.groupedOptimal = true;
        c.rows.push_back(row);
        s.studio.comparison = c;
        const std::string text = sessionJson(s);
        // The milp row's bounds as docs/formats.md gives them, byte for byte.
        QVERIFY2(text.find(R"(, "solver_bound_us": 108.5, "solver_bound_op_level": true, "proven_optimal": true, )"
                           R"("grouped_bound_us": 120.25, "grouped_bound_groups": 42, "grouped_optimal": true)")
                     != std::string::npos,
                 text.c_str());
        const Session back = parseSession(text, "s.json");
        QCOMPARE(back.studio.document, s.studio.document);
        QCOMPARE(back.studio.classicalUs, 118.5);
        QCOMPARE(back.studio.classicalPlacer, std::string("m-etf"));
        QCOMPARE(back.studio.warmStartUs, 125.0);
        QCOMPARE(back.studio.best, (Placement{1, 1, 0}));
        QCOMPARE(back.studio.bestUs, 110.25);
        QVERIFY(back.studio.comparison.has_value());
        const SessionComparison& b = *back.studio.comparison;
        QCOMPARE(b.lowerBoundUs, 12.5);
        QCOMPARE(b.samples, 200);
        QCOMPARE(b.seconds, 1.5); // the table's time limit
        QCOMPARE(b.seeds, 2);
        QCOMPARE(b.rows.size(), size_t(3));
        QCOMPARE(b.rows[2].bounds.solverBoundUs, 108.5);
        QVERIFY(b.rows[2].bounds.solverBoundOpLevel && b.rows[2].bounds.provenOptimal && b.rows[2].bounds.groupedOptimal);
        QCOMPARE(b.rows[2].bounds.groupedBoundUs, 120.25);
        QCOMPARE(b.rows[2].bounds.groupedBoundGroups, 42);
        QCOMPARE(b.rows[1].bounds.solverBoundUs, 0.0); // rows without them read none
        QVERIFY(!b.rows[1].bounds.provenOptimal && b.rows[1].bounds.groupedBoundGroups == 0);
        QCOMPARE(b.rows[0].algorithm, std::string("post"));
        QCOMPARE(b.rows[0].bestUs, (std::vector<double>{111.0, 115.5}));
        QCOMPARE(b.rows[0].best, (Placement{0, 1, 1}));
        QVERIFY(b.rows[0].bestFeasible && !b.rows[0].stopped);
        QCOMPARE(b.rows[1].feasibleRuns, 0);
        QVERIFY(b.rows[1].best.empty() && b.rows[1].stopped);
        QCOMPARE(sessionJson(back), text);
        // Without extras nothing is written, so plain sessions stay as they were.
        QVERIFY(sessionJson(toySession()).find("x-studio") == std::string::npos);

        // Checked like any field.
        auto replaced = [&text](const std::string& from, const std::string& to) {
            std::string out = text;
            return out.replace(out.find(from), from.size(), to);
        };
        std::string bad = replaced("\"best\": [1, 1, 0]", "\"best\": [1, 2, 0]");
        QCOMPARE(errorOf(bad),
                 QStringLiteral("s.json: field x-studio.best[1]: must be a whole number from 0 to 1, got 2"));
        bad = replaced("\"best\": [1, 1, 0]", "\"best\": [1, 1]");
        QCOMPARE(
            errorOf(bad),
            QStringLiteral("s.json: field x-studio.best: must give a device for each of the graph's 3 ops, got 2"));
        bad = replaced("\"seconds\": 1.5", "\"seconds\": -1");
        QVERIFY2(errorOf(bad).contains("x-studio.compare.seconds"), qPrintable(errorOf(bad)));
        // A table without a time limit writes none and reads 0.
        SessionComparison untimed = c;
        untimed.seconds = 0.0;
        s.studio.comparison = untimed;
        const std::string plain = sessionJson(s);
        QVERIFY(plain.find("\"seconds\"", plain.find("x-studio")) == std::string::npos);
        QCOMPARE(parseSession(plain, "s.json").studio.comparison->seconds, 0.0);
        bad = replaced("\"feasible_runs\": 2", "\"feasible_runs\": 3");
        QCOMPARE(errorOf(bad),
                 QStringLiteral("s.json: field x-studio.compare.rows[0].feasible_runs: must be a whole "
                                "number from 0 to 2, got 3"));
    }

    void writesAtomicallyAndReadsBack()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("a.session.json")).toStdString();
        writeSessionFile(path, toySession());
        QCOMPARE(readSessionFile(path).samples.size(), size_t(3));
        QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()), {}), 1L); // no temp left
    }

    void badInputGivesItsMessage_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("message");
        QTest::newRow("version")
            << "post-session/1"
            << "post-session/2"
            << "s.json: field format: unsupported version \"post-session/2\" (this build reads \"post-session/1\")";
        QTest::newRow("unknown key") << "\"source\""
                                     << "\"sauce\""
                                     << "s.json: field sauce: unknown field (expected one of: format, source,";
        QTest::newRow("algorithm") << "\"ce\", \"samples\""
                                   << "\"nope\", \"samples\""
                                   << "s.json: field learner.algorithm: unknown algorithm \"nope\" (see post-cli list)";
        QTest::newRow("budget") << "\"samples\": 500"
                                << "\"samples\": 0"
                                << "s.json: field learner.samples: must be a whole number from 1 to 2147483647, got 0";
        QTest::newRow("seed")
            << "\"seed\": 42"
            << "\"seed\": 4.5"
            << "s.json: field learner.seed: must be a whole number from 0 to 9007199254740992, got 4.5";
        QTest::newRow("time limit") << "\"seed\": 42"
                                    << "\"seed\": 42, \"seconds\": -1"
                                    << "s.json: field learner.seconds: must be >= 0, got -1";
        QTest::newRow("dispatch") << "\"seed\": 42}"
                                  << "\"seed\": 42}, \"dispatch\": \"fifo\""
                                  << "s.json: field dispatch: must be \"ready\" or \"critical-path\"";
        QTest::newRow("state") << "\"stopped\""
                               << "\"asleep\""
                               << "s.json: field run.state: unknown run state \"asleep\" (expected none, running, "
                                  "paused, stopped or done)";
        QTest::newRow("graph field") << "\"name\": \"b\", \"type\": \"MatMul\""
                                     << "\"name\": \"b\", \"type\": \"MatMul\", \"param_bytes\": -4"
                                     << "s.json: field graph.ops[1].param_bytes: must be >= 0, got -4";
        QTest::newRow("cluster field") << "\"speed\": 2"
                                       << "\"speed\": 0"
                                       << "s.json: field cluster.devices[1].speed: must be > 0, got 0";
        QTest::newRow("placement op") << "\"a\": \"/device:CPU:0\""
                                      << "\"a\": \"/device:TPU:0\"";
        QTest::newRow("sample row")
            << "[1, 9000000000, false]"
            << "[1, 9000000000]"
            << "s.json: field samples[1]: a sample is [index, step_time_us, feasible], got 2 values";
        QTest::newRow("sample time") << "[0, 130.25, true]"
                                     << "[0, -1, true]"
                                     << "s.json: field samples[0][1]: must be >= 0, got -1";
        QTest::newRow("sample order")
            << "[2, 120, true]"
            << "[1, 120, true]"
            << "s.json: field samples[2][0]: sample indices must increase (previous 1, got 1)";
        QTest::newRow("entropy")
            << "\"entropy\": 0.75"
            << "\"entropy\": 1.5"
            << "s.json: field updates[0].entropy: must be at most 1 (entropy / log of the device count), got 1.5";
        QTest::newRow("kind")
            << "\"kind\": \"ce\""
            << "\"kind\": \"sgd\""
            << "s.json: field updates[0].kind: unknown update kind \"sgd\" (expected ppo, ce or reinforce)";
        QTest::newRow("no graph") << ",\n  \"graph\": {"
                                  << ",\n  \"x-graph\": {"
                                  << "s.json: field graph: missing (required)";
    }

    void badInputGivesItsMessage()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        const QString error = errorOf(edited(from.toStdString(), to.toStdString()));
        if (QTest::currentDataTag() == QByteArray("placement op")) {
            // The placement reader's own message, located inside the session.
            QVERIFY2(error.startsWith(QStringLiteral("s.json: field placement.placement.a: ")), qPrintable(error));
            QVERIFY2(error.contains(QStringLiteral("/device:TPU:0")), qPrintable(error));
            return;
        }
        QFETCH(QString, message);
        QVERIFY2(error.startsWith(message), qPrintable(error)); // whole messages, or their start for long lists
        QVERIFY(error.size() == message.size() || message.endsWith(QLatin1Char(',')));
    }
};

QTEST_APPLESS_MAIN(TestSessionFile)
#include "test_session_file.moc"
