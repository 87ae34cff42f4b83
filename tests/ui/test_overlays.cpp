// The graph panel's overlays (legend, overview) follow the view when the window is resized:
// they stay in the view's corners, inside the view, and apart, however it is resized.
#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/GraphView.h"
#include "ui/graphview/LegendWidget.h"
#include "ui/graphview/OverviewWidget.h"

#include <QSignalSpy>
#include <QTest>

using namespace post;

class TestOverlays : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    void overlaysFollowResizes()
    {
        GraphPanel panel;
        panel.resize(900, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(uitest::chainDocument(2 * GraphPanel::kOverviewAboveNodes)); // enough nodes for the overview
        QVERIFY(applied.wait(30000));
        QVERIFY(panel.legend()->isVisible());
        QVERIFY(panel.overview()->isVisible());
        constexpr int kMargin = 10;
        for (const QSize size : {QSize(1400, 1000), QSize(600, 400), QSize(1000, 380), QSize(420, 900), QSize(900, 700)}) {
            panel.resize(size);
            QCoreApplication::processEvents();
            const QRect area = panel.view()->viewport()->geometry();
            const QRect legend = panel.legend()->geometry();
            const QRect overview = panel.overview()->geometry();
            const QString where = QStringLiteral(
                                      "at %1x%2: viewport %3,%4 %5x%6, legend %7,%8 %9x%10, overview %11,%12 %13x%14")
                                      .arg(size.width())
                                      .arg(size.height())
                                      .arg(area.x())
                                      .arg(area.y())
                                      .arg(area.width())
                                      .arg(area.height())
                                      .arg(legend.x())
                                      .arg(legend.y())
                                      .arg(legend.width())
                                      .arg(legend.height())
                                      .arg(overview.x())
                                      .arg(overview.y())
                                      .arg(overview.width())
                                      .arg(overview.height());
            // In the corners of the view as it is now, not as it was.
            auto near = [](int gap) { return gap >= kMargin && gap <= kMargin + 1; };
            QVERIFY2(near(area.right() - legend.right()) && near(legend.top() - area.top()), qPrintable(where));
            QVERIFY2(near(area.right() - overview.right()) && near(area.bottom() - overview.bottom()), qPrintable(where));
            QVERIFY2(area.contains(legend) && area.contains(overview), qPrintable(where));
            QVERIFY2(!legend.intersects(overview), qPrintable(where));
        }
    }
};

QTEST_MAIN(TestOverlays)
#include "test_overlays.moc"
