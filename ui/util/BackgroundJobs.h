#pragma once

#include "core/util/VectorState.h"
#include "ui/util/BackgroundPriority.h"

#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace post {

// The pool of the app's own background jobs (file reads, step simulations, scope trees,
// autosaves, the cluster editor's figures). Not QThreadPool::globalInstance(): Qt's raster
// paint engine hands parts of large fills to the global pool and waits for them on the GUI
// thread, so a 40 ms step simulation queued there stalled the learning chart's paint (event-
// loop gaps of 95-166 ms on the 107,704-op graph with the machine idle, docs/performance.md).
QThreadPool& backgroundPool();

// Runs `job` on backgroundPool(), its thread at background priority (BackgroundPriority.h).
// A thread that waits for the job's future may run it itself (QFuture::waitForFinished
// takes a job not yet started): that thread keeps its priority.
template <class Job> auto runInBackground(Job job)
{
    return QtConcurrent::run(&backgroundPool(), [job = std::move(job), caller = QThread::currentThread()]() mutable {
        if (QThread::currentThread() != caller)
            lowerCurrentThreadPriorityOnce();
        clearUpperVectorState(); // a pool thread runs Qt's code between jobs (core/util/VectorState.h)
        return job();
    });
}

} // namespace post
