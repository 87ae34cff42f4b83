#include "learn/LearnerPanel.h"

#include "place/PlacerRegistry.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace post {

LearnerPanel::LearnerPanel(QWidget* parent)
    : QWidget(parent)
    , controller_(new LearnerController(this))
    , algorithm_(new QComboBox(this))
    , samples_(new QSpinBox(this))
    , seed_(new QSpinBox(this))
    , startButton_(new QPushButton(tr("Start"), this))
    , pauseButton_(new QPushButton(tr("Pause"), this))
    , resumeButton_(new QPushButton(tr("Resume"), this))
    , stopButton_(new QPushButton(tr("Stop"), this))
    , resetButton_(new QPushButton(tr("Reset"), this))
    , status_(new QLabel(this))
{
    for (const std::string& name : placerNames())
        algorithm_->addItem(QString::fromStdString(name));
    setAlgorithm(QStringLiteral("post"));
    samples_->setRange(1, 1000000);
    samples_->setSingleStep(100);
    samples_->setValue(2400);
    seed_->setRange(0, 1000000000);
    seed_->setValue(1);
    algorithm_->setObjectName(QStringLiteral("algorithm"));
    samples_->setObjectName(QStringLiteral("samples"));
    seed_->setObjectName(QStringLiteral("seed"));
    startButton_->setObjectName(QStringLiteral("start"));
    pauseButton_->setObjectName(QStringLiteral("pause"));
    resumeButton_->setObjectName(QStringLiteral("resume"));
    stopButton_->setObjectName(QStringLiteral("stop"));
    resetButton_->setObjectName(QStringLiteral("reset"));
    status_->setObjectName(QStringLiteral("status"));
    status_->setWordWrap(true);

    auto* form = new QFormLayout;
    form->addRow(tr("Algorithm"), algorithm_);
    form->addRow(tr("Samples"), samples_);
    form->addRow(tr("Seed"), seed_);
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
    layout->addStretch(1);

    connect(startButton_, &QPushButton::clicked, this, &LearnerPanel::start);
    connect(pauseButton_, &QPushButton::clicked, controller_, &LearnerController::pause);
    connect(resumeButton_, &QPushButton::clicked, controller_, &LearnerController::resume);
    connect(stopButton_, &QPushButton::clicked, controller_, &LearnerController::stop);
    connect(resetButton_, &QPushButton::clicked, this, &LearnerPanel::reset);
    connect(controller_, &LearnerController::snapshot, this, &LearnerPanel::onSnapshot);
    connect(controller_, &LearnerController::finished, this, &LearnerPanel::onFinished);
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

void LearnerPanel::setAlgorithm(const QString& name)
{
    const int index = algorithm_->findText(name);
    if (index >= 0)
        algorithm_->setCurrentIndex(index);
}

void LearnerPanel::setSamples(int samples) { samples_->setValue(samples); }

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

void LearnerPanel::setDocument(DocumentPtr document)
{
    // A new placement of the same graph (our own best, say) keeps the run going.
    if (controller_->isActive() && (!document || document->graph != runGraph_))
        controller_->stop();
    document_ = std::move(document);
    updateButtons();
}

void LearnerPanel::start()
{
    if (!document_ || !document_->graph || !document_->cluster)
        return;
    LearnerRequest request;
    request.document = document_;
    request.algorithm = algorithm_->currentText().toStdString();
    request.samples = samples_->value();
    request.seed = static_cast<std::uint64_t>(seed_->value());
    runGraph_ = document_->graph;
    samplesDone_ = 0;
    bestMs_ = 0.0;
    entropy_ = -1.0;
    haveData_ = true;
    emit runStarted(request.samples);
    controller_->start(std::move(request));
}

void LearnerPanel::reset()
{
    if (controller_->isActive())
        return;
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
    samplesDone_ = snapshot.samplesDone;
    if (std::isfinite(snapshot.bestMs))
        bestMs_ = snapshot.bestMs;
    if (!snapshot.updates.empty())
        entropy_ = snapshot.updates.back().entropy;
    emit this->snapshot(snapshot);
    if (!snapshot.bestPlacement.empty() && document_ && document_->graph == runGraph_)
        emit bestPlacement(snapshot.bestPlacement);
    showStatus(controller_->state() == LearnerController::State::Paused ? tr("Paused") : tr("Running"));
}

void LearnerPanel::onFinished(const LearnerOutcome& outcome)
{
    updateButtons();
    if (!outcome.error.isEmpty()) {
        status_->setText(tr("%1 failed: %2").arg(outcome.algorithm, outcome.error));
        emit finished(outcome);
        return;
    }
    const PlaceResult& r = outcome.result;
    samplesDone_ = std::max(samplesDone_, r.samplesUsed);
    if (r.feasible)
        bestMs_ = r.bestStepTimeUs / 1000.0;
    if (!r.best.empty() && document_ && document_->graph == runGraph_)
        emit bestPlacement(r.best);
    showStatus(r.stopped ? tr("Stopped") : tr("Done in %1 s").arg(r.wallSeconds, 0, 'f', 2));
    if (!r.feasible)
        status_->setText(status_->text() + tr("; no placement fits in memory"));
    emit finished(outcome);
}

void LearnerPanel::showStatus(const QString& prefix)
{
    QString text = tr("%1: %2 samples").arg(prefix).arg(samplesDone_);
    if (bestMs_ > 0.0)
        text += tr(", best %1 ms").arg(bestMs_, 0, 'g', 4);
    if (entropy_ >= 0.0)
        text += tr(", entropy %1").arg(entropy_, 0, 'f', 2);
    status_->setText(text);
}

void LearnerPanel::updateButtons()
{
    const auto state = controller_->state();
    const bool idle = state == LearnerController::State::Idle;
    const bool canRun = document_ && document_->graph && document_->cluster;
    startButton_->setEnabled(idle && canRun);
    pauseButton_->setEnabled(state == LearnerController::State::Running);
    resumeButton_->setEnabled(state == LearnerController::State::Paused);
    stopButton_->setEnabled(!idle);
    resetButton_->setEnabled(idle && haveData_);
    algorithm_->setEnabled(idle);
    samples_->setEnabled(idle);
    seed_->setEnabled(idle);
}

} // namespace post
