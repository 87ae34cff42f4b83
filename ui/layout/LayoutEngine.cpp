#include "ui/layout/LayoutEngine.h"

namespace post {

QString toString(LayoutEngine engine)
{
    switch (engine) {
    case LayoutEngine::Dot:
        return QStringLiteral("dot");
    case LayoutEngine::FastDot:
        return QStringLiteral("dot (fast)");
    case LayoutEngine::Sfdp:
        return QStringLiteral("sfdp");
    }
    return {};
}

} // namespace post
