#include "core/learn/Adam.h"
#include "core/learn/CrossEntropyStep.h"
#include "core/learn/Policy.h"
#include "core/learn/PpoObjective.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace post;

namespace {

PolicyMatrix randomLogits(int groups, int devices, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    PolicyMatrix m(groups, devices);
    for (int g = 0; g < groups; ++g)
        for (int d = 0; d < devices; ++d)
            m(g, d) = u(rng);
    return m;
}

// Central finite difference of f at the policy's logits.
template <class F> PolicyMatrix numericGradient(Policy& policy, F f)
{
    const PolicyMatrix base = policy.logits();
    PolicyMatrix grad(base.rows(), base.cols());
    const double h = 1e-6;
    for (Eigen::Index g = 0; g < base.rows(); ++g)
        for (Eigen::Index d = 0; d < base.cols(); ++d) {
            PolicyMatrix x = base;
            x(g, d) += h;
            policy.setLogits(x);
            const double up = f();
            x(g, d) -= 2 * h;
            policy.setLogits(x);
            const double down = f();
            grad(g, d) = (up - down) / (2 * h);
        }
    policy.setLogits(base);
    return grad;
}

} // namespace

class TestPolicy : public QObject {
    Q_OBJECT

private slots:
    void startsUniformWithFullEntropy()
    {
        Policy p(5, 4);
        QCOMPARE(p.groups(), 5);
        QCOMPARE(p.devices(), 4);
        for (int g = 0; g < 5; ++g)
            for (int d = 0; d < 4; ++d)
                QCOMPARE(p.probabilities()(g, d), 0.25);
        QVERIFY(std::abs(p.normalizedEntropy() - 1.0) < 1e-12);
        QVERIFY(std::abs(p.entropy(0) - std::log(4.0)) < 1e-12);
    }

    void oneHotHasZeroEntropy()
    {
        Policy p(2, 3);
        PolicyMatrix oneHot = PolicyMatrix::Zero(2, 3);
        oneHot(0, 1) = 1.0;
        oneHot(1, 2) = 1.0;
        p.setProbabilities(oneHot);
        QVERIFY(p.normalizedEntropy() < 1e-20);
        QVERIFY(std::abs(p.probabilities()(0, 1) - 1.0) < 1e-15);
        std::mt19937_64 rng(3);
        std::vector<DeviceId> choice(2);
        for (int i = 0; i < 100; ++i) {
            p.sample(rng, choice);
            QCOMPARE(choice, (std::vector<DeviceId>{1, 2}));
        }
    }

    void entropyOfHandDistribution()
    {
        // p = (1/2, 1/4, 1/4): H = 1.5 ln 2; normalised by ln 3.
        Policy p(1, 3);
        PolicyMatrix m(1, 3);
        m << 0.5, 0.25, 0.25;
        p.setProbabilities(m);
        QVERIFY(std::abs(p.probabilities()(0, 0) - 0.5) < 1e-15);
        QVERIFY(std::abs(p.normalizedEntropy() - 1.5 * std::log(2.0) / std::log(3.0)) < 1e-12);
    }

    void samplingIsDeterministicAndMatchesProbabilities()
    {
        Policy p(2, 3);
        PolicyMatrix m(2, 3);
        m << 0.2, 0.5, 0.3, 0.7, 0.1, 0.2;
        p.setProbabilities(m);
        std::mt19937_64 a(42), b(42);
        std::vector<DeviceId> ca(2), cb(2);
        PolicyMatrix counts = PolicyMatrix::Zero(2, 3);
        const int n = 40000;
        for (int i = 0; i < n; ++i) {
            const double la = p.sample(a, ca);
            p.sample(b, cb);
            QCOMPARE(ca, cb);
            QVERIFY(std::abs(la - p.logProb(ca)) < 1e-12);
            counts(0, ca[0]) += 1;
            counts(1, ca[1]) += 1;
        }
        // Binomial standard deviation is at most sqrt(0.25 / n) = 0.0025; allow 4 sigma.
        QVERIFY(((counts / n) - m).cwiseAbs().maxCoeff() < 0.01);
    }

    void logProbOfHandChoice()
    {
        Policy p(2, 2);
        PolicyMatrix m(2, 2);
        m << 0.25, 0.75, 0.6, 0.4;
        p.setProbabilities(m);
        const std::vector<DeviceId> choice{1, 0};
        QVERIFY(std::abs(p.logProb(choice) - std::log(0.75 * 0.6)) < 1e-12);
    }

    void logProbGradientMatchesFiniteDifferences()
    {
        Policy p(4, 3);
        p.setLogits(randomLogits(4, 3, 7));
        const std::vector<DeviceId> choice{2, 0, 1, 1};
        const PolicyMatrix analytic = p.logProbGradient(choice);
        const PolicyMatrix numeric = numericGradient(p, [&] { return p.logProb(choice); });
        QVERIFY((analytic - numeric).cwiseAbs().maxCoeff() < 1e-7);
        // Hand check of one entry: d log p(a_g) / d z_{g,a_g} = 1 - p(a_g).
        QVERIFY(std::abs(analytic(0, 2) - (1.0 - p.probabilities()(0, 2))) < 1e-15);
    }

    void entropyGradientMatchesFiniteDifferences()
    {
        Policy p(3, 4);
        p.setLogits(randomLogits(3, 4, 11));
        PolicyMatrix analytic = PolicyMatrix::Zero(3, 4);
        p.addNormalizedEntropyGradient(1.0, analytic);
        const PolicyMatrix numeric = numericGradient(p, [&] { return p.normalizedEntropy(); });
        QVERIFY((analytic - numeric).cwiseAbs().maxCoeff() < 1e-7);
    }

