#include "core/learn/LearnerOptionSetter.h"

#include <QtTest>

using namespace post;

class TestLearnerOptions : public QObject {
    Q_OBJECT

private slots:
    void setsEveryKindOfValue()
    {
        LearnerOptions o;
        QVERIFY(!setLearnerOption(o, "batch", "40"));
        QVERIFY(!setLearnerOption(o, "ce-interval", "200"));
        QVERIFY(!setLearnerOption(o, "elite", "0.25"));
        QVERIFY(!setLearnerOption(o, "lr", "1e-3"));
        QVERIFY(!setLearnerOption(o, "grouping", "chunks"));
        QVERIFY(!setLearnerOption(o, "penalty", "fixed"));
        QCOMPARE(o.batchSize, 40);
        QCOMPARE(o.ceInterval, 200);
        QCOMPARE(o.eliteFraction, 0.25);
        QCOMPARE(o.adam.learningRate, 1e-3);
        QVERIFY(o.grouping.strategy == GroupingStrategy::Chunks);
        QVERIFY(o.penalty.kind == InfeasiblePenalty::Fixed);
        // Every listed key is accepted by the setter (with some valid value: 1 is the open end
        // of reinforce-decay's [0, 1)).
        for (const LearnerOptionInfo& k : learnerOptionKeys()) {
            LearnerOptions fresh;
            const char* value = k.key == "grouping" ? "none"
                : k.key == "penalty"                ? "growing"
                : k.key == "reinforce-decay"        ? "0.5"
                : k.key == "kicks"                  ? "0.5"
                                                    : "1";
            QVERIFY2(!setLearnerOption(fresh, k.key, value), k.key.c_str());
        }
    }

    void rejectsBadValuesByName_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("unknown key") << "batchsize"
                                     << "20"
                                     << "unknown learner option 'batchsize'";
        QTest::newRow("fraction for integer") << "batch"
                                              << "2.5"
                                              << "integer";
        QTest::newRow("zero batch") << "batch"
                                    << "0"
                                    << "must be in [1";
        QTest::newRow("not a number") << "lr"
                                      << "fast"
                                      << "expects a number";
        QTest::newRow("nan") << "ppo-clip"
                             << "nan"
                             << "expects a number";
        QTest::newRow("trailing junk") << "elite"
                                       << "0.1x"
                                       << "expects a number";
        QTest::newRow("elite above one") << "elite"
                                         << "1.5"
                                         << "must be in";
        QTest::newRow("bad grouping") << "grouping"
                                      << "blob"
                                      << "chunks";
        QTest::newRow("bad penalty") << "penalty"
                                     << "harsh"
                                     << "growing or fixed";
    }

    void rejectsBadValuesByName()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, fragment);
        LearnerOptions o;
        const LearnerOptions before = o;
        const auto problem = setLearnerOption(o, key.toStdString(), value.toStdString());
        QVERIFY(problem);
        QVERIFY2(QString::fromStdString(*problem).contains(fragment), problem->c_str());
        QVERIFY2(QString::fromStdString(*problem).contains(key), problem->c_str());
        QCOMPARE(o.batchSize, before.batchSize); // nothing half-applied
        QCOMPARE(o.eliteFraction, before.eliteFraction);
    }

    // Every key reads back what was set, and the defaults read back as the struct's.
    void valuesReadBack()
    {
        LearnerOptions defaults;
        QCOMPARE(*learnerOptionValue(defaults, "batch"), std::string("20"));
        QCOMPARE(*learnerOptionValue(defaults, "lr"), std::string("0.05"));
        QCOMPARE(*learnerOptionValue(defaults, "grouping"), std::string("auto"));
        QCOMPARE(*learnerOptionValue(defaults, "penalty"), std::string("growing"));
        QVERIFY(!learnerOptionValue(defaults, "nonsense"));
        const std::pair<const char*, const char*> values[] = {{"batch", "7"},
                                                              {"ce-interval", "250"},
                                                              {"elite", "0.125"},
                                                              {"ce-smoothing", "0.3"},
                                                              {"ppo-epochs", "3"},
                                                              {"ppo-clip", "0.15"},
                                                              {"entropy-bonus", "0.01"},
                                                              {"reinforce-decay", "0.95"},
                                                              {"lr", "0.1"},
                                                              {"max-groups", "64"},
                                                              {"warm-mass", "0.75"},
                                                              {"grouping", "scopes"},
                                                              {"penalty", "fixed"},
                                                              {"symmetry", "0"},
                                                              {"coarse-to-fine", "0"},
                                                              {"local-search", "0"},
                                                              {"block-moves", "0"},
                                                              {"coarse-width", "1.5"},
                                                              {"restarts", "0"},
                                                              {"guide", "2.5"},
                                                              {"milp-groups", "12"},
                                                              {"kicks", "0.5"},
                                                              {"walk", "0"}};
        QCOMPARE(std::size(values), learnerOptionKeys().size());
        LearnerOptions o;
        for (const auto& [key, value] : values) {
            QVERIFY2(!setLearnerOption(o, key, value), key);
            QCOMPARE(*learnerOptionValue(o, key), std::string(value));
        }
        for (const LearnerOptionInfo& info : learnerOptionKeys()) {
            // A choice option lists its words, and each is accepted.
            for (const std::string& choice : info.choices)
                QVERIFY(!setLearnerOption(o, info.key, choice));
        }
        QCOMPARE(learnerOptionKeys()[11].choices.size(), size_t{5});
    }
};

QTEST_APPLESS_MAIN(TestLearnerOptions)
#include "test_learner_options.moc"
