#pragma once

#include "core/session/Session.h"
#include "core/sim/LowerBound.h"
#include "ui/document/GraphDocument.h"
#include "ui/session/SessionAutosave.h"

#include <QObject>
#include <QString>

#include <memory>

class QAction;
class QWidget;

namespace post {

class ComparisonView;
class DocumentHub;
class LearnerPanel;
class LearningChart;
class RunRecorder;
template <class T> class LatestRead;

// Sessions of the hub's document: File ▸ Save Session / Open Session, the run history they
// carry (RunRecorder, fed by the learner panel), autosave during learner runs and the offer
// to restore the autosave of a crashed instance at start-up (SessionAutosave). A restored
// session is shown through the hub, its run on the learning chart.
// A session as read on a worker thread, with the lower bound of its graph on its cluster
// computed there too: the restored chart and comparison name the component that gives the
// bound the file kept (0.2 s on nasnetamobile, off the window's thread).
struct OpenedSession {
    std::shared_ptr<const Session> session;
    LowerBound bound; // zero without a graph and a cluster
};

class SessionController : public QObject {
    Q_OBJECT

public:
    // What to do at start-up with an autosave left by a crash; $POST_AUTOSAVE_RESTORE
    // (restore, discard or keep) overrides Ask, which shows a dialog when interactive
    // (setInteractive) and keeps the file otherwise (tests, --screenshot).
    enum class RestorePolicy { Ask, Restore, Discard, Keep };

    // Dialogs open over `window`, which also owns the controller.
    SessionController(DocumentHub* hub, LearnerPanel* learner, LearningChart* chart, QWidget* window);
    ~SessionController() override;

    // File ▸ Save Session (to the session file on show, else asks for one), Save Session
    // As… (always asks), Open Session….
    QAction* saveAction() const { return saveAction_; }
    QAction* saveAsAction() const { return saveAsAction_; }
    QAction* openAction() const { return openAction_; }
    // The session file the document was last saved to or opened from (empty: none).
    QString sessionPath() const { return sessionPath_; }
    RunRecorder* recorder() const { return recorder_; }
    SessionAutosave* autosave() const { return autosave_; }
    // The Compare tab whose table sessions keep and restore (none: not kept).
    void setComparison(ComparisonView* view);

    // What Save Session would write now (a graph must be open).
    Session currentSession() const;
    // Atomic; false and a reported error when it cannot be written.
    bool save(const QString& path);
    // Reads on a pool thread, then restores graph, cluster, placement, chart and settings;
    // restored() or failed() follows.
    void open(const QString& path);
    bool isOpening() const;
    // Drops the session read in progress (its result is never shown).
    void cancelOpen();

    // Dialogs may be shown (the window's setInteractiveErrors).
    void setInteractive(bool on) { interactive_ = on; }
    // Deals with crashed instances' autosaves as `policy` says (Ask: see RestorePolicy).
    void checkForAutosave(RestorePolicy policy);
    static RestorePolicy policyFromEnvironment(); // Ask when unset or unknown

    // A learning run (or a restored autosave's) that is in no session file yet.
    bool hasUnsavedRun() const;
    // Whether that run came from a crashed instance's autosave (never saved since).
    bool hasRestoredUnsavedRun() const { return hasUnsavedRun() && restoredUnsaved_; }

    // What would take the run away from its document.
    // Retime: the graph on show gets another cluster (the precision, the dispatch rule, an edit
    // in the Cluster dock), under which the run's times no longer hold.
    enum class Replace { Close, Open, OpenSession, CloseDocument, Reread, NewRun, Retime };
    // The one question before anything replaces a document holding an unsaved run (every
    // route: closing the window, File ▸ Open, a drop, Open Recent, Open Session, File ▸
    // Close, reading the graph again on another cluster or batch, another precision, dispatch
    // rule or cluster edit, Start or Reset over a restored run): Save / Discard / Cancel, when dialogs are allowed. True: go ahead
    // (nothing unsaved, saved, or discarded); false: leave everything as it is (Cancel, or
    // the save did not happen). The autosave stays until the run is actually replaced
    // after Save or Discard (a read that then fails replaces nothing and asks again next
    // time); a window that goes without an answer keeps it for the next start to offer.
    // `what` names what replaces the run ("resnet50.onnx"), for the question's text.
    bool confirmReplace(Replace reason, const QString& what = {});
    // Whether confirmReplace would ask now (dialogs allowed and an unsaved run on show).
    bool wouldAsk() const;
    // confirmReplace(Replace::Close): before the window closes.
    bool confirmClose();

    // Cheap sniff used by MainWindow::openFile: does the file start like a session?
    static bool isSessionFile(const QString& path);

signals:
    // A session read has started (restore() or open()): the window shows it as busy.
    void opening(const QString& path);
    void restored(const QString& path);
    void saved(const QString& path);
    void failed(const QString& path, const QString& message);
    // The autosave cannot keep the run (a write failed, nothing can be written before a run,
    // a crashed instance's autosave cannot be taken over): a sentence for the window. `asked`:
    // the user has just answered a question about it (Start Anyway), no box is needed.
    void autosaveFailed(const QString& message, bool asked);
    // A write went through after a failure: the warning can go.
    void autosaveRecovered();

private:
    void apply(const QString& path, std::shared_ptr<const OpenedSession> opened);
    void autosaveNow(bool now);
    void saveDialog(bool askPath);
    void forgetRun();      // the recorded run was replaced: its autosave goes
    QString askSavePath(); // empty when the user cancels
    void openDialog();
    bool confirmStartWithoutAutosave();                              // the learner's start guard
    void reportBlockedOrphan(const SessionAutosave::Orphan& orphan); // one nobody can take over

    DocumentHub* hub_;
    LearnerPanel* learner_;
    LearningChart* chart_;
    QWidget* window_;
    ComparisonView* comparison_ = nullptr;
    bool interactive_ = true;
    bool unsaved_ = false;         // the recorded run changed since it was last saved or opened
    bool answered_ = false;        // the close question was answered Save or Discard
    bool restoredUnsaved_ = false; // the recorded run is a crashed instance's autosave, never saved
    bool autosaveFailing_ = false; // the last write failed (autosaveRecovered after the next success)
    RunRecorder* recorder_;
    SessionAutosave* autosave_;
    QAction* saveAction_;
    QAction* saveAsAction_;
    QAction* openAction_;
    QString sessionPath_;
    QString source_; // the graph file behind a restored session
    DocumentPtr restoredDocument_;
    std::uint64_t runGraphId_ = 0;                                           // the graph the recorded run belongs to
    std::unique_ptr<LatestRead<std::shared_ptr<const OpenedSession>>> read_; // QtConcurrent stays out of this header
};

} // namespace post
