// The upper AVX state of a thread (core/util/VectorState.h): a thread inherits its creator's,
// and the search's pools run with it cleared whatever the calling thread left
// (issue 28 item 2, docs/performance.md "The GUI learner against the CLI").
#include "core/learn/BatchEvaluator.h"
#include "core/util/VectorState.h"

#include <QtTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace post;

namespace {

// Records whether the upper AVX state was dirty during each evaluation.
class StateRecorder final : public StepEvaluator {
public:
    explicit StateRecorder(std::atomic<int>& dirty)
        : dirty_(dirty)
    {
    }
    Evaluation evaluate(const Placement& placement) override
    {
        if (upperVectorStateDirty())
            ++dirty_;
        Evaluation e;
        e.stepTimeUs = e.rawStepTimeUs = 1.0 + static_cast<double>(placement.size());
        return e;
    }

private:
    std::atomic<int>& dirty_;
};

} // namespace

class TestVectorState : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        if (!canReadVectorState())
            QSKIP("this CPU cannot report its upper AVX state (no AVX or no XGETBV with ECX=1)");
    }

    void clearingMakesTheStateClean()
    {
        dirtyUpperVectorState();
        QVERIFY(upperVectorStateDirty());
        clearUpperVectorState();
        QVERIFY(!upperVectorStateDirty());
    }

    // The mechanism behind the GUI's slow learner: a thread started by a thread whose upper
    // state is dirty starts dirty (Linux copies the vector registers on clone).
    void aNewThreadInheritsItsCreatorsState()
    {
        bool childDirty = false;
        dirtyUpperVectorState();
        std::thread child([&] { childDirty = upperVectorStateDirty(); });
        child.join();
        clearUpperVectorState();
        if (!childDirty)
            QSKIP("this kernel starts threads with a clean vector state");
        QVERIFY(childDirty);
    }

    // Created and called from a dirty thread, the pool's evaluations (on the caller's thread
    // and on each worker) all run with the upper state clean.
    void batchEvaluationsRunClean()
    {
        std::atomic<int> dirty{0};
        const StepEvaluatorFactory factory = [&] { return std::make_unique<StateRecorder>(dirty); };
        dirtyUpperVectorState();
        BatchEvaluator pool(factory, 4);
        std::vector<Placement> placements(64, Placement(3, 0));
        std::vector<Evaluation> results(placements.size());
        for (int round = 0; round < 3; ++round) {
            dirtyUpperVectorState(); // as Qt's code between two batches may leave it
            pool.evaluate(placements, results);
        }
        clearUpperVectorState();
        QCOMPARE(dirty.load(), 0);
        QCOMPARE(results[5].stepTimeUs, 4.0);
    }
};

QTEST_APPLESS_MAIN(TestVectorState)
#include "test_vector_state.moc"
