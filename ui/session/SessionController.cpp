#include "ui/session/SessionController.h"

#include "core/run/PlacerRegistry.h"
#include "core/session/SessionFile.h"
#include "core/util/InputError.h"
#include "ui/charts/LearningChart.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/session/RunRecorder.h"
#include "ui/session/SessionAutosave.h"
#include "ui/util/LatestRead.h"

#include <QAction>
#include <QChart>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTimer>

#include <cmath>
#include <exception>
#include <utility>
#include <variant>

namespace post {

SessionController::SessionController(DocumentHub* hub, LearnerPanel* learner, LearningChart* chart, QWidget* window)
    : QObject(window)
    , hub_(hub)
    , learner_(learner)
    , chart_(chart)
    , window_(window)
    , recorder_(new RunRecorder(learner, this))
    , autosave_(new SessionAutosave(this))
    , saveAction_(new QAction(tr("&Save Session"), this))
    , saveAsAction_(new QAction(tr("Save Session &As…"), this))
    , openAction_(new QAction(tr("Open &Session…"), this))
    , read_(std::make_unique<LatestRead<std::shared_ptr<const OpenedSession>>>(this))
{
    saveAction_->setShortcut(QKeySequence::Save);
    saveAction_->setObjectName(QStringLiteral("saveSession"));
    saveAction_->setToolTip(tr("Save the graph, cluster, placement and learning run in one file (the session file "
                               "on show, else a new one)"));
    saveAction_->setEnabled(false);
    saveAsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    saveAsAction_->setObjectName(QStringLiteral("saveSessionAs"));
    saveAsAction_->setToolTip(tr("Save the session in a new file"));
    saveAsAction_->setEnabled(false);
    openAction_->setToolTip(tr("Reopen a saved session"));
    openAction_->setObjectName(QStringLiteral("openSession"));
    connect(saveAction_, &QAction::triggered, this, [this] { saveDialog(false); });
    connect(saveAsAction_, &QAction::triggered, this, [this] { saveDialog(true); });
    connect(openAction_, &QAction::triggered, this, &SessionController::openDialog);
    connect(hub, &DocumentHub::documentChanged, this, [this](const DocumentPtr& doc) {
        saveAction_->setEnabled(doc != nullptr);
        saveAsAction_->setEnabled(doc != nullptr);
        // Another graph: the recorded run is not about it (a new placement of the same graph
        // is). Nor is another cluster of the graph (an edit, the precision, the dispatch rule):
        // the run's times are the old cluster's.
        const bool retimed = doc && doc->graphId == runGraphId_ && hub_->change() == DocumentHub::Change::Cluster;
        if (!doc || doc->graphId != runGraphId_ || retimed) {
            const bool hadRun = recorder_->hasRun();
            if (hadRun)
                forgetRun();
            recorder_->clear();
            if (!restoredDocument_ || !doc || doc->graphId != restoredDocument_->graphId || (retimed && hadRun))
                sessionPath_.clear(); // another document (or a session's without its run): Save asks for a file
        }
    });
    connect(learner, &LearnerPanel::runStarted, this, [this] {
        runGraphId_ = hub_->document() ? hub_->document()->graphId : 0;
        if (learner_->continuedFrom() == 0)
            restoredUnsaved_ = false; // a run of its own: the restored one is gone (asked before Start)
    });
    // Reset forgets the run (asked before, when it was a restored unsaved one).
    connect(learner, &LearnerPanel::resetRequested, this, [this] { forgetRun(); });
    // Start and Reset over a restored run nobody saved ask first (the panel calls this).
    learner->setReplaceGuard([this](bool reset) {
        return !hasRestoredUnsavedRun() || confirmReplace(Replace::NewRun, reset ? tr("Reset") : tr("Start"));
    });
    learner->setStartGuard([this] { return confirmStartWithoutAutosave(); });
    connect(autosave_, &SessionAutosave::failed, this, [this](const QString& message) {
        autosaveFailing_ = true;
        emit autosaveFailed(tr("Autosave failed: %1. The run is not being kept for a crash; File ▸ Save Session "
                               "saves it elsewhere.")
                                .arg(message),
                            false);
    });
    connect(autosave_, &SessionAutosave::written, this, [this] {
        if (std::exchange(autosaveFailing_, false))
            emit autosaveRecovered();
    });
    connect(recorder_, &RunRecorder::changed, this, [this] {
        unsaved_ = true;
        autosaveNow(false);
    });
    connect(recorder_, &RunRecorder::runEnded, this, [this] {
        unsaved_ = true;
        autosaveNow(true);
    });
    const QString interval = qEnvironmentVariable("POST_AUTOSAVE_INTERVAL_MS");
    if (!interval.isEmpty() && interval.toInt() > 0)
        autosave_->setIntervalMs(interval.toInt());
    // After the constructor: main() and tests set up the window (interactive or not) first.
    QTimer::singleShot(0, this, [this] { checkForAutosave(policyFromEnvironment()); });
}

SessionController::~SessionController()
{
    // Gone without an answer to the close question (the application quit, the window was
    // destroyed): an unsaved run stays in the autosave. Without dialogs (tests,
    // --screenshot) there is nobody to ask, and it goes as before.
    autosave_->setKeepOnExit(interactive_ && hasUnsavedRun() && !answered_);
}

void SessionController::setComparison(ComparisonView* view)
{
    comparison_ = view;
    // A finished table goes into the autosave of the run it sits next to.
    connect(view, &ComparisonView::runFinished, this, [this] {
        if (recorder_->hasRun())
            autosaveNow(true);
    });
}

bool SessionController::isOpening() const { return read_->isBusy(); }

void SessionController::cancelOpen() { read_->cancel(); }

SessionController::RestorePolicy SessionController::policyFromEnvironment()
{
    const QString value = qEnvironmentVariable("POST_AUTOSAVE_RESTORE").toLower();
    if (value == QStringLiteral("restore"))
        return RestorePolicy::Restore;
    if (value == QStringLiteral("discard"))
        return RestorePolicy::Discard;
    if (value == QStringLiteral("keep"))
        return RestorePolicy::Keep;
    return RestorePolicy::Ask;
}

bool SessionController::isSessionFile(const QString& path)
{
    if (!QFileInfo(path).isFile()) // a FIFO would block the open; a directory is no session
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(4096);
    return looksLikeSession(std::string_view(head.constData(), static_cast<size_t>(head.size())));
}

Session SessionController::currentSession() const
{
    Session s;
    const DocumentPtr& doc = hub_->document();
    if (!doc)
        return s;
    s.source = (restoredDocument_ && doc->graphId == restoredDocument_->graphId ? source_ : doc->path).toStdString();
    s.graph = doc->graph;
    s.cluster = doc->cluster;
    if (doc->isPlaced())
        s.placement = doc->placement;
    s.dispatch = doc->sim.dispatch;
    if (recorder_->hasRun()) {
        s.dispatch = recorder_->dispatch(); // the rule of the run's times (the window may have another now)
        s.learner = recorder_->learner();
        s.run = recorder_->run();
        s.samples = recorder_->samples();
        s.updates = recorder_->updates();
        s.studio = recorder_->extras();
    } else {
        const LearnerPanel* panel = learner_;
        s.learner = {panel->algorithm().toStdString(), panel->plannedSamples(), panel->seed(), panel->timeLimit()};
    }
    // What the window calls the document (an autosave restores under this name, not its own).
    s.studio.document = doc->path.toStdString();
    if (comparison_)
        s.studio.comparison = comparison_->results(doc->graphId);
    return s;
}

bool SessionController::save(const QString& path)
{
    if (!hub_->document())
        return false;
    try {
        writeSessionFile(path.toStdString(), currentSession());
    } catch (const std::exception& e) {
        emit failed(path, readErrorText(e));
        return false;
    }
    unsaved_ = false;
    restoredUnsaved_ = false;
    sessionPath_ = path;
    emit saved(path);
    return true;
}

void SessionController::forgetRun()
{
    // The run is gone from the window (replaced after the question, or reset): so is its autosave.
    unsaved_ = false;
    restoredUnsaved_ = false;
    autosave_->remove();
}

void SessionController::open(const QString& path)
{
    read_->start(
        [path] {
            auto opened = std::make_shared<OpenedSession>();
            opened->session = std::make_shared<const Session>(readSessionFile(path.toStdString()));
            if (opened->session->graph && opened->session->cluster) {
                SimOptions sim; // the rule the session's step times were timed under
                sim.dispatch = opened->session->dispatch;
                opened->bound = lowerBound(*opened->session->graph, *opened->session->cluster, sim);
            }
            return std::shared_ptr<const OpenedSession>(std::move(opened));
        },
        [this, path](const ReadOutcome<std::shared_ptr<const OpenedSession>>& outcome) {
            if (const auto* opened = std::get_if<std::shared_ptr<const OpenedSession>>(&outcome)) {
                apply(path, *opened);
            } else if (path == autosave_->path()) {
                // An adopted autosave that cannot be restored is removed at exit like
                // any autosave: keep it aside instead, and say where.
                const QString aside = autosave_->setAside();
                emit failed(path,
                            aside.isEmpty()
                                ? std::get<QString>(outcome)
                                : tr("%1 (the autosave is kept as %2)").arg(std::get<QString>(outcome), aside));
            } else {
                emit failed(path, std::get<QString>(outcome));
            }
        });
    emit opening(path); // isOpening() from here on
}

void SessionController::apply(const QString& path, std::shared_ptr<const OpenedSession> opened)
{
    LearnerPanel* panel = learner_;
    if (panel->controller()->isActive()) {
        // Let the running learner end first, so none of its snapshots land on the restored chart.
        auto* once = new QObject(this);
        connect(panel->controller(), &LearnerController::finished, once, [this, once, path, opened] {
            once->deleteLater();
            apply(path, opened);
        });
        panel->controller()->stop();
        return;
    }
    const std::shared_ptr<const Session>& session = opened->session;
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QFileInfo(path).absoluteFilePath();
    const bool isAutosave = QFileInfo(path) == QFileInfo(autosave_->path());
    if (isAutosave) {
        // The autosave's own name means nothing to the user: the window shows the document
        // it was working on (a graph or session file; older autosaves name only the graph).
        const std::string& name = !session->studio.document.empty() ? session->studio.document : session->source;
        if (!name.empty())
            doc->path = QString::fromStdString(name);
    }
    doc->graph = session->graph;
    doc->cluster = session->cluster;
    doc->placement = session->placement;
    doc->sim.dispatch = session->dispatch;
    source_ = QString::fromStdString(session->source);
    restoredDocument_ = doc;
    sessionPath_ = isAutosave ? QString() : doc->path;

    panel->setAlgorithm(QString::fromStdString(session->learner.algorithm));
    panel->setSamples(session->learner.samples);
    panel->setTimeLimit(session->learner.seconds); // after setSamples, which clears it
    panel->setSeed(session->learner.seed);
    hub_->open(doc);
    runGraphId_ = doc->graphId;
    recorder_->restore(*session);
    // A session file holds the run; a crashed instance's autosave (taken over as ours) does not.
    unsaved_ = recorder_->hasRun() && isAutosave;
    restoredUnsaved_ = unsaved_;

    LearningChart* chart = chart_;
    chart->reset(session->learner.samples);
    chart->setTimeLimited(session->learner.seconds > 0.0); // its axis as it was drawn
    panel->setRestoredRun(std::nullopt);
    if (!session->samples.empty() || !session->updates.empty()) {
        const LearnerSnapshot snapshot = RunRecorder::snapshotOf(*session, opened->bound);
        chart->addSnapshot(snapshot);
        double bestMs = snapshot.bestMs;
        if (std::isfinite(session->studio.bestUs) && session->studio.bestUs / 1000.0 < bestMs) {
            bestMs = session->studio.bestUs / 1000.0;
            chart->finishRun(bestMs); // the run's result was a final pick, not a sample
        }
        const std::string& algorithm = session->learner.algorithm;
        chart->setRunTitle(QString::fromStdString(algorithm),
                           placerUsesSampleBudget(algorithm) ? snapshot.samplesDone : 0, true, session->dispatch);
        panel->showRestoredRun(snapshot.samplesDone, std::isfinite(bestMs) ? bestMs : 0.0);
        // Start continues it, warm-started from its best (or the placement on show).
        LearnerPanel::RestoredRun run;
        run.graphId = doc->graphId;
        run.samplesDone = snapshot.samplesDone;
        run.finished = session->run.state == SessionRunState::Done;
        run.dispatch = session->dispatch;
        run.best = !session->studio.best.empty() ? session->studio.best : session->placement;
        run.bestMs = !session->studio.best.empty() ? session->studio.bestUs / 1000.0 : bestMs;
        panel->setRestoredRun(run);
    }
    if (comparison_ && session->studio.comparison)
        comparison_->restoreResults(*session->studio.comparison, doc->graphId, &opened->bound);
    emit restored(path);
}

void SessionController::autosaveNow(bool now)
{
    // Building the session copies the run log: only when it is going to be written.
    if (hub_->document() && (now || autosave_->isDue()))
        autosave_->offer(currentSession(), now);
}

bool SessionController::confirmStartWithoutAutosave()
{
    const QString problem = autosave_->probe();
    if (problem.isEmpty())
        return true;
    const QString warning =
        tr("Nothing of this run can be autosaved: %1. If Post Studio stops unexpectedly, the run is lost.").arg(problem);
    autosaveFailing_ = true;
    if (!interactive_) {
        emit autosaveFailed(warning, false); // said before the run starts
        return true;
    }
    QMessageBox box(QMessageBox::Warning, tr("Post Studio"), tr("Start without an autosave?"),
                    QMessageBox::Yes | QMessageBox::Cancel, window_);
    box.setObjectName(QStringLiteral("noAutosaveQuestion"));
    box.setInformativeText(warning + QLatin1Char(' ')
                           + tr("Free space there, or set POST_AUTOSAVE_DIR to another folder and start again."));
    box.button(QMessageBox::Yes)->setText(tr("Start Anyway"));
    box.setDefaultButton(QMessageBox::Cancel);
    if (box.exec() != QMessageBox::Yes)
        return false;
    emit autosaveFailed(warning, true); // kept in view while the run goes
    return true;
}

void SessionController::reportBlockedOrphan(const SessionAutosave::Orphan& orphan)
{
    const QFileInfo file(orphan.path);
    emit autosaveFailed(
        tr("The autosave of a run that ended unexpectedly (%1, %2) cannot be restored: %3. Free "
           "space there and start Post Studio again to restore it.")
            .arg(QLocale().toString(file.lastModified(), QLocale::ShortFormat), orphan.path, orphan.problem),
        false);
}

void SessionController::checkForAutosave(RestorePolicy policy)
{
    if (policy == RestorePolicy::Keep)
        return;
    QStringList orphans;
    const QList<SessionAutosave::Orphan> found = SessionAutosave::findOrphans();
    for (const SessionAutosave::Orphan& o : found)
        if (o.problem.isEmpty())
            orphans << o.path;
    if (orphans.isEmpty()) {
        // Never silently: an autosave that exists but cannot be taken over is said (the newest).
        for (const SessionAutosave::Orphan& o : found)
            if (!o.problem.isEmpty())
                return reportBlockedOrphan(o);
        return;
    }
    if (policy == RestorePolicy::Ask && !interactive_)
        return;
    const QString orphan = orphans.first();
    auto restore = [this, orphan] {
        if (!confirmReplace(Replace::OpenSession, tr("the autosave"))) // a run made before the answer
            return;
        const QString adopted = autosave_->adopt(orphan);
        if (adopted.isEmpty())
            emit failed(orphan, tr("could not take over the autosave file"));
        else
            open(adopted);
    };
    if (policy == RestorePolicy::Restore)
        return restore();
    if (policy == RestorePolicy::Discard)
        return SessionAutosave::discard(orphan);
    auto* box = new QMessageBox(QMessageBox::Question, tr("Post Studio"), tr("Restore unsaved work?"),
                                QMessageBox::NoButton, window_);
    box->setInformativeText(tr("Post Studio did not close cleanly last time. Its autosave from %1 holds the graph, "
                               "placement and learning run it was working on.")
                                .arg(QLocale().toString(QFileInfo(orphan).lastModified(), QLocale::ShortFormat)));
    box->setDetailedText(orphan);
    QPushButton* restoreButton = box->addButton(tr("Restore"), QMessageBox::AcceptRole);
    QPushButton* discardButton = box->addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box->addButton(tr("Ask Again Later"), QMessageBox::RejectRole);
    box->setDefaultButton(restoreButton);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this,
            [restore, restoreButton, discardButton, orphan](QAbstractButton* button) {
                if (button == restoreButton)
                    restore();
                else if (button == discardButton)
                    SessionAutosave::discard(orphan);
            });
    box->open(); // window-modal, does not block the event loop
}

