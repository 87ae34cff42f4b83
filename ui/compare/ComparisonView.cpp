#include "ui/compare/ComparisonView.h"

#include "core/run/PlacerRegistry.h"
#include "core/sim/LowerBound.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/document/DocumentHub.h"
#include "ui/util/BackgroundPriority.h"
#include "ui/util/Format.h"
#include "ui/util/TimeLimitBox.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace post {

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent)
    , worker_(new ComparisonWorker)
    , model_(new ComparisonModel(this))
    , proxy_(new QSortFilterProxyModel(this))
    , table_(new QTableView(this))
    , samples_(new QSpinBox(this))
    , time_(new QDoubleSpinBox(this))
    , seeds_(new QSpinBox(this))
    , algorithms_(new QLineEdit(this))
    , runButton_(new QPushButton(tr("Run Comparison"), this))
    , cancelButton_(new QPushButton(tr("Cancel"), this))
    , diffButton_(new QPushButton(tr("Diff"), this))
    , progress_(new QProgressBar(this))
    , status_(new QLabel(this))
    , bound_(new QLabel(this))
{
    qRegisterMetaType<post::ComparisonRow>();
    thread_.setObjectName(QStringLiteral("comparison"));
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &ComparisonWorker::started, this, &ComparisonView::onStarted, Qt::QueuedConnection);
    connect(worker_, &ComparisonWorker::progress, this, &ComparisonView::onProgress, Qt::QueuedConnection);
    connect(worker_, &ComparisonWorker::rowReady, this, &ComparisonView::onRow, Qt::QueuedConnection);
    connect(worker_, &ComparisonWorker::finished, this, &ComparisonView::onFinished, Qt::QueuedConnection);
    runAtBackgroundPriority(thread_);
    thread_.start();

    samples_->setRange(1, 1000000);
    samples_->setSingleStep(100);
    samples_->setValue(2400);
    samples_->setToolTip(tr("Sample budget of each learner run"));
    // None by default (the learner panel's is 2 s): a table compares equal samples, as
    // post-cli compare does without --time.
    setUpTimeLimitBox(time_, 0.0);
    time_->setToolTip(tr("Wall-time budget of each learner and search run (post-cli compare --time; milp's time): "
                         "a run ends at whichever of its samples and this time comes first; none: samples alone"));
    time_->setObjectName(QStringLiteral("compareTime"));
    seeds_->setRange(1, 1000);
    seeds_->setValue(3);
    seeds_->setToolTip(tr("Runs per learner, seeds 1, 2, …; classical placers are deterministic and run once"));
    QStringList all;
    for (const std::string& name : placerNames())
        all << QString::fromStdString(name);
    algorithms_->setPlaceholderText(tr("all: %1").arg(all.join(QStringLiteral(","))));
    algorithms_->setToolTip(tr("Comma-separated algorithms (LEARNER@PLACER for warm starts); empty for all"));
    samples_->setObjectName(QStringLiteral("compareSamples"));
    seeds_->setObjectName(QStringLiteral("compareSeeds"));
    algorithms_->setObjectName(QStringLiteral("compareAlgorithms"));
    runButton_->setObjectName(QStringLiteral("compareRun"));
    cancelButton_->setObjectName(QStringLiteral("compareCancel"));
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    progress_->setMaximumHeight(16);

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(ComparisonModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder); // run order until a header is clicked
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection); // two rows for Diff
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    // Every column as wide as its header and cells (a table of a few rows), the algorithm's
    // never under its longest name; the last one takes what is left, and a view narrower than
    // the columns scrolls. (The algorithm column used to stretch into what the others left:
    // at 1280x800 that was about 25 px, "gorith" over "m- / etf".)
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    table_->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    table_->setWordWrap(false);
    connect(table_, &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) { showRow(proxy_->mapToSource(index).row()); });

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Algorithms"), this));
    controls->addWidget(algorithms_, 3);
    controls->addWidget(new QLabel(tr("Samples"), this));
    controls->addWidget(samples_);
    controls->addWidget(new QLabel(tr("Time limit"), this));
    controls->addWidget(time_);
    controls->addWidget(new QLabel(tr("Seeds"), this));
    controls->addWidget(seeds_);
    controls->addWidget(runButton_);
    controls->addWidget(cancelButton_);
    controls->addWidget(diffButton_);
    diffButton_->setObjectName(QStringLiteral("compareDiff"));
    diffButton_->setToolTip(tr("Which ops move between two selected rows' best placements, or between one and the "
                               "shown placement"));
    connect(diffButton_, &QPushButton::clicked, this, [this] {
        QList<int> rows;
        for (const QModelIndex& index : table_->selectionModel()->selectedRows())
            rows << proxy_->mapToSource(index).row();
        std::sort(rows.begin(), rows.end());
        if (rows.size() == 1 || rows.size() == 2)
            diffRows(rows[0], rows.size() == 2 ? rows[1] : -1);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ComparisonView::updateButtons);
    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(progress_, 1);
    progressRow->addWidget(status_, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(progressRow);
    bound_->setObjectName(QStringLiteral("compareBound"));
    bound_->setWordWrap(true);
    bound_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bound_->setToolTip(tr("The largest bound valid for this graph: the polynomial one or a proven one (milp), and "
                          "how far the best placement is from it at most. A grouped bound holds only for its "
                          "grouping, never for the graph."));
    layout->addWidget(bound_);
    layout->addWidget(table_, 1);

    connect(runButton_, &QPushButton::clicked, this, &ComparisonView::start);
    connect(cancelButton_, &QPushButton::clicked, this, &ComparisonView::cancel);
    status_->setText(tr("Runs every algorithm on the open graph and cluster, like post-cli compare."));
    updateButtons();
}

ComparisonView::~ComparisonView()
{
    if (stop_)
        stop_->store(true);
    thread_.quit();
    thread_.wait();
}

void ComparisonView::setSamples(int samples) { samples_->setValue(samples); }

void ComparisonView::setTimeLimit(double seconds) { time_->setValue(seconds); }

double ComparisonView::timeLimit() const { return time_->value(); }

void ComparisonView::setSeeds(int seeds) { seeds_->setValue(seeds); }

QString ComparisonView::statusText() const { return status_->text(); }

std::vector<std::string> ComparisonView::algorithmList(QString* unknown) const
{
    std::vector<std::string> names;
    for (const QString& part : algorithms_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const std::string name = part.trimmed().toStdString();
        if (name.empty())
            continue;
        if (!makePlacer(name) && unknown && unknown->isEmpty())
            *unknown = QString::fromStdString(name);
        names.push_back(name);
    }
    return names;
}

bool ComparisonView::setAlgorithms(const QString& list)
{
    algorithms_->setText(list);
    QString unknown;
    algorithmList(&unknown);
    if (!unknown.isEmpty())
        status_->setText(tr("Unknown algorithm %1").arg(unknown));
    return unknown.isEmpty();
}

namespace {

// What the cluster's results depend on, for the line that says why the table went.
QString clusterSetting(const GraphDocument& document)
{
    if (!document.cluster)
        return {};
    return QStringLiteral("%1, %2, %3 dispatch")
        .arg(QString::fromStdString(document.cluster->name()), precisionName(document.cluster->precision()),
             QString::fromLatin1(dispatchName(document.sim.dispatch)));
}

} // namespace

void ComparisonView::setDocument(DocumentPtr document)
{
    // A new placement of the same graph (from this view or the learner) keeps the run and
    // the table; another graph (or none) empties them: no row, bound or gap of another graph
    // stays on show (a session's table is restored after its document). So does another
    // cluster of the graph (an edit, the precision, the dispatch rule): every row, bound and
    // gap was timed on the old one.
    const bool anotherGraph = !document || document->graphId != runGraphId_;
    const bool anotherCluster = document && document_ && document->graphId == document_->graphId
        && document->cluster != document_->cluster;
    if ((anotherGraph || anotherCluster) && (run_.isBusy() || model_->rowCount() > 0 || !bound_->text().isEmpty())) {
        if (stop_)
            stop_->store(true);
        run_.drop(); // reports of a run still going no longer land here
        stop_.reset();
        runGraphId_ = 0;
        runCluster_.reset();
        model_->clear();
        updateBound();
        progress_->setValue(0);
        status_->setText(anotherGraph ? tr("Runs every algorithm on the open graph and cluster, like post-cli compare.")
                                      : tr("The cluster changed (%1): the table timed on the one before was cleared; "
                                           "Run Comparison times every algorithm again.")
                                            .arg(clusterSetting(*document)));
    }
    document_ = std::move(document);
    updateButtons();
}

void ComparisonView::start()
{
    if (!document_ || !document_->graph || !document_->cluster || !document_->cannotRun.isEmpty())
        return;
    QString unknown;
    ComparisonRequest request;
    request.options.algorithms = algorithmList(&unknown);
    if (!unknown.isEmpty()) {
        status_->setText(tr("Unknown algorithm %1").arg(unknown));
        return;
    }
    request.options.samples = samples_->value();
    request.options.seconds = time_->value();
    request.options.seeds = seeds_->value();
    request.document = document_;
    runCluster_ = document_->cluster;
    if (stop_)
        stop_->store(true); // a run still going (or cancelling) is superseded: its reports are dropped
    request.runId = run_.begin();
    runGraphId_ = document_->graphId;
    runSamples_ = request.options.samples;
    runSeconds_ = request.options.seconds;
    runSeeds_ = request.options.seeds;
    runDispatch_ = document_->sim.dispatch;
    stop_ = std::make_shared<std::atomic<bool>>(false);
    model_->clear();
    progress_->setValue(0);
    status_->setText(tr("Starting…"));
    worker_->enqueue(std::move(request), stop_);
    updateButtons();
}

std::optional<SessionComparison> ComparisonView::results(std::uint64_t graphId) const
{
    if (run_.isBusy() || graphId != runGraphId_ || model_->rowCount() == 0)
        return std::nullopt;
    SessionComparison out;
    out.lowerBoundUs = model_->polynomialBoundUs() > 0.0 ? model_->polynomialBoundUs()
                                                         : std::numeric_limits<double>::quiet_NaN();
    out.samples = runSamples_;
    out.seconds = runSeconds_;
    out.seeds = runSeeds_;
    out.rows = model_->rows();
    return out;
}

void ComparisonView::restoreResults(const SessionComparison& results, std::uint64_t graphId, const LowerBound* current)
{
    if (stop_)
        stop_->store(true);
    run_.drop(); // a run still going is dropped: its reports no longer land here
    stop_.reset();
    runGraphId_ = graphId;
    runCluster_.reset();
    runDispatch_ = document_ ? document_->sim.dispatch : Dispatch::ReadyOrder; // the session's, restored with it
    runSamples_ = results.samples;
    runSeconds_ = results.seconds;
    runSeeds_ = results.seeds;
    // The file keeps the polynomial bound's value; what gives it is named again when the
    // document's graph and cluster give the same value.
    const double polynomial = std::isfinite(results.lowerBoundUs) ? results.lowerBoundUs : 0.0;
    QString source;
    if (polynomial > 0.0 && document_ && document_->graphId == graphId && document_->graph && document_->cluster) {
        const LowerBound bound = current ? *current : lowerBound(*document_->graph, *document_->cluster, document_->sim);
        if (std::abs(bound.valueUs() - polynomial) <= 1e-9 * polynomial)
            source = QString::fromLatin1(bound.source());
    }
    model_->clear(polynomial, source);
    for (const ComparisonRow& row : results.rows)
        model_->addRow(row);
    updateBound();
    if (results.samples > 0)
        samples_->setValue(results.samples);
    time_->setValue(results.seconds);
    if (results.seeds > 0)
        seeds_->setValue(results.seeds);
    progress_->setValue(progress_->maximum());
    status_->setText(
        tr("Restored: %n algorithm(s); double-click a row to show its best placement", nullptr, model_->rowCount()));
    updateButtons();
}

void ComparisonView::cancel()
{
    if (!run_.isBusy() || !stop_)
        return;
    stop_->store(true); // the current run ends at its next sample; finished() follows
    status_->setText(tr("Cancelling…"));
}

void ComparisonView::showRow(int row)
{
    if (row < 0 || row >= model_->rowCount() || !document_ || document_->graphId != runGraphId_)
        return;
    const Placement& best = model_->row(row).best;
    if (best.size() != static_cast<size_t>(document_->opCount()))
        return;
    const QString algorithm = QString::fromStdString(model_->row(row).algorithm);
    status_->setText(tr("Showing %1's best placement").arg(algorithm));
    if (hub_) {
        PlacementProvenance made;
        made.algorithm = algorithm.toStdString(); // the best of its seeds: no one seed
        hub_->setPlacement(best, std::move(made), this);
    }
    emit placementRequested(best, algorithm);
}

void ComparisonView::setHub(DocumentHub* hub)
{
    hub_ = hub;
    connect(hub, &DocumentHub::documentChanged, this, &ComparisonView::setDocument);
}

bool ComparisonView::diffRows(int first, int second)
{
    if (!document_ || document_->graphId != runGraphId_ || first < 0 || first >= model_->rowCount()
        || second >= model_->rowCount())
        return false;
    const auto ops = static_cast<size_t>(document_->opCount());
    const ComparisonRow& a = model_->row(first);
    const QString aName = QString::fromStdString(a.algorithm);
    if (a.best.size() != ops)
        return false;
    if (second < 0) {
        if (!document_->isPlaced())
            return false;
        emit diffRequested(document_->placement, a.best, tr("shown"), aName);
        return true;
    }
    const ComparisonRow& b = model_->row(second);
    if (b.best.size() != ops)
        return false;
    emit diffRequested(a.best, b.best, aName, QString::fromStdString(b.algorithm));
    return true;
}

void ComparisonView::onStarted(quint64 runId, double lowerBoundUs, const QString& source)
{
    if (run_.isCurrent(runId)) {
        model_->clear(lowerBoundUs, source);
        updateBound();
    }
}

void ComparisonView::updateBound()
{
    QString text = model_->summary();
    if (!text.isEmpty() && runDispatch_ != Dispatch::ReadyOrder) // the rows are that rule's times
        text += tr("; every row timed by %1 dispatch").arg(QString::fromLatin1(dispatchName(runDispatch_)));
    bound_->setText(text);
    bound_->setVisible(!text.isEmpty());
}

QString ComparisonView::boundText() const { return bound_->text(); }

void ComparisonView::onProgress(quint64 runId, double fraction, const QString& algorithm)
{
    if (!run_.isCurrent(runId))
        return;
    progress_->setValue(static_cast<int>(fraction * 1000.0));
    if (!stop_->load())
        status_->setText(tr("Running %1…").arg(algorithm));
}

void ComparisonView::onRow(quint64 runId, const ComparisonRow& row)
{
    if (!run_.isCurrent(runId))
        return;
    model_->addRow(row);
    updateBound();
    if (hub_ && row.bounds.any())
        hub_->publishProvenBound(ProvenBound{runGraphId_, reinterpret_cast<quintptr>(runCluster_.get()), row.bounds});
}

void ComparisonView::onFinished(quint64 runId, bool stopped, const QString& error)
{
    if (!run_.finish(runId))
        return;
    stop_.reset();
    if (!error.isEmpty())
        status_->setText(tr("Comparison failed: %1").arg(error));
    else if (stopped)
        status_->setText(tr("Cancelled after %n algorithm(s)", nullptr, model_->rowCount()));
    else
        status_->setText(
            tr("Done: %n algorithm(s); double-click a row to show its best placement", nullptr, model_->rowCount()));
    if (!stopped && error.isEmpty())
        progress_->setValue(progress_->maximum());
    updateButtons();
    emit runFinished(stopped);
}

void ComparisonView::updateButtons()
{
    const bool canRun = document_ && document_->graph && document_->cluster && document_->cannotRun.isEmpty();
    const bool running = run_.isBusy();
    runButton_->setEnabled(!running && canRun);
    cancelButton_->setEnabled(running);
    const qsizetype selected = table_->selectionModel() ? table_->selectionModel()->selectedRows().size() : 0;
    diffButton_->setEnabled(!running && (selected == 1 || selected == 2));
    samples_->setEnabled(!running);
    time_->setEnabled(!running);
    seeds_->setEnabled(!running);
    algorithms_->setEnabled(!running);
}

} // namespace post
