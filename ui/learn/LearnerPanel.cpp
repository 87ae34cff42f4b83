#include "ui/learn/LearnerPanel.h"

#include "core/classic/ClassicalPlacers.h"
#include "core/graph/Placement.h"
#include "core/io/native/ClusterPresets.h"
#include "core/run/PlacerRegistry.h"
#include "core/run/WarmStartName.h"
#include "ui/learn/LearnerOptionsEditor.h"
#include "ui/learn/SamplePlacements.h"
#include "ui/util/Format.h"
#include "ui/util/TimeLimitBox.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QSignalBlocker>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHash>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace post {

LearnerPanel::LearnerPanel(QWidget* parent)
    : QWidget(parent)
    , controller_(new LearnerController(this))
    , algorithm_(new QComboBox(this))
    , cluster_(new QComboBox(this))
    , precision_(new QComboBox(this))
    , dispatch_(new QComboBox(this))
    , fromShown_(new QCheckBox(tr("From the shown placement"), this))
    , options_(new LearnerOptionsEditor(this))
    , optionsToggle_(new QToolButton(this))
    , samples_(new QSpinBox(this))
    , time_(new QDoubleSpinBox(this))
    , seed_(new QSpinBox(this))
    , startButton_(new QPushButton(tr("Start"), this))
    , pauseButton_(new QPushButton(tr("Pause"), this))
    , resumeButton_(new QPushButton(tr("Resume"), this))
    , stopButton_(new QPushButton(tr("Stop"), this))
    , resetButton_(new QPushButton(tr("Reset"), this))
    , status_(new QLabel(this))
{
    fillAlgorithms();
    setAlgorithm(QStringLiteral("post@best"));
    for (const std::string& name : clusterPresetNames())
        cluster_->addItem(QString::fromStdString(name), QString::fromStdString(name));
    cluster_->insertSeparator(cluster_->count());
    cluster_->addItem(tr("Open cluster file…"));
    cluster_->setObjectName(QStringLiteral("cluster"));
    cluster_->setToolTip(tr("The devices and links to place on (the same choice as File ▸ Cluster)"));
    connect(cluster_, &QComboBox::activated, this, &LearnerPanel::chooseCluster);
    for (const PrecisionMode mode :
         {PrecisionMode::Fp32, PrecisionMode::Tf32, PrecisionMode::Pytorch, PrecisionMode::Amp}) {
        precision_->addItem(precisionName(mode), static_cast<int>(mode));
        precision_->setItemData(precision_->count() - 1, describePrecision(mode), Qt::ToolTipRole);
    }
    precision_->setObjectName(QStringLiteral("precision"));
    precision_->setToolTip(tr("How FP32 matrix products and convolutions run on the cluster's GPUs (post-cli "
                              "--precision); the step is timed again at once"));
    setPrecision(PrecisionMode::Tf32);
    connect(precision_, &QComboBox::activated, this, [this](int index) {
        emit precisionChosen(static_cast<PrecisionMode>(precision_->itemData(index).toInt()));
    });
    dispatch_->addItem(tr("ready order"), static_cast<int>(Dispatch::ReadyOrder));
    dispatch_->setItemData(0,
                           tr("Each device starts the op that became ready first, as TensorFlow's executor does "
                              "(the default)"),
                           Qt::ToolTipRole);
    dispatch_->addItem(tr("critical path"), static_cast<int>(Dispatch::CriticalPath));
    dispatch_->setItemData(1,
                           tr("Each device starts the ready op with the longest path to the end of the step, as a "
                              "static list scheduler (XLA, or a graph with control edges in that order) runs them"),
                           Qt::ToolTipRole);
    dispatch_->setObjectName(QStringLiteral("dispatch"));
    dispatch_->setToolTip(tr("Which ready op a device runs next (post-cli --dispatch): every step time in the window "
                             "assumes it, and the step is timed again at once. The lower bound holds for both."));
    connect(dispatch_, &QComboBox::activated, this,
            [this](int index) { emit dispatchChosen(static_cast<Dispatch>(dispatch_->itemData(index).toInt())); });
    optionsToggle_->setObjectName(QStringLiteral("hyperparameters"));
    optionsToggle_->setText(tr("Hyperparameters"));
    optionsToggle_->setToolTip(tr("The learners' constants (post-cli --set KEY=VALUE)"));
    optionsToggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    optionsToggle_->setArrowType(Qt::RightArrow);
    optionsToggle_->setAutoRaise(true);
    optionsToggle_->setCheckable(true); // folded: most runs keep the defaults
    options_->setVisible(false);
    connect(optionsToggle_, &QToolButton::toggled, this, [this](bool open) {
        optionsToggle_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        options_->setVisible(open);
    });
    connect(options_, &LearnerOptionsEditor::validityChanged, this, &LearnerPanel::updateButtons);
    samples_->setRange(1, kMaxSamples);
    samples_->setSingleStep(100);
    samples_->setValue(2400);
    // The default budget: whichever of 2,400 samples and 2 s ends first (docs/learners.md).
    setUpTimeLimitBox(time_, 2.0);
    time_->setObjectName(QStringLiteral("time"));
    time_->setToolTip(tr("Wall-time budget of the run (post-cli --time); the run ends at whichever of samples and "
                         "time ends first. The chart's reference lines (lower bound, single GPU, classical placers) "
                         "are computed first and count in it (seconds on graphs of thousands of ops); the placer gets "
                         "what is left, at least a tenth."));
    fromShown_->setObjectName(QStringLiteral("fromShown"));
    fromShown_->setToolTip(tr("Start from the placement on show (post-cli place --start): post@best and local-search "
                              "take it as one more start beside the classical placers, a learner starts its policy on "
                              "it. The run never ends slower than it."));
    connect(algorithm_, &QComboBox::currentIndexChanged, this, &LearnerPanel::updateButtons);
    seed_->setRange(0, 1000000000);
    seed_->setValue(1);
    algorithm_->setObjectName(QStringLiteral("algorithm"));
    samples_->setObjectName(QStringLiteral("samples"));
    seed_->setObjectName(QStringLiteral("seed"));
    startButton_->setObjectName(QStringLiteral("start"));
    pauseButton_->setObjectName(QStringLiteral("pause"));
    resumeButton_->setObjectName(QStringLiteral("resume"));
    stopButton_->setObjectName(QStringLiteral("stop"));
    // The keys are the main window's Run menu (F5, F6, Shift+F6, F7), named in the tooltips.
    pauseButton_->setToolTip(tr("Pause the run (F6)"));
    resumeButton_->setToolTip(tr("Resume the paused run (Shift+F6)"));
    stopButton_->setToolTip(tr("Stop the run, keeping its best so far (F7)"));
    resetButton_->setObjectName(QStringLiteral("reset"));
    status_->setObjectName(QStringLiteral("status"));
    status_->setWordWrap(true);

    buildLayout();

    connect(startButton_, &QPushButton::clicked, this, &LearnerPanel::start);
    connect(pauseButton_, &QPushButton::clicked, controller_, &LearnerController::pause);
    connect(resumeButton_, &QPushButton::clicked, controller_, &LearnerController::resume);
    connect(stopButton_, &QPushButton::clicked, controller_, &LearnerController::stop);
    connect(resetButton_, &QPushButton::clicked, this, &LearnerPanel::reset);
    connect(controller_, &LearnerController::snapshot, this, &LearnerPanel::onSnapshot);
    connect(controller_, &LearnerController::finished, this, &LearnerPanel::onFinished);
    connect(controller_, &LearnerController::preparing, this, [this](const QString& what) {
        preparing_ = !what.isEmpty(); // the reference lines cannot pause: Pause waits for the placer
        updateButtons();
        if (what.isEmpty()) {
            showStatus(tr("Running"));
        } else {
            status_->setText(tr("Preparing: %1…").arg(what));
        }
        emit preparing(what);
    });
    connect(controller_, &LearnerController::stateChanged, this, [this](LearnerController::State state) {
        if (state == LearnerController::State::Paused)
            showStatus(tr("Paused"));
        else if (state == LearnerController::State::Running)
            showStatus(tr("Running"));
        updateButtons();
    });
    status_->setText(tr("Open a graph, then Start."));
    updateButtons();
}

