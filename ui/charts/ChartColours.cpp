#include "ui/charts/ChartColours.h"

namespace post {

ChartColours ChartColours::forTheme(bool dark)
{
    // Picked against each other and against Tableau 10 (the device colours) with CIEDE2000:
    // darker, more saturated hues than the devices' mid-tones on white; lighter, paler ones
    // on the dark background.
    ChartColours c;
    if (dark) {
        c.sampled = QColor(120, 170, 255);
        c.outOfMemory = QColor(255, 60, 140);
        c.elite = QColor(255, 190, 110);
        c.best = QColor(120, 250, 120);
        c.lowerBound = QColor(150, 150, 150);
        c.groupedBound = QColor(140, 250, 240);
        c.singleDevice = QColor(200, 150, 255);
        c.classical = QColor(250, 250, 110);
        c.hostDispatch = QColor(176, 184, 128);
        c.selected = QColor(255, 0, 255);
        c.entropy = QColor(235, 235, 235);
    } else {
        c.sampled = QColor(40, 80, 220);
        c.outOfMemory = QColor(200, 0, 70);
        c.elite = QColor(225, 90, 0);
        c.best = QColor(0, 120, 50);
        c.lowerBound = QColor(125, 125, 125);
        c.groupedBound = QColor(0, 110, 130);
        c.singleDevice = QColor(120, 30, 190);
        c.classical = QColor(140, 120, 0);
        c.hostDispatch = QColor(104, 40, 0);
        c.selected = QColor(230, 0, 230);
        c.entropy = QColor(30, 30, 30);
    }
    return c;
}

std::vector<std::pair<QString, QColor>> ChartColours::named() const
{
    return {{QStringLiteral("sampled"), sampled},
            {QStringLiteral("out of memory"), outOfMemory},
            {QStringLiteral("elite threshold"), elite},
            {QStringLiteral("best so far"), best},
            {QStringLiteral("lower bound"), lowerBound},
            {QStringLiteral("grouped bound"), groupedBound},
            {QStringLiteral("best single GPU"), singleDevice},
            {QStringLiteral("best classical placer"), classical},
            {QStringLiteral("host dispatch"), hostDispatch},
            {QStringLiteral("shown sample"), selected},
            {QStringLiteral("entropy"), entropy}};
}

} // namespace post
