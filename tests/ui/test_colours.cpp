// Colours that mark something are told apart (issue 28 items 4 and 7): every series of the
// learning chart from every other and from the device colours, and the critical path from the
// device colours (their fills' borders too), the selection and the search hits, in the light
// and the dark theme, by CIEDE2000 (ui/theme/ColourDifference).
#include "tests/support/ScratchSettings.h"
#include "ui/charts/ChartColours.h"
#include "ui/charts/LearningChart.h"
#include "ui/theme/CategoryPalette.h"
#include "ui/theme/ColourDifference.h"
#include "ui/theme/ViewTheme.h"

#include <QLineSeries>
#include <QPalette>
#include <QTest>

using namespace post;

namespace {

QString describe(const QString& a, const QColor& x, const QString& b, const QColor& y)
{
    return QStringLiteral("%1 %2 and %3 %4: %5").arg(a, x.name(), b, y.name()).arg(colourDifference(x, y), 0, 'f', 1);
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
    p.setColor(QPalette::Base, QColor(0x1e, 0x20, 0x24));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe8, 0xeb));
    p.setColor(QPalette::WindowText, QColor(0xe6, 0xe8, 0xeb));
    return p;
}

} // namespace

class TestColours : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    void differenceIsAMetricOfLooks()
    {
        QCOMPARE(colourDifference(QColor(10, 120, 200), QColor(10, 120, 200)), 0.0);
        QVERIFY(colourDifference(Qt::black, Qt::white) > 99.0); // ΔE00 of black and white is 100
        QCOMPARE(colourDifference(Qt::red, Qt::blue), colourDifference(Qt::blue, Qt::red));
        // What the issue saw: the elite threshold and the best classical line were both
        // orange (ΔE00 8.7), the dark theme's critical path GPU:2's coral (8.3).
        QVERIFY(colourDifference(QColor(230, 150, 20), QColor(210, 130, 50)) < kDistinctSeries);
        QVERIFY(colourDifference(QColor(255, 110, 100), CategoryPalette::colour(3)) < kDistinctFromDevices);
    }

    void chartSeriesAreDistinct_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void chartSeriesAreDistinct()
    {
        QFETCH(bool, dark);
        const auto named = ChartColours::forTheme(dark).named();
        for (size_t i = 0; i < named.size(); ++i) {
            for (size_t j = i + 1; j < named.size(); ++j)
                QVERIFY2(colourDifference(named[i].second, named[j].second) >= kDistinctSeries,
                         qPrintable(describe(named[i].first, named[i].second, named[j].first, named[j].second)));
            for (int d = 0; d < CategoryPalette::kSize; ++d)
                QVERIFY2(colourDifference(named[i].second, CategoryPalette::colour(d)) >= kDistinctFromDevices,
                         qPrintable(describe(named[i].first, named[i].second, QStringLiteral("device %1").arg(d),
                                             CategoryPalette::colour(d))));
        }
    }

    // The chart draws with those colours in either palette: the elite threshold is no longer
    // the best classical placer's orange.
    void chartDrawsWithThem()
    {
        for (const bool dark : {false, true}) {
            LearningChart chart;
            if (dark)
                chart.setPalette(darkPalette());
            QCOMPARE(chart.isDarkTheme(), dark);
            const ChartColours colours = ChartColours::forTheme(dark);
            QCOMPARE(chart.eliteSeries().front()->pen().color(), colours.elite);
            QCOMPARE(chart.classicalSeries()->pen().color(), colours.classical);
            QCOMPARE(chart.hostDispatchSeries()->pen().color(), colours.hostDispatch);
            QCOMPARE(chart.lowerBoundSeries()->pen().color(), colours.lowerBound);
            QCOMPARE(chart.infeasibleSeries()->color().rgb(), colours.outOfMemory.rgb());
        }
    }

    void criticalPathIsNoDeviceColour_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void criticalPathIsNoDeviceColour()
    {
        QFETCH(bool, dark);
        const ViewTheme theme = dark ? ViewTheme::darkTheme() : ViewTheme::light();
        const QColor critical = theme.critical;
        for (int d = 0; d < CategoryPalette::kSize; ++d) {
            const QColor device = CategoryPalette::colour(d);
            // As the timeline draws a device's bars (fill and border) and the graph its ops.
            const QColor border = dark ? device.lighter(115) : device.darker(115);
            for (const QColor& c : {device, border, theme.nodeFill(device)})
                QVERIFY2(colourDifference(critical, c) >= kDistinctFromDevices,
                         qPrintable(describe(QStringLiteral("critical path"), critical,
                                             QStringLiteral("device %1").arg(d), c)));
        }
        for (const QColor& other : {theme.selection, theme.searchHit, theme.edge, theme.edgeHighlight})
            QVERIFY2(colourDifference(critical, other) >= kDistinctSeries,
                     qPrintable(describe(QStringLiteral("critical path"), critical, QStringLiteral("mark"), other)));
    }
};

QTEST_MAIN(TestColours)
#include "test_colours.moc"