void LearnerPanel::fillAlgorithms()
{
    // The placer table's order (learners, post@best, local-search, classical), with
    // LEARNER@PLACER for each memory-aware classical placer after post@best.
    QStringList names;
    for (const std::string& name : placerNames()) {
        names << QString::fromStdString(name);
        if (name == "post@best") // then post from each placer post@best may start from
            for (const std::string& starter : warmStartCandidates())
                names << QStringLiteral("post@") + QString::fromStdString(starter);
    }
    QString previousKind;
    for (const QString& name : names) {
        const QString kind = splitWarmStartName(name.toStdString()) ? QStringLiteral("warm")
            : placerUsesSeed(name.toStdString())                    ? QStringLiteral("learner")
                                                                    : QStringLiteral("deterministic");
        if (!previousKind.isEmpty() && kind != previousKind)
            algorithm_->insertSeparator(algorithm_->count());
        previousKind = kind;
        algorithm_->addItem(name);
        algorithm_->setItemData(algorithm_->count() - 1, describeAlgorithm(name), Qt::ToolTipRole);
    }
}

void LearnerPanel::buildLayout()
{
    auto* form = new QFormLayout;
    form->addRow(tr("Cluster"), cluster_);
    form->addRow(tr("Precision"), precision_);
    form->addRow(tr("Dispatch"), dispatch_);
    form->addRow(tr("Algorithm"), algorithm_);
    form->addRow(tr("Samples"), samples_);
    form->addRow(tr("Time limit"), time_);
    form->addRow(tr("Seed"), seed_);
    form->addRow(QString(), fromShown_);
    auto* buttons = new QGridLayout;
    buttons->addWidget(startButton_, 0, 0);
    buttons->addWidget(stopButton_, 0, 1);
    buttons->addWidget(pauseButton_, 1, 0);
    buttons->addWidget(resumeButton_, 1, 1);
    buttons->addWidget(resetButton_, 2, 0, 1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addWidget(optionsToggle_);
    layout->addWidget(options_);
    layout->addStretch(1);
}

void LearnerPanel::setAlgorithm(const QString& name)
{
    const int index = algorithm_->findText(name);
    if (index >= 0)
        algorithm_->setCurrentIndex(index);
}

QString LearnerPanel::describeAlgorithm(const QString& name)
{
    // The placer table's own line (core/run/PlacerRegistry), also for LEARNER@PLACER.
    return QString::fromStdString(placerDescription(name.toStdString()));
}

void LearnerPanel::setClusterName(const QString& nameOrPath)
{
    const QSignalBlocker block(cluster_);
    int index = cluster_->findData(nameOrPath);
    if (index < 0) {
        // A file (or an edited cluster): listed before the separator of the file entry.
        index = cluster_->count() - 2;
        const QString label = QFileInfo::exists(nameOrPath) ? QFileInfo(nameOrPath).fileName() : nameOrPath;
        cluster_->insertItem(index, label, nameOrPath);
        cluster_->setItemData(index, nameOrPath, Qt::ToolTipRole);
    }
    cluster_->setCurrentIndex(index);
}

void LearnerPanel::setPrecision(PrecisionMode mode)
{
    const QSignalBlocker block(precision_);
    precision_->setCurrentIndex(precision_->findData(static_cast<int>(mode)));
}

void LearnerPanel::setDispatch(Dispatch dispatch)
{
    const QSignalBlocker block(dispatch_);
    dispatch_->setCurrentIndex(dispatch_->findData(static_cast<int>(dispatch)));
}

Dispatch LearnerPanel::dispatch() const { return static_cast<Dispatch>(dispatch_->currentData().toInt()); }

PrecisionMode LearnerPanel::precision() const { return static_cast<PrecisionMode>(precision_->currentData().toInt()); }

void LearnerPanel::chooseCluster(int index)
{
    QString choice = cluster_->itemData(index).toString();
    if (index == cluster_->count() - 1) {
        choice = QFileDialog::getOpenFileName(this, tr("Open Cluster"), QString(),
                                              tr("Clusters (*.json);;All files (*)"));
        if (choice.isEmpty()) {
            // Back to what is in use.
            if (document_ && document_->cluster)
                setClusterName(QString::fromStdString(document_->cluster->name()));
            return;
        }
        setClusterName(choice);
    }
    if (!choice.isEmpty())
        emit clusterChosen(choice);
}

void LearnerPanel::showOptions(bool show) { optionsToggle_->setChecked(show); }

Placement LearnerPanel::samplePlacement(int index, int* shownIndex) const
{
    if (shownIndex)
        *shownIndex = -1;
    if (!samplePlacements_)
        return {};
    const int kept = samplePlacements_->nearestKept(index);
    if (kept < 0)
        return {};
    if (shownIndex)
        *shownIndex = kept;
    return samplePlacements_->placement(kept);
}

void LearnerPanel::setSamples(int samples)
{
    samples_->setValue(samples);
    time_->setValue(0.0);
}

void LearnerPanel::setTimeLimit(double seconds) { time_->setValue(seconds); }

double LearnerPanel::timeLimit() const { return time_->value(); }

QString LearnerPanel::algorithm() const { return algorithm_->currentText(); }

int LearnerPanel::plannedSamples() const { return samples_->value(); }

std::uint64_t LearnerPanel::seed() const { return static_cast<std::uint64_t>(seed_->value()); }

void LearnerPanel::setSeed(std::uint64_t seed)
{
    seed_->setValue(static_cast<int>(std::min<std::uint64_t>(seed, static_cast<std::uint64_t>(seed_->maximum()))));
}

void LearnerPanel::showRestoredRun(int samplesDone, double bestMs)
{
    if (controller_->isActive())
        return;
    samplesDone_ = samplesDone;
    bestMs_ = bestMs;
    entropy_ = -1.0;
    haveData_ = samplesDone > 0;
    showStatus(tr("Restored"));
    updateButtons();
}

void LearnerPanel::setRestoredRun(std::optional<RestoredRun> run) { restored_ = std::move(run); }

QString LearnerPanel::continuationLearner(const QString& algorithm)
{
    const std::string name = algorithm.toStdString();
    if (const PlacerInfo* row = findPlacer(name); row && row->kind == PlacerKind::Learner)
        return algorithm;
    const auto split = splitWarmStartName(name);
    if (!split)
        return {};
    const std::string learner(split->learner);
    for (const std::string& known : learnerNames())
        if (known == learner)
            return QString::fromStdString(learner);
    return {};
}

void LearnerPanel::setDocument(DocumentPtr document)
{
    const bool anotherGraph = !document || document->graphId != runGraphId_;
    // The same graph on another cluster (an edit, the precision, the dispatch rule: each a
    // cluster of its own) is timed otherwise: the run's times are the old cluster's, as if
    // the graph had been read again on it.
    const bool anotherCluster = document && document_ && document->graphId == document_->graphId
        && document->cluster != document_->cluster;
    // A new placement of the same graph (our own best, say) keeps the run going.
    if (controller_->isActive() && (anotherGraph || anotherCluster))
        controller_->stop();
    if (restored_
        && (!document || document->graphId != restored_->graphId || document->sim.dispatch != restored_->dispatch
            || anotherCluster))
        restored_.reset();
    // The status line is about the run's graph: another graph's shows no run's figures.
    if ((anotherGraph && (!document_ || !document || document_->graphId != document->graphId)) || anotherCluster)
        forgetRunData();
    document_ = std::move(document);
    if (document_ && document_->cluster)
        setPrecision(document_->cluster->precision());
    if (document_)
        setDispatch(document_->sim.dispatch);
    if (!haveData_) // (a run of another graph being stopped shows nothing of itself)
        status_->setText(readyText());
    updateButtons();
}

void LearnerPanel::forgetRunData()
{
    samplesDone_ = 0;
    bestMs_ = 0.0;
    entropy_ = -1.0;
    haveData_ = false;
    continuedFrom_ = 0;
    continuationNote_.clear();
    runStart_.clear();
}

QString LearnerPanel::statusText() const { return status_->text(); }

bool LearnerPanel::showsRun() const
{
    return document_ && document_->graphId == runGraphId_ && document_->cluster == runCluster_;
}

QString LearnerPanel::readyText() const
{
    if (!document_)
        return tr("Open a graph, then Start.");
    return document_->cannotRun.isEmpty() ? tr("Ready.") : document_->cannotRun; // as post-cli refuses it
}

void LearnerPanel::start()
{
    if (!document_ || !document_->graph || !document_->cluster || !document_->cannotRun.isEmpty())
        return;
    const bool continues = restored_ && restored_->graphId == document_->graphId && restored_->samplesDone > 0
        && !continuationLearner(algorithm()).isEmpty();
    if (!continues && replaceGuard_ && !replaceGuard_(false))
        return;
    if (startGuard_ && !startGuard_())
        return;
    const bool fromShown = fromShown_->isEnabled() && fromShown_->isChecked();
    if (fromShown) // what a search may start from, as post-cli place --start checks its file
        if (const auto problem = placementProblem(*document_->graph, *document_->cluster, document_->placement)) {
            status_->setText(tr("The shown placement cannot be a start: %1").arg(QString::fromStdString(*problem)));
            return;
        }
    LearnerRequest request;
    request.document = document_;
    request.algorithm = algorithm_->currentText().toStdString();
    request.samples = samples_->value();
    request.seconds = time_->value();
    request.seed = static_cast<std::uint64_t>(seed_->value());
    request.options = options_->options();
    samplePlacements_ = std::make_shared<SamplePlacements>();
    request.samplePlacements = samplePlacements_;
    runGraphId_ = document_->graphId;
    runCluster_ = document_->cluster;
    int planned = request.samples;
    continuedFrom_ = 0;
    continuationNote_.clear();
    runStart_.clear();
    const QString learner = restored_ ? continuationLearner(algorithm()) : QString();
    if (restored_ && restored_->graphId == document_->graphId && restored_->samplesDone > 0 && !learner.isEmpty()) {
        const int done = restored_->samplesDone;
        const int more = !restored_->finished && planned > done ? planned - done : planned;
        request.algorithm = learner.toStdString();
        request.samples = more;
        request.sampleOffset = done;
        request.seed += static_cast<std::uint64_t>(done); // not the restored samples' random draws again
        request.classicalReference = false;               // the restored reference lines stay
        const bool warm = restored_->best.size() == static_cast<size_t>(document_->opCount());
        if (warm)
            request.options.warmStart = restored_->best;
        if (std::isfinite(restored_->bestMs))
            request.bestBeforeMs = restored_->bestMs;
        planned = done + more;
        continuedFrom_ = done;
        continuationNote_ = warm ? tr("Continued %1 from sample %2: %3 warm-started from the best (%4)")
                                       .arg(algorithm())
                                       .arg(done)
                                       .arg(learner)
                                       .arg(formatMilliseconds(restored_->bestMs))
                                 : tr("Continued %1 from sample %2: %3 from scratch (no placement to warm-start from)")
                                       .arg(algorithm())
                                       .arg(done)
                                       .arg(learner);
    } else {
        samplesDone_ = 0;
        bestMs_ = 0.0;
        if (fromShown) {
            runStart_ = document_->placement;
            request.start = runStart_;
            continuationNote_ = tr("%1 started from the shown placement").arg(algorithm());
        }
    }
    restored_.reset();
    entropy_ = -1.0;
    haveData_ = true;
    // A sample count is a budget only for the searches that stop at one (not milp, not a
    // classical placer): the chart's title and axis then say what the run simulated.
    emit runStarted(placerUsesSampleBudget(request.algorithm) ? planned : 0);
    controller_->start(std::move(request));
}

void LearnerPanel::reset()
{
    if (controller_->isActive() || (replaceGuard_ && !replaceGuard_(true)))
        return;
    restored_.reset();
    samplesDone_ = 0;
    bestMs_ = 0.0;
    entropy_ = -1.0;
    haveData_ = false;
    status_->setText(tr("Ready."));
    emit resetRequested();
    updateButtons();
}

void LearnerPanel::onSnapshot(const LearnerSnapshot& snapshot)
{
    if (!showsRun())
        return; // a stopped run of another graph or cluster: its last points belong to no panel now
    samplesDone_ = snapshot.samplesDone;
    if (std::isfinite(snapshot.bestMs))
        bestMs_ = snapshot.bestMs;
    if (!snapshot.updates.empty())
        entropy_ = snapshot.updates.back().entropy;
    emit this->snapshot(snapshot);
    if (!snapshot.bestPlacement.empty() && showsRun())
        emit bestPlacement(snapshot.bestPlacement);
    showStatus(controller_->state() == LearnerController::State::Paused ? tr("Paused") : tr("Running"));
}

void LearnerPanel::onFinished(const LearnerOutcome& outcome)
{
    preparing_ = false;
    updateButtons();
    if (!showsRun()) {
        // Stopped because another graph or cluster came: nothing of it is shown (listeners
        // check runGraphId and runCluster).
        status_->setText(readyText());
        emit finished(outcome);
        return;
    }
    if (!outcome.error.isEmpty()) {
        status_->setText(tr("%1 failed: %2").arg(outcome.algorithm, outcome.error));
        emit finished(outcome);
        return;
    }
    const PlaceResult& r = outcome.result;
    samplesDone_ = std::max(samplesDone_, r.samplesUsed);
    // A continued run reports its own best; the restored one may still be better.
    const bool better = continuedFrom_ == 0 || bestMs_ <= 0.0 || r.bestStepTimeUs / 1000.0 < bestMs_;
    if (r.feasible && better)
        bestMs_ = r.bestStepTimeUs / 1000.0;
    if (better && !r.best.empty() && showsRun())
        emit bestPlacement(r.best);
    // The run's whole time: the reference lines, then the placer (the time limit covers both).
    showStatus(r.stopped ? tr("Stopped") : tr("Done in %1 s").arg(outcome.referenceSeconds + r.wallSeconds, 0, 'f', 2));
    if (outcome.referenceSeconds >= 0.1)
        status_->setText(status_->text()
                         + tr(" (%1 s of it computing the reference lines)").arg(outcome.referenceSeconds, 0, 'f', 1));
    if (!r.feasible)
        status_->setText(status_->text() + tr("; no placement fits in memory"));
    emit finished(outcome);
}

void LearnerPanel::showStatus(const QString& prefix)
{
    QString text = tr("%1: %2 %3").arg(prefix).arg(samplesDone_).arg(samplesDone_ == 1 ? tr("sample") : tr("samples"));
    if (bestMs_ > 0.0)
        text += tr(", best %1").arg(formatMilliseconds(bestMs_));
    if (entropy_ >= 0.0)
        text += tr(", entropy %1").arg(entropy_, 0, 'f', 2);
    if (!runStart_.empty())
        text += tr(", from the shown placement");
    status_->setText(text);
}

void LearnerPanel::updateButtons()
{
    const auto state = controller_->state();
    const bool idle = state == LearnerController::State::Idle;
    const bool canRun = document_ && document_->graph && document_->cluster && document_->cannotRun.isEmpty();
    startButton_->setEnabled(idle && canRun && options_->isValid());
    startButton_->setToolTip(document_ && !document_->cannotRun.isEmpty() ? document_->cannotRun
                                 : options_->isValid()                    ? tr("Start a run (F5)")
                                                                          : tr("A hyperparameter is not valid"));
    pauseButton_->setEnabled(state == LearnerController::State::Running && !preparing_);
    resumeButton_->setEnabled(state == LearnerController::State::Paused);
    stopButton_->setEnabled(!idle);
    resetButton_->setEnabled(idle && haveData_);
    algorithm_->setEnabled(idle);
    samples_->setEnabled(idle);
    time_->setEnabled(idle);
    seed_->setEnabled(idle);
    cluster_->setEnabled(idle);
    precision_->setEnabled(idle);
    dispatch_->setEnabled(idle);
    options_->setEnabled(idle);
    const bool shown = document_ && document_->graph
        && document_->placement.size() == static_cast<size_t>(document_->graph->opCount());
    fromShown_->setEnabled(idle && shown && placerStartUse(algorithm_->currentText().toStdString()) != StartUse::None);
}

} // namespace post
