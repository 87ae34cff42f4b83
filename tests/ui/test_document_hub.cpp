// The DocumentHub: the one route documents take to the panels, and the graph identity
// (GraphDocument::graphId) panels use to tell another graph from another placement.
#include "tests/ui/UiTestGraphs.h"

#include "ui/document/DocumentHub.h"

#include <QSignalSpy>
#include <QtTest>

using namespace post;

namespace {

constexpr int kWaitMs = 20000;

QString sample(const char* name)
{
    return qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/") + QLatin1String(name);
}

DocumentPtr documentOf(const QSignalSpy& spy, int i) { return spy.at(i).at(0).value<DocumentPtr>(); }

} // namespace

class TestDocumentHub : public QObject {
    Q_OBJECT

private slots:
    void everyChangeTakesTheOneRoute()
    {
        DocumentHub hub;
        QSignalSpy changed(&hub, &DocumentHub::documentChanged);
        hub.setPlacement({1, 1, 1, 1}); // nothing open: nothing to place
        QCOMPARE(changed.count(), 0);

        const DocumentPtr opened = uitest::smallDocument();
        hub.open(opened);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(documentOf(changed, 0), opened);
        QCOMPARE(hub.document(), opened);

        hub.setPlacement({1, 2, 2, 0});
        QCOMPARE(changed.count(), 2);
        const DocumentPtr placed = hub.document();
        QCOMPARE(documentOf(changed, 1), placed);
        QVERIFY(placed != opened);                  // documents are immutable: a new one
        QCOMPARE(placed->graph, opened->graph);     // sharing the graph
        QCOMPARE(placed->graphId, opened->graphId); // and so its identity
        QCOMPARE(placed->placement, (Placement{1, 2, 2, 0}));
        QVERIFY(opened->placement.empty());

        auto cluster = uitest::cluster();
        hub.setCluster(cluster, {0, 0, 0, 0});
        QCOMPARE(changed.count(), 3);
        QCOMPARE(hub.document()->cluster, cluster);
        QCOMPARE(hub.document()->graphId, opened->graphId);
        QCOMPARE(hub.document()->placement, (Placement{0, 0, 0, 0}));
        hub.setCluster(nullptr, {}); // no cluster: ignored
        QCOMPARE(changed.count(), 3);
    }

    void anotherGraphHasAnotherIdentity()
    {
        const DocumentPtr a = uitest::smallDocument();
        const DocumentPtr b = uitest::smallDocument(); // the same ops, but another graph
        QVERIFY(a->graphId != 0);
        QVERIFY(a->graphId != b->graphId);
        auto copy = std::make_shared<GraphDocument>(*a);
        QCOMPARE(copy->graphId, a->graphId);
    }

    void aReadGoesThroughTheRouteAndOpeningADocumentDropsIt()
    {
        DocumentHub hub;
        QSignalSpy changed(&hub, &DocumentHub::documentChanged);
        QSignalSpy failed(&hub, &DocumentHub::loadFailed);
        hub.load(sample("tiny-mlp.json"));
        QVERIFY(hub.isLoading());
        QVERIFY(changed.wait(kWaitMs));
        QVERIFY(!hub.isLoading());
        const DocumentPtr read = hub.document();
        QVERIFY(read && read->graph && read->opCount() > 0);
        QCOMPARE(read->cluster->name(), hub.clusterName().toStdString());

        // A read still running when a document is opened never replaces it.
        hub.load(sample("inception-block.json"));
        const DocumentPtr restored = uitest::chainDocument(5);
        hub.open(restored);
        QVERIFY(!hub.isLoading());
        QTest::qWait(300);
        QThreadPool::globalInstance()->waitForDone(kWaitMs);
        QCoreApplication::processEvents();
        QCOMPARE(changed.count(), 2);
        QCOMPARE(hub.document(), restored);

        hub.load(QStringLiteral("/nonexistent/graph.json"));
        QVERIFY(failed.wait(kWaitMs));
        QCOMPARE(failed.first().at(0).toString(), QStringLiteral("/nonexistent/graph.json"));
        QCOMPARE(hub.document(), restored); // a failed read leaves the document as it was
    }

    void clusterAndBatchChangesAreReported()
    {
        DocumentHub hub;
        QSignalSpy named(&hub, &DocumentHub::clusterNameChanged);
        QVERIFY(!hub.setClusterName(hub.clusterName()));
        QCOMPARE(named.count(), 0);
        QVERIFY(hub.setClusterName(QStringLiteral("v100x4-nvlink")));
        QCOMPARE(named.count(), 1);
        QCOMPARE(named.first().at(0).toString(), QStringLiteral("v100x4-nvlink"));
        QVERIFY(!hub.setBatch(0));
        QVERIFY(hub.setBatch(8));
        QVERIFY(!hub.setBatch(8));
        QCOMPARE(hub.batch(), std::int64_t(8));
    }
};

QTEST_MAIN(TestDocumentHub)
#include "test_document_hub.moc"
