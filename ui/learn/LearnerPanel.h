#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/learn/LearnerController.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QDoubleSpinBox;
class QSpinBox;
class QToolButton;

namespace post {

// Runs a learner (or classical placer) on the open document: algorithm, budget and seed,
// Start / Pause / Resume / Stop / Reset, and a status line. Reports the best placement
// as it improves (bestPlacement) and every snapshot for the chart.
class LearnerOptionsEditor;
class SamplePlacements;

class LearnerPanel : public QWidget {
    Q_OBJECT

public:
    explicit LearnerPanel(QWidget* parent = nullptr);

    LearnerController* controller() const { return controller_; }
    void setAlgorithm(const QString& name); // unknown names are ignored
    // An equal-sample budget (sessions, --samples, tests): also clears the time limit.
    void setSamples(int samples);
    // The time limit in seconds (0: none).
    void setTimeLimit(double seconds);
    double timeLimit() const;
    QString algorithm() const;
    int samplesDone() const { return samplesDone_; }
    // The best step time the status line reports (ms; 0 before any).
    double bestMs() const { return bestMs_; }
    int plannedSamples() const;
    std::uint64_t seed() const;
    void setSeed(std::uint64_t seed);
    // A restored session: its settings, and its run's progress in the status line.
    void showRestoredRun(int samplesDone, double bestMs);
    LearnerOptionsEditor* optionsEditor() const { return options_; }
    // Unfolds (or folds) the hyperparameters.
    void showOptions(bool show);
    QComboBox* clusterPicker() const { return cluster_; }
    // Shows `nameOrPath` (a preset or a post-cluster file) as the chosen cluster without
    // emitting clusterChosen (the window calls it when its cluster changes).
    void setClusterName(const QString& nameOrPath);
    // The placement of sample `index` of the latest run, or of the nearest one kept
    // (`shownIndex` says which); empty when none is kept.
    Placement samplePlacement(int index, int* shownIndex = nullptr) const;
    const std::shared_ptr<SamplePlacements>& samplePlacements() const { return samplePlacements_; }
    // One line per algorithm of the picker (tooltips).
    static QString describeAlgorithm(const QString& name);

public slots:
    void setDocument(post::DocumentPtr document);
    void start();
    void reset();

signals:
    void runStarted(int plannedSamples);
    void snapshot(const post::LearnerSnapshot& snapshot);
    void bestPlacement(const post::Placement& placement);
    void finished(const post::LearnerOutcome& outcome);
    void resetRequested();
    // The user picked a preset or a cluster file in the picker.
    void clusterChosen(const QString& nameOrPath);

private:
    void onSnapshot(const post::LearnerSnapshot& snapshot);
    void onFinished(const post::LearnerOutcome& outcome);
    void updateButtons();
    void showStatus(const QString& prefix);

    LearnerController* controller_;
    DocumentPtr document_;
    std::uint64_t runGraphId_ = 0; // GraphDocument::graphId of the run's graph
    void chooseCluster(int index);

    QComboBox* algorithm_;
    QComboBox* cluster_;
    LearnerOptionsEditor* options_;
    QToolButton* optionsToggle_;
    std::shared_ptr<SamplePlacements> samplePlacements_;
    QSpinBox* samples_;
    QDoubleSpinBox* time_;
    QSpinBox* seed_;
    QPushButton* startButton_;
    QPushButton* pauseButton_;
    QPushButton* resumeButton_;
    QPushButton* stopButton_;
    QPushButton* resetButton_;
    QLabel* status_;
    int samplesDone_ = 0;
    double bestMs_ = 0.0;
    double entropy_ = -1.0;
    bool haveData_ = false;
};

} // namespace post
