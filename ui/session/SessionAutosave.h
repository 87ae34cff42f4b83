#pragma once

#include "core/session/Session.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

class QLockFile;

namespace post {

// This window's autosave file: written on a pool thread (serialising 20,000 samples and
// the graph takes longer than a frame), at most once per interval, and never two writes at
// once (a request during a write is kept and written after it, newest state only). Each
// instance has its own file, guarded by a QLockFile; a file whose lock is not held by a
// running process is an orphan, left by a crash or kill. A clean shutdown removes it,
// unless told to keep it (an unsaved run nobody was asked about): then it stays, an orphan
// the next start offers to restore.
class SessionAutosave : public QObject {
    Q_OBJECT

public:
    // The folder: $POST_AUTOSAVE_DIR, else QStandardPaths::AppDataLocation + "/autosave".
    static QString directory();
    static constexpr int kDefaultIntervalMs = 20000;

    explicit SessionAutosave(QObject* parent = nullptr);
    ~SessionAutosave() override; // waits for a write in flight, removes the file (unless kept)

    // Keep the file when this object goes (written up to date, unlocked): an orphan.
    void setKeepOnExit(bool keep) { keepOnExit_ = keep; }
    bool keepsOnExit() const { return keepOnExit_; }

    void setIntervalMs(int ms) { intervalMs_ = ms; }
    int intervalMs() const { return intervalMs_; }
    QString path() const { return path_; }

    // Whether a write now would respect the interval (check before building a Session).
    bool isDue() const { return !sinceWrite_.isValid() || sinceWrite_.elapsed() >= intervalMs_; }
    // Writes `session` if the interval has passed since the last write (or `now`).
    void offer(Session session, bool now = false);
    // Waits for the current and queued writes (tests, shutdown).
    void flush();
    int writesDone() const { return writes_; }

    // Autosaves of crashed instances that this instance can take over, newest first.
    static QStringList orphans();
    // Every autosave of a crashed instance, newest first, with why it cannot be taken over
    // (empty: it can): its stale lock cannot be replaced on a full disk, or removed from a
    // read-only one.
    struct Orphan {
        QString path;
        QString problem;
    };
    static QList<Orphan> findOrphans();
    // Why nothing could be autosaved now (the folder cannot be made, the lock cannot be
    // written, the disk is read-only or has less free space than the last write took, at
    // least kMinFreeBytes), or empty. Takes this instance's lock when it can.
    QString probe();
    static constexpr qint64 kMinFreeBytes = 256 * 1024;
    // Makes an orphan this instance's own file (it is then removed on a clean exit); the
    // new path, or empty when it could not be taken.
    QString adopt(const QString& orphan);
    static void discard(const QString& orphan);
    // Keeps this instance's file, which could not be restored, out of the way instead of
    // removing it at exit: renamed "unrestorable-<time>-<name>" in the same folder (no
    // longer offered for restoring, never removed). The new path, or empty on failure.
    QString setAside();

    // Removes the file now (the run it held is gone from the window); later offers write it again.
    void remove();

    // Tests: forget the file without removing it, as a killed process would.
    void simulateCrash();

signals:
    void written(const QString& path);
    // A write (or its lock) failed; `message` names the file and the reason.
    void failed(const QString& message);

private:
    void startWrite(Session session);
    bool ensureLocked(QString* why = nullptr);

    QString path_;
    std::unique_ptr<QLockFile> lock_;
    QFutureWatcher<QString> watcher_;
    std::optional<Session> queued_;
    QElapsedTimer sinceWrite_;
    int intervalMs_ = kDefaultIntervalMs;
    int writes_ = 0;
    qint64 lastSize_ = 0; // bytes of the last file written
    bool abandoned_ = false;
    bool keepOnExit_ = false;
};

} // namespace post
