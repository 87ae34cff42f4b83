#include "ui/session/SessionAutosave.h"

#include "core/session/SessionFile.h"
#include "core/util/InputError.h"
#include "ui/util/BackgroundJobs.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QLockFile>
#include <QStandardPaths>
#include <QStorageInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <exception>

#include <signal.h>

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

QString tr(const char* text) { return QCoreApplication::translate("SessionAutosave", text); }

// Why a lock file next to an autosave cannot be created now: a read-only or full disk.
QString lockProblem(const QString& lockPath, QLockFile::LockError error)
{
    const QStorageInfo disk(QFileInfo(lockPath).absolutePath());
    if (disk.isValid() && disk.isReadOnly())
        return tr("the disk holding %1 is read-only").arg(lockPath);
    if (error == QLockFile::PermissionError)
        return tr("no permission to write %1").arg(lockPath);
    if (disk.isValid() && disk.bytesAvailable() < 4096)
        return tr("no space left on the disk holding %1").arg(lockPath);
    return tr("%1 cannot be written").arg(lockPath);
}

// Whether the process a lock names is gone (this machine's process ids only).
bool holderIsGone(QLockFile& lock)
{
    qint64 pid = 0;
    QString host;
    QString app;
    if (!lock.getLockInfo(&pid, &host, &app))
        return true; // unreadable, empty or removed: nobody holds it
    return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH;
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
            lastSize_ = QFileInfo(path_).size();
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

bool SessionAutosave::ensureLocked(QString* why)
{
    if (lock_ && lock_->isLocked())
        return true;
    const QString folder = QFileInfo(path_).absolutePath();
    if (!QDir().mkpath(folder)) {
        if (why)
            *why = tr("the autosave folder %1 cannot be created").arg(folder);
        return false;
    }
    lock_ = lockFor(path_);
    if (lock_->tryLock(0))
        return true;
    if (why)
        *why = lockProblem(lockPathOf(path_), lock_->error());
    return false;
}

QString SessionAutosave::probe()
{
    QString why;
    if (!ensureLocked(&why))
        return why;
    const QString folder = QFileInfo(path_).absolutePath();
    const QStorageInfo disk(folder);
    if (!disk.isValid())
        return {};
    if (disk.isReadOnly())
        return tr("the disk holding the autosave folder %1 is read-only").arg(folder);
    const qint64 needed = std::max(kMinFreeBytes, lastSize_);
    if (disk.bytesAvailable() < needed)
        return tr("the disk holding the autosave folder %1 has %2 free")
            .arg(folder, QLocale().formattedDataSize(disk.bytesAvailable()));
    return {};
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
    QString why;
    if (!ensureLocked(&why)) {
        emit failed(tr("cannot write the autosave %1: %2").arg(path_, why));
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
    QStringList out;
    for (const Orphan& orphan : findOrphans())
        if (orphan.problem.isEmpty())
            out << orphan.path;
    return out;
}

QList<SessionAutosave::Orphan> SessionAutosave::findOrphans()
{
    QDir dir(directory());
    QFileInfoList files = dir.entryInfoList({QStringLiteral("autosave-*") + kSuffix}, QDir::Files);
    std::sort(files.begin(), files.end(),
              [](const QFileInfo& a, const QFileInfo& b) { return a.lastModified() > b.lastModified(); });
    QList<Orphan> out;
    for (const QFileInfo& file : files) {
        const QString path = file.absoluteFilePath();
        auto lock = lockFor(path);
        if (lock->tryLock(0)) { // nobody alive holds it
            out.push_back({path, QString()});
            continue;
        }
        // Held by a running instance (skipped), or stale but not replaceable: QLockFile
        // removes a stale lock and writes its own, which a full disk refuses (UnknownError)
        // and a read-only one refuses at the removal (LockFailedError, the holder gone).
        const QLockFile::LockError error = lock->error();
        if (error == QLockFile::LockFailedError && !holderIsGone(*lock))
            continue;
        out.push_back({path, tr("its lock cannot be taken over: %1").arg(lockProblem(lockPathOf(path), error))});
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