    void clippedSurrogateByHand()
    {
        // One group, two devices, p = (0.6, 0.4) now.
        Policy p(1, 2);
        PolicyMatrix m(1, 2);
        m << 0.6, 0.4;
        p.setProbabilities(m);
        const std::vector<DeviceId> choices{0, 1, 0, 1};
        // Old probabilities 0.4, 0.45, 0.5, 0.6 -> ratios 1.5, 8/9, 1.2, 2/3.
        const std::vector<double> oldLogProbs{std::log(0.4), std::log(0.45), std::log(0.5), std::log(0.6)};
        const std::vector<double> advantages{1.0, -2.0, -1.0, -1.0};
        const SampleBatch batch{choices, 1, oldLogProbs, advantages};
        PolicyMatrix grad;
        const double value = clippedSurrogate(p, batch, 0.2, &grad);
        // Sample 0: min(1.5, 1.2) = 1.2, clipped above -> no gradient.
        // Sample 1: ratio inside the band: -16/9, unclipped.
        // Sample 2: ratio 1.2 on the band's edge, -1.2 either way (the unclipped term counts).
        // Sample 3: min(-2/3, -0.8) = -0.8, clipped below -> no gradient.
        QVERIFY(std::abs(value - (1.2 - 16.0 / 9.0 - 1.2 - 0.8) / 4.0) < 1e-12);
        // Sample 1 adds (-2)(8/9)/4 x (e_1 - p); sample 2 adds (-1)(1.2)/4 x (e_0 - p).
        const double w1 = -2.0 * (8.0 / 9.0) / 4.0, w2 = -1.0 * 1.2 / 4.0;
        const double g0 = w1 * (0.0 - 0.6) + w2 * (1.0 - 0.6);
        const double g1 = w1 * (1.0 - 0.4) + w2 * (0.0 - 0.4);
        QVERIFY(std::abs(grad(0, 0) - g0) < 1e-12);
        QVERIFY(std::abs(grad(0, 1) - g1) < 1e-12);
    }

    void clippedSurrogateGradientMatchesFiniteDifferences()
    {
        Policy p(3, 3);
        p.setLogits(randomLogits(3, 3, 5));
        const std::vector<DeviceId> choices{0, 1, 2, 2, 2, 0, 1, 0, 1, 0, 0, 0};
        std::vector<double> oldLogProbs;
        // Old policy a bit different so some ratios fall outside the band, none on its edge.
        Policy old(3, 3);
        old.setLogits(randomLogits(3, 3, 6) * 0.3 + p.logits());
        for (int i = 0; i < 4; ++i)
            oldLogProbs.push_back(old.logProb(std::span<const DeviceId>(choices).subspan(static_cast<size_t>(3 * i), 3)));
        const std::vector<double> advantages{1.3, -0.7, 0.4, -1.0};
        const SampleBatch batch{choices, 3, oldLogProbs, advantages};
        PolicyMatrix analytic;
        clippedSurrogate(p, batch, 0.2, &analytic);
        const PolicyMatrix numeric = numericGradient(p, [&] { return clippedSurrogate(p, batch, 0.2, nullptr); });
        QVERIFY((analytic - numeric).cwiseAbs().maxCoeff() < 1e-6);
        QVERIFY(analytic.cwiseAbs().maxCoeff() > 1e-3); // not all clipped away
    }

    void eliteSelection()
    {
        const std::vector<double> times{5, 3, 9, 3, 1, 7, 8, 2, 6, 4};
        QCOMPARE(selectElite(times, 0.1), (std::vector<int>{4}));
        QCOMPARE(selectElite(times, 0.3), (std::vector<int>{4, 7, 1}));
        QCOMPARE(selectElite(times, 0.35), (std::vector<int>{4, 7, 1, 3})); // ceil(3.5) = 4, tie keeps order
        QCOMPARE(selectElite(times, 0.01), (std::vector<int>{4}));          // at least one
    }

    void crossEntropyClosedForm()
    {
        // 4 samples x 2 groups on 3 devices; elite = samples 0, 2, 3.
        const std::vector<DeviceId> choices{0, 2, 1, 1, 0, 2, 1, 2};
        const std::vector<int> elite{0, 2, 3};
        const PolicyMatrix p = eliteDistribution(choices, 2, 3, elite, 0.3);
        // Group 0 devices (0, 0, 1) -> (2/3, 1/3, 0); group 1 devices (2, 2, 2) -> (0, 0, 1).
        PolicyMatrix expected(2, 3);
        expected << 0.7 * 2 / 3 + 0.1, 0.7 / 3 + 0.1, 0.1, 0.1, 0.1, 0.7 + 0.1;
        QVERIFY((p - expected).cwiseAbs().maxCoeff() < 1e-12);
        Policy policy(2, 3);
        policy.setProbabilities(p);
        QVERIFY((policy.probabilities() - expected).cwiseAbs().maxCoeff() < 1e-12);
    }

    void adamFirstStepMovesByLearningRate()
    {
        // After one step m/(1-b1) = g and v/(1-b2) = g^2, so each parameter moves by lr x sign(g).
        Adam adam(1, 3, AdamOptions{0.1, 0.9, 0.999, 1e-12});
        PolicyMatrix x = PolicyMatrix::Zero(1, 3);
        PolicyMatrix g(1, 3);
        g << 2.0, -0.5, 0.0;
        adam.ascend(x, g);
        QVERIFY(std::abs(x(0, 0) - 0.1) < 1e-9);
        QVERIFY(std::abs(x(0, 1) + 0.1) < 1e-9);
        QCOMPARE(x(0, 2), 0.0);
    }
};

QTEST_APPLESS_MAIN(TestPolicy)
#include "test_policy.moc"
