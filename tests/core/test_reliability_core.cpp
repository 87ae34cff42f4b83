// The core half of the reliability corpus of issue 31 (docs/testing.md, "Reliability
// corpus"); the command-line half is tests/cli/test_reliability.cpp.
#include "core/cost/CostModel.h"
#include "core/cost/ShapedGraph.h"
#include "core/io/json/JsonInput.h"
#include "core/learn/LearnerOptionSetter.h"
#include "core/learn/PolicyLearner.h"
#include "core/util/InputError.h"
#include "core/util/TextNumber.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cstdint>
#include <limits>
#include <stdexcept>

using namespace post;

class TestReliabilityCore : public QObject {
    Q_OBJECT

private slots:
    // 8. A trace event's "ph" or "cat" that is not a string: the file and the field, not
    // nlohmann's bare "type must be string, but is number".
    void optionalStringsNameTheFileAndField_data()
    {
        QTest::addColumn<QString>("event");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("error"); // "" : read as the string below
        QTest::addColumn<QString>("value");
        QTest::newRow("ph a number") << R"({"ph": 5})"
                                     << "ph"
                                     << "field traceEvents[3].ph: must be a string, got the number 5"
                                     << "";
        QTest::newRow("cat an array") << R"({"cat": ["cpu_op"]})"
                                      << "cat"
                                      << "field traceEvents[3].cat: must be a string, got an array"
                                      << "";
        QTest::newRow("cat null") << R"({"cat": null})"
                                  << "cat"
                                  << "field traceEvents[3].cat: must be a string, got null"
                                  << "";
        QTest::newRow("ph absent") << R"({"name": "x"})"
                                   << "ph"
                                   << ""
                                   << "fallback";
        QTest::newRow("ph a string") << R"({"ph": "X"})"
                                     << "ph"
                                     << ""
                                     << "X";
        QTest::newRow("not an object") << R"(17)"
                                       << "ph"
                                       << ""
                                       << "fallback";
    }
    void optionalStringsNameTheFileAndField()
    {
        QFETCH(QString, event);
        QFETCH(QString, key);
        QFETCH(QString, error);
        QFETCH(QString, value);
        const JsonInput in("trace.json");
        const nlohmann::json e = in.parse(event.toStdString());
        try {
            const std::string got = in.stringOr(e, key.toStdString(), "traceEvents[3]", "fallback");
            QVERIFY2(error.isEmpty(), "no error for a value that is not a string");
            QCOMPARE(QString::fromStdString(got), value);
        } catch (const InputError& x) {
            QVERIFY2(!error.isEmpty(), x.what());
            QCOMPARE(QString::fromStdString(x.what()), "trace.json: " + error);
        }
    }

    // 8. Shapes whose element count overflows int64 (a Flatten of [2, 2^32, 2^32]) are
    // refused naming the op, not costed as 0 B and 0 ms.
    void shapesOverflowingInt64AreRefused_data()
    {
        QTest::addColumn<QList<qint64>>("input");
        QTest::addColumn<bool>("refused");
        QTest::newRow("2 x 2^32 x 2^32") << QList<qint64>{2, qint64(1) << 32, qint64(1) << 32} << true;
        QTest::newRow("2^62 x 2 (exactly 2^63)") << QList<qint64>{qint64(1) << 62, 2} << true;
        QTest::newRow("2^31 x 2^31 (2^62, fits)") << QList<qint64>{qint64(1) << 31, qint64(1) << 31} << false;
        QTest::newRow("unknown dimensions count as 1") << QList<qint64>{-1, qint64(1) << 40, -1} << false;
    }
    void shapesOverflowingInt64AreRefused()
    {
        QFETCH(QList<qint64>, input);
        QFETCH(bool, refused);
        ShapedGraph g;
        g.source = "flatten.onnx";
        ShapedTensor x;
        x.name = "x";
        x.shape.assign(input.begin(), input.end());
        ShapedTensor y;
        y.name = "y";
        y.shape = {input.front() < 0 ? -1 : input.front(), 0}; // what a wrapped product leaves
        g.tensors = {x, y};
        ShapedOp flatten;
        flatten.name = "Flatten_0";
        flatten.type = "Flatten";
        flatten.inputs = {0};
        flatten.outputs = {1};
        flatten.location = "node 0";
        try {
            (void)estimateOpCost(g, flatten);
            QVERIFY2(!refused, "an overflowing shape was costed");
        } catch (const InputError& e) {
            QVERIFY2(refused, e.what());
            const QString text = e.what();
            QVERIFY2(text.startsWith("flatten.onnx: node 0: op 'Flatten_0' (Flatten): tensor 'x' holds more than 2^63"),
                     e.what());
        }
    }

    // 8. Every value `--set` accepts is one the learners run with (validateLearnerOptions),
    // so no in-range setting is refused later under an internal name (ppoClip,
    // reinforceBaselineDecay); the boundary values of every numeric key are probed.
    // The counts in the trace importers' notes: every long long, the most negative one too
    // (its magnitude does not fit a long long: negating it was undefined behaviour).
    void countsGetThousandsSeparators()
    {
        QCOMPARE(withThousands(0), std::string("0"));
        QCOMPARE(withThousands(999), std::string("999"));
        QCOMPARE(withThousands(1000), std::string("1,000"));
        QCOMPARE(withThousands(181878), std::string("181,878"));
        QCOMPARE(withThousands(-1234567), std::string("-1,234,567"));
        QCOMPARE(withThousands(std::numeric_limits<long long>::max()), std::string("9,223,372,036,854,775,807"));
        QCOMPARE(withThousands(std::numeric_limits<long long>::min()), std::string("-9,223,372,036,854,775,808"));
    }

    void everyAcceptedSettingIsValid()
    {
        const char* probes[] = {"-1",  "0",   "1e-9", "1e-6", "0.001", "0.5", "0.999", "1",    "2",   "10",
                                "100", "1e3", "1e6",  "1e7",  "1e8",   "1e9", "1e10",  "1e12", "0.1", "0.9"};
        int accepted = 0;
        for (const LearnerOptionInfo& k : learnerOptionKeys()) {
            if (!k.choices.empty())
                continue;
            for (const char* value : probes) {
                LearnerOptions o;
                if (setLearnerOption(o, k.key, value))
                    continue;
                ++accepted;
                try {
                    validateLearnerOptions(o);
                } catch (const std::invalid_argument& e) {
                    QFAIL(qPrintable(QString("--set %1=%2 is accepted, then refused: %3")
                                         .arg(QString::fromStdString(k.key), value, e.what())));
                }
            }
        }
        QVERIFY(accepted > 40);
        LearnerOptions o;
        QCOMPARE(QString::fromStdString(setLearnerOption(o, "ppo-clip", "0").value_or("")),
                 QString("'ppo-clip' must be in (0, 10], got 0"));
        QCOMPARE(QString::fromStdString(setLearnerOption(o, "reinforce-decay", "1").value_or("")),
                 QString("'reinforce-decay' must be in [0, 1), got 1"));
    }
};

QTEST_GUILESS_MAIN(TestReliabilityCore)
#include "test_reliability_core.moc"
