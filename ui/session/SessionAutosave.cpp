#include "ui/session/SessionAutosave.h"

#include "core/session/SessionFile.h"
#include "core/util/InputError.h"
#include "ui/util/BackgroundJobs.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <exception>

namespace post {
namespace {

const QString kSuffix = QStringLiteral(".session.json");

QString lockPathOf(const QString& autosave)
{
    return autosave.left(autosave.size() - kSuffix.size()) + QStringLiteral(".lock");
}

// A lock held by a running process is never stale by age alone: runs last hours.
std::unique_ptr<QLockFile> lockFor(const QString& autosave)
{
    auto lock = std::make_unique<QLockFile>(lockPathOf(autosave));
    lock->setStaleLockTime(0);
    return lock;
}

} // namespace

QString SessionAutosave::directory()
{
    const QString env = qEnvironmentVariable("POST_AUTOSAVE_DIR");
    if (!env.isEmpty())
        return env;
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
}

SessionAutosave::SessionAutosave(QObject* parent)
    : QObject(parent)
{
    static std::atomic<int> instances{0};
    path_ =
        QDir(directory())
            .filePath(
                QStringLiteral("autosave-%1-%2%3").arg(QCoreApplication::applicationPid()).arg(++instances).arg(kSuffix));
    connect(&watcher_, &QFutureWatcher<QString>::finished, this, [this] {
        const QString error = watcher_.result();
        if (error.isEmpty()) {
            ++writes_;
            emit written(path_);
        } else {
            emit failed(error);
        }
        if (queued_) {
            Session next = std::move(*queued_);
            queued_.reset();
            startWrite(std::move(next));
        }
    });
}

SessionAutosave::~SessionAutosave()
{
    if (keepOnExit_ && !abandoned_) {
        flush(); // the newest state offered, on disk
        if (lock_)
            lock_->unlock(); // an orphan now: the next start offers it
        return;
    }
    queued_.reset();
    watcher_.waitForFinished();
    if (abandoned_)
        return;
    if (writes_ > 0 || QFileInfo::exists(path_))
        QFile::remove(path_);
    if (lock_)
        lock_->unlock();
}

bool SessionAutosave::ensureLocked()
{
    if (lock_ && lock_->isLocked())
        return true;
    if (!QDir().mkpath(QFileInfo(path_).absolutePath()))
        return false;
    lock_ = lockFor(path_);
    return lock_->tryLock(0);
}

void SessionAutosave::offer(Session session, bool now)
{
    if (abandoned_)
        return;
    if (!now && !isDue())
        return;
    sinceWrite_.start();
    // A write that has just ended still has its finished handler to come while queued_ is
    // set: that handler writes the queue, so this newer session goes there too. Starting it
    // here would drop the handler (setFuture) and leave the older queued session to be
    // written after this one.
    if (watcher_.isRunning() || queued_) {
        queued_ = std::move(session);
        return;
    }
    startWrite(std::move(session));
}

void SessionAutosave::startWrite(Session session)
{
    if (!ensureLocked()) {
        emit failed(tr("cannot lock %1").arg(lockPathOf(path_)));
        return;
    }
    watcher_.setFuture(runInBackground([path = path_.toStdString(), session = std::move(session)]() -> QString {
        try {
            writeSessionFile(path, session);
            return {};
        } catch (const std::exception& e) {
            return QString::fromUtf8(e.what());
        }
    }));
}

void SessionAutosave::flush()
{
    // The finished handler starts a queued write; deliver it and wait again.
    while (watcher_.isRunning() || queued_) {
        watcher_.waitForFinished();
        QCoreApplication::sendPostedEvents(&watcher_);
        QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
    }
}

QStringList SessionAutosave::orphans()
{
    QDir dir(directory());
    QFileInfoList files = dir.entryInfoList({QStringLiteral("autosave-*") + kSuffix}, QDir::Files);
    std::sort(files.begin(), files.end(),
              [](const QFileInfo& a, const QFileInfo& b) { return a.lastModified() > b.lastModified(); });
    QStringList out;
    for (const QFileInfo& file : files) {
        auto lock = lockFor(file.absoluteFilePath());
        if (lock->tryLock(0)) // nobody alive holds it
            out << file.absoluteFilePath();
    }
    return out;
}

QString SessionAutosave::adopt(const QString& orphan)
{
    if (!ensureLocked())
        return {};
    watcher_.waitForFinished();
    QFile::remove(path_);
    if (!QFile::rename(orphan, path_))
        return {};
    QFile::remove(lockPathOf(orphan));
    return path_;
}

void SessionAutosave::discard(const QString& orphan)
{
    auto lock = lockFor(orphan);
    if (!lock->tryLock(0))
        return; // someone else took it meanwhile
    QFile::remove(orphan);
    lock->unlock();
}

QString SessionAutosave::setAside()
{
    watcher_.waitForFinished();
    queued_.reset();
    if (!QFileInfo::exists(path_))
        return {};
    const QFileInfo file(path_);
    const QString aside = file.dir().filePath(
        QStringLiteral("unrestorable-%1-%2")
            .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")), file.fileName()));
    if (!QFile::rename(path_, aside))
        return {};
    writes_ = 0; // nothing of this instance's is left at path_ to remove
    return aside;
}

void SessionAutosave::remove()
{
    if (abandoned_)
        return;
    queued_.reset();
    watcher_.waitForFinished();
    QFile::remove(path_);
    sinceWrite_.invalidate(); // the next run's first offer is written at once
}

void SessionAutosave::simulateCrash()
{
    flush();
    abandoned_ = true;
    if (lock_)
        lock_->unlock(); // a dead process's lock: QLockFile finds it stale
}

} // namespace post
