#include "ui/util/BackgroundPriority.h"

#include <QObject>
#include <QThread>

#include <algorithm>

#if defined(Q_OS_LINUX)
#include <cerrno>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace post {

namespace {

#if defined(Q_OS_LINUX)
// On Linux setpriority(PRIO_PROCESS, tid) affects one thread, not the whole process.
id_t currentTid() { return static_cast<id_t>(syscall(SYS_gettid)); }
#endif

} // namespace

void runAtBackgroundPriority(QThread& thread)
{
    QObject::connect(
        &thread, &QThread::started, &thread,
        [] {
#if defined(Q_OS_LINUX)
            // Relative to the inherited value (raising nice needs no privilege); failure
            // (a sandbox refusing it) only costs responsiveness, so it is ignored.
            const int nice = std::min(currentThreadNice() + kBackgroundNice, 19);
            (void)setpriority(PRIO_PROCESS, currentTid(), nice);
#endif
        },
        Qt::DirectConnection); // runs in the new thread, before its event loop
}

int currentThreadNice()
{
#if defined(Q_OS_LINUX)
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, currentTid());
    return errno == 0 ? nice : 0;
#else
    return 0;
#endif
}

} // namespace post