bool SessionController::hasUnsavedRun() const { return recorder_->hasRun() && unsaved_; }

bool SessionController::wouldAsk() const { return interactive_ && hasUnsavedRun(); }

bool SessionController::confirmClose() { return confirmReplace(Replace::Close); }

bool SessionController::confirmReplace(Replace reason, const QString& what)
{
    if (!interactive_ || !hasUnsavedRun())
        return true;
    QString question;
    QString replacedBy;
    switch (reason) {
    case Replace::Close:
        question = tr("Save the learning run before closing?");
        replacedBy = tr("closing the window ends it");
        break;
    case Replace::Open:
    case Replace::OpenSession:
        question = tr("Save the learning run before opening %1?").arg(what);
        replacedBy = tr("opening %1 replaces it").arg(what);
        break;
    case Replace::CloseDocument:
        question = tr("Save the learning run before closing %1?").arg(what);
        replacedBy = tr("closing the document ends it");
        break;
    case Replace::Reread:
        question = tr("Save the learning run before reading the graph again?");
        replacedBy = tr("reading the graph again (%1) replaces it").arg(what);
        break;
    case Replace::NewRun:
        question = tr("Save the restored learning run first?");
        replacedBy = tr("%1 replaces it").arg(what);
        break;
    case Replace::Retime:
        question = tr("Save the learning run before changing %1?").arg(what);
        replacedBy = tr("its times are of the setting it ran under, so changing %1 clears it").arg(what);
        break;
    }
    QMessageBox box(QMessageBox::Warning, tr("Post Studio"), question,
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, window_);
    box.setObjectName(QStringLiteral("unsavedRunQuestion"));
    // (No %n: without a translation loaded Qt prints "sample(s)".)
    const auto samples = static_cast<qlonglong>(recorder_->samples().size());
    box.setInformativeText(tr("The %1 run (%2 %3) is in no session file; %4. Until you answer, it is kept in the "
                              "autosave.")
                               .arg(QString::fromStdString(recorder_->learner().algorithm), QLocale().toString(samples),
                                    samples == 1 ? tr("sample") : tr("samples"), replacedBy));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save: {
        const QString path = sessionPath_.isEmpty() ? askSavePath() : sessionPath_;
        if (path.isEmpty() || !save(path))
            return false; // nothing saved: nothing replaced, the autosave stays too
        answered_ = reason == Replace::Close;
        return true;
    }
    case QMessageBox::Discard:
        // The autosave goes when the run does (forgetRun): a read that fails replaces nothing.
        answered_ = reason == Replace::Close;
        return true;
    default:
        return false;
    }
}

void SessionController::saveDialog(bool askPath)
{
    const QString path = askPath || sessionPath_.isEmpty() ? askSavePath() : sessionPath_;
    if (!path.isEmpty())
        save(path);
}

QString SessionController::askSavePath()
{
    const DocumentPtr& doc = hub_->document();
    if (!doc)
        return {};
    const QString dir = QSettings().value(QStringLiteral("lastDir")).toString();
    const QString suggested = QDir(dir).filePath(QFileInfo(doc->path).completeBaseName().section(QLatin1Char('.'), 0, 0)
                                                 + QStringLiteral(".session.json"));
    const QString path = QFileDialog::getSaveFileName(window_, tr("Save Session"), suggested,
                                                      tr("Post Studio sessions (*.session.json);;All files (*)"));
    if (!path.isEmpty())
        QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
    return path;
}

void SessionController::openDialog()
{
    const QString dir = QSettings().value(QStringLiteral("lastDir")).toString();
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open Session"), dir,
                                                      tr("Post Studio sessions (*.session.json);;All files (*)"));
    if (!path.isEmpty() && confirmReplace(Replace::OpenSession, QFileInfo(path).fileName()))
        open(path);
}

} // namespace post
