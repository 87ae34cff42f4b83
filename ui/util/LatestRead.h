#pragma once

#include "ui/util/BackgroundJobs.h"
#include "ui/util/ErrorText.h"
#include "ui/util/LatestJob.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <memory>
#include <utility>
#include <variant>

namespace post {

// What reading a user file on a pool thread gives back: the value, or the message to show.
template <class T> using ReadOutcome = std::variant<T, QString>;

// Runs `read` (returning T), catching what readers throw: exceptions never cross threads.
template <class T, class Read> ReadOutcome<T> readCatching(Read&& read)
{
    try {
        return std::forward<Read>(read)();
    } catch (const std::bad_alloc&) {
        return QObject::tr("not enough memory to read it");
    } catch (const std::exception& e) {
        return readErrorText(e);
    }
}

// Reads files on the thread pool and reports only the newest read, on `owner`'s thread
// (LatestJob): starting another read (or cancel()) drops the result of one still running,
// so opening B while A is still being read never shows A. Reads still queued on the pool
// when they are superseded do not run at all (opening several files quickly reads only the last).
template <class T> class LatestRead {
public:
    explicit LatestRead(QObject* owner)
        : owner_(owner)
    {
    }

    // `read` runs on a pool thread; `done(ReadOutcome<T>)` on the owner's, if still newest.
    template <class Read, class Done> void start(Read read, Done done)
    {
        const quint64 id = job_.begin();
        auto* watcher = new QFutureWatcher<ReadOutcome<T>>(owner_);
        QObject::connect(watcher, &QFutureWatcher<ReadOutcome<T>>::finished, owner_,
                         [this, watcher, id, done = std::move(done)] {
                             watcher->deleteLater();
                             if (job_.finish(id))
                                 done(watcher->result());
                         });
        watcher->setFuture(runInBackground([read = std::move(read), ticket = job_.ticket(id)]() -> ReadOutcome<T> {
            if (ticket.isStale())
                return QString(); // superseded while queued; dropped on arrival
            return readCatching<T>(read);
        }));
    }

    void cancel() { job_.drop(); }
    bool isBusy() const { return job_.isBusy(); }

private:
    QObject* owner_;
    LatestJob job_;
};

} // namespace post
