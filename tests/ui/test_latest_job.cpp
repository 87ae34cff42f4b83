#include "ui/util/LatestJob.h"
#include "ui/util/LatestRead.h"

#include <QSemaphore>
#include <QtTest>

#include <algorithm>
#include <vector>

using namespace post;

// The one "latest result wins" helper: results of superseded or dropped jobs never arrive.
class TestLatestJob : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // A read blocks on the pool while another runs: two threads even on one core.
        QThreadPool::globalInstance()->setMaxThreadCount(std::max(2, QThreadPool::globalInstance()->maxThreadCount()));
    }

    void aStaleResultIsDroppedAndTheLatestDelivered()
    {
        LatestJob job;
        QVERIFY(!job.isBusy());
        const quint64 first = job.begin();
        const LatestJob::Ticket firstTicket = job.ticket(first);
        QVERIFY(!firstTicket.isStale());
        const quint64 second = job.begin();
        QVERIFY(second != first);
        QVERIFY(firstTicket.isStale()); // a worker sees it was superseded
        QVERIFY(!job.ticket(second).isStale());
        QVERIFY(job.isBusy());

        // Results arrive out of order: the first job's is stale, the second's wins.
        QVERIFY(!job.isCurrent(first));
        QVERIFY(!job.finish(first));
        QVERIFY(job.isBusy());
        QVERIFY(job.isCurrent(second)); // its progress is wanted
        QVERIFY(job.finish(second));
        QVERIFY(!job.isBusy());
        QVERIFY(!job.finish(second)); // delivered once
        QVERIFY(!job.isCurrent(second));
    }

    void droppingMakesEveryJobStale()
    {
        LatestJob job;
        QCOMPARE(job.drop(), quint64(0)); // nothing was running
        const quint64 id = job.begin();
        const LatestJob::Ticket ticket = job.ticket(id);
        QCOMPARE(job.drop(), id);
        QVERIFY(ticket.isStale());
        QVERIFY(!job.isBusy());
        QVERIFY(!job.finish(id));
        QVERIFY(LatestJob::Ticket().isStale()); // a default ticket is never wanted
        const quint64 next = job.begin();
        QVERIFY(next > id); // ids are never reused
        QVERIFY(job.finish(next));
    }

    void latestReadDeliversOnlyTheNewestRead()
    {
        QObject owner;
        LatestRead<int> read(&owner);
        QSemaphore slowMayFinish;
        QSemaphore slowIsRunning;
        std::vector<int> delivered;
        // The first read is still running on the pool when the second starts and finishes.
        read.start(
            [&] {
                slowIsRunning.release();
                slowMayFinish.acquire();
                return 1;
            },
            [&](const ReadOutcome<int>& outcome) { delivered.push_back(std::get<int>(outcome)); });
        QVERIFY(slowIsRunning.tryAcquire(1, 10000));
        read.start([] { return 2; },
                   [&](const ReadOutcome<int>& outcome) { delivered.push_back(std::get<int>(outcome)); });
        QTRY_COMPARE_WITH_TIMEOUT(delivered.size(), size_t(1), 10000);
        QCOMPARE(delivered.front(), 2);
        QVERIFY(!read.isBusy());
        slowMayFinish.release(); // the stale read ends now: its result must not arrive
        QThreadPool::globalInstance()->waitForDone(10000);
        QTest::qWait(50);
        QCOMPARE(delivered.size(), size_t(1));
    }

    void aCancelledReadIsNeverReported()
    {
        QObject owner;
        LatestRead<int> read(&owner);
        QSemaphore mayFinish;
        bool reported = false;
        read.start(
            [&] {
                mayFinish.acquire();
                return 1;
            },
            [&](const ReadOutcome<int>&) { reported = true; });
        QVERIFY(read.isBusy());
        read.cancel();
        QVERIFY(!read.isBusy());
        mayFinish.release();
        QThreadPool::globalInstance()->waitForDone(10000);
        QTest::qWait(50);
        QVERIFY(!reported);
    }
};

QTEST_GUILESS_MAIN(TestLatestJob)
#include "test_latest_job.moc"
