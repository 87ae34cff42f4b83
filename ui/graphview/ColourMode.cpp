#include "ui/graphview/ColourMode.h"

#include <QCoreApplication>

namespace post {

QString toString(ColourMode mode)
{
    switch (mode) {
    case ColourMode::Device:
        return QCoreApplication::translate("ColourMode", "Device");
    case ColourMode::OpType:
        return QCoreApplication::translate("ColourMode", "Op type");
    case ColourMode::ComputeTime:
        return QCoreApplication::translate("ColourMode", "Compute time");
    case ColourMode::Memory:
        return QCoreApplication::translate("ColourMode", "Memory");
    }
    return {};
}

} // namespace post
