#include "ui/util/BackgroundPriority.h"
#include "ui/util/BackgroundJobs.h"

#include <QObject>
#include <QThread>
#include <QThreadPool>

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

void lowerCurrentThreadPriority()
{
#if defined(Q_OS_LINUX)
    // Relative to the inherited value (raising nice needs no privilege); failure (a sandbox
    // refusing it) only costs responsiveness, so it is ignored.
    const int nice = std::min(currentThreadNice() + kBackgroundNice, 19);
    (void)setpriority(PRIO_PROCESS, currentTid(), nice);
#endif
}

} // namespace

void runAtBackgroundPriority(QThread& thread)
{
    QObject::connect(
        &thread, &QThread::started, &thread, [] { lowerCurrentThreadPriority(); },
        Qt::DirectConnection); // runs in the new thread, before its event loop
}

void lowerCurrentThreadPriorityOnce()
{
    thread_local bool lowered = false;
    if (!lowered) {
        lowered = true;
        lowerCurrentThreadPriority();
    }
}

QThreadPool& backgroundPool()
{
    // Never destroyed: jobs still queued at exit die with the process, as they would with
    // the global pool, and no QThread outlives the application object in a destructor.
    static QThreadPool* pool = new QThreadPool;
    return *pool;
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
