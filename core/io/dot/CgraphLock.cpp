#include "core/io/dot/CgraphLock.h"

namespace post {

std::mutex& cgraphMutex()
{
    static std::mutex mutex;
    return mutex;
}

} // namespace post
