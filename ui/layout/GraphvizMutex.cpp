#include "layout/GraphvizMutex.h"

namespace post {

std::mutex& graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

} // namespace post
