#include "ui/cluster/ClusterEditor.h"

#include "core/io/native/ClusterFile.h"
#include "core/sim/Simulator.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"
#include "ui/cluster/ClusterDeviceModel.h"
#include "ui/cluster/ClusterLinkModel.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/StepSimulation.h"
#include "ui/util/BackgroundJobs.h"
#include "ui/util/ErrorText.h"
#include "ui/util/Format.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <initializer_list>
#include <limits>

namespace post {
namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                          | QAbstractItemView::AnyKeyPressed);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    return view;
}

} // namespace

ClusterEditor::ClusterEditor(QWidget* parent)
    : QWidget(parent)
    , shownStepUs_(std::numeric_limits<double>::quiet_NaN())
    , watcher_(new QFutureWatcher<SimResult>(this))
    , devices_(new ClusterDeviceModel(&draft_, this))
    , links_(new ClusterLinkModel(&draft_, this))
    , name_(new QLineEdit(this))
    , message_(new QLabel(this))
    , summary_(new QLabel(this))
    , addButton_(new QPushButton(tr("Add Device"), this))
    , removeButton_(new QPushButton(tr("Remove"), this))
{
    deviceView_ = makeTable(devices_, this);
    linkView_ = makeTable(links_, this);
    deviceView_->setObjectName(QStringLiteral("clusterDevices"));
    linkView_->setObjectName(QStringLiteral("clusterLinks"));
    // Names take what the numbers leave; long names keep their distinctive end.
    deviceView_->horizontalHeader()->setStretchLastSection(false);
    deviceView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    deviceView_->horizontalHeader()->setSectionResizeMode(ClusterDeviceModel::Name, QHeaderView::Stretch);
    linkView_->horizontalHeader()->setStretchLastSection(false);
    linkView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    linkView_->horizontalHeader()->setSectionResizeMode(ClusterLinkModel::Bandwidth, QHeaderView::Stretch);
    deviceView_->setTextElideMode(Qt::ElideLeft);
    linkView_->setTextElideMode(Qt::ElideLeft);
    name_->setObjectName(QStringLiteral("clusterName"));
    message_->setObjectName(QStringLiteral("clusterMessage"));
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("color: #d03030;"));
    message_->hide();
    summary_->setObjectName(QStringLiteral("clusterSummary"));
    summary_->setWordWrap(true);
    addButton_->setToolTip(tr("Add a device like the selected one"));
    removeButton_->setToolTip(
        tr("Remove the selected device; ops placed on it move to the fastest device of its kind"));
    openButton_ = new QPushButton(tr("Open…"), this);
    auto* openButton = openButton_;
    auto* saveButton = new QPushButton(tr("Save As…"), this);
    saveButton->setToolTip(tr("Write this cluster as a post-cluster/1 file"));

    auto* deviceButtons = new QHBoxLayout;
    deviceButtons->addWidget(addButton_);
    deviceButtons->addWidget(removeButton_);
    deviceButtons->addStretch(1);
    deviceButtons->addWidget(openButton);
    deviceButtons->addWidget(saveButton);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto* form = new QFormLayout;
    form->addRow(tr("Name"), name_);
    topLayout->addLayout(form);
    topLayout->addWidget(deviceView_);
    topLayout->addLayout(deviceButtons);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(linkView_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter, 1);
    layout->addWidget(message_);
    layout->addWidget(summary_);

    connect(devices_, &ClusterDeviceModel::edited, this, [this] { applyEdit(); });
    connect(links_, &ClusterLinkModel::edited, this, [this] { applyEdit(); });
    connect(devices_, &ClusterDeviceModel::editRejected, this, &ClusterEditor::showMessage);
    connect(links_, &ClusterLinkModel::editRejected, this, &ClusterEditor::showMessage);
    // A device renamed in the table shows in the links' From / To.
    connect(devices_, &ClusterDeviceModel::dataChanged, links_, [this] {
        emit links_->dataChanged(links_->index(0, 0), links_->index(links_->rowCount() - 1, ClusterLinkModel::To));
    });
    connect(name_, &QLineEdit::editingFinished, this, [this] {
        const std::string name = name_->text().trimmed().toStdString();
        if (name.empty() || name == draft_.name)
            return;
        draft_.name = name;
        applyEdit({}, true);
    });
    connect(addButton_, &QPushButton::clicked, this, [this] { addDevice(); });
    connect(removeButton_, &QPushButton::clicked, this, [this] {
        const QModelIndex current = deviceView_->currentIndex();
        if (current.isValid())
            removeDevice(current.row());
    });
    connect(saveButton, &QPushButton::clicked, this, &ClusterEditor::saveDialog);
    connect(openButton, &QPushButton::clicked, this, &ClusterEditor::openDialog);
    resimulate();
}

QString ClusterEditor::message() const { return message_->text(); }

QString ClusterEditor::summary() const { return summary_->text(); }

void ClusterEditor::showMessage(const QString& text)
{
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
}

void ClusterEditor::setDocument(DocumentPtr document)
{
    document_ = std::move(document);
    const bool ours = document_ && made_ && document_->cluster == made_;
    if (document_ && document_->cluster && !ours) {
        draft_ = ClusterDraft::from(*document_->cluster);
        made_.reset();
        nameTyped_ = false;
        name_->setText(QString::fromStdString(draft_.name));
        devices_->reload();
        links_->reload();
        showMessage({});
    }
    placement_ = document_ ? document_->placement : Placement{};
    resimulate();
}

void ClusterEditor::setReplaceGuard(std::function<bool()> asks, std::function<bool()> confirm)
{
    guardAsks_ = std::move(asks);
    guardConfirm_ = std::move(confirm);
}

void ClusterEditor::setEditable(bool editable, const QString& why)
{
    const auto triggers = editable
        ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed
        : QAbstractItemView::NoEditTriggers;
    deviceView_->setEditTriggers(triggers);
    linkView_->setEditTriggers(triggers);
    for (QWidget* w : std::initializer_list<QWidget*>{name_, addButton_, removeButton_, openButton_})
        w->setEnabled(editable);
    deviceView_->setToolTip(editable ? QString() : why);
    linkView_->setToolTip(editable ? QString() : why);
}

void ClusterEditor::markEdited(bool renamed)
{
    // The preset's (or file's) name no longer names the edited cluster: it says so (once). A
    // name typed into the Name field is the user's, and stays.
    static const std::string kEdited = " (edited)";
    nameTyped_ = nameTyped_ || renamed;
    const bool marked = draft_.name.size() >= kEdited.size()
        && draft_.name.compare(draft_.name.size() - kEdited.size(), kEdited.size(), kEdited) == 0;
    if (nameTyped_ || marked)
        return;
    draft_.name += kEdited;
    name_->setText(QString::fromStdString(draft_.name));
}

void ClusterEditor::applyEdit(const std::vector<DeviceId>& deviceMap, bool renamed)
{
    showMessage({});
    markEdited(renamed);
    made_ = std::make_shared<const Cluster>(draft_.build());
    if (!deviceMap.empty())
        for (DeviceId& d : placement_)
            d = d >= 0 && static_cast<size_t>(d) < deviceMap.size() ? deviceMap[static_cast<size_t>(d)] : d;
    // Results timed on the window's cluster (an unsaved run) go with it: asked first, from the
    // event loop (never inside a table's setData, whose editor would commit again on focus-out).
    if (hub_ && guardAsks_ && guardAsks_()) {
        if (!confirmPending_) {
            confirmPending_ = true;
            QTimer::singleShot(0, this, &ClusterEditor::confirmEdit);
        }
        return;
    }
    publishEdit();
}

void ClusterEditor::confirmEdit()
{
    confirmPending_ = false;
    if (!made_ || (document_ && document_->cluster == made_))
        return; // another document came meanwhile (its cluster replaced the draft), or done
    if (guardConfirm_ && !guardConfirm_()) {
        // Cancel: the window's cluster stays, and so does the draft of it.
        made_.reset();
        setDocument(document_);
        showMessage(tr("The edit was taken back: the run on show keeps its cluster."));
        return;
    }
    publishEdit();
}

void ClusterEditor::publishEdit()
{
    // The hub takes the edited cluster at once (setDocument with it follows, which
    // re-simulates); alone, the editor re-simulates here.
    if (hub_)
        hub_->setCluster(made_, placement_, this);
    emit clusterEdited(made_, placement_);
    if (!document_ || document_->cluster != made_)
        resimulate();
}

void ClusterEditor::followHub(DocumentHub* hub)
{
    hub_ = hub;
    connect(hub, &DocumentHub::documentChanged, this, &ClusterEditor::setDocument);
    connect(hub->steps(), &StepSimulation::simulated, this, &ClusterEditor::setStep);
}

ClusterEditor::~ClusterEditor()
{
    job_.drop();
    watcher_->disconnect(this);
}

void ClusterEditor::resimulate()
{
    job_.drop(); // whatever a running job gives is not this draft's step
    awaitingStep_ = false;
    shownStepUs_ = std::numeric_limits<double>::quiet_NaN();
    shownFeasible_ = false;
    const Cluster* cluster = made_ ? made_.get() : (document_ ? document_->cluster.get() : nullptr);
    const QString devices = tr("%n device(s)", nullptr, draft_.deviceCount());
    if (!document_ || !document_->graph || !cluster || placement_.empty()) {
        summary_->setText(tr("%1. No placement shown: run a placer to see its step time here.").arg(devices));
        return;
    }
    if (const auto problem = placementProblem(*document_->graph, *cluster, placement_)) {
        summary_->setText(tr("%1. The shown placement does not fit: %2").arg(devices, QString::fromStdString(*problem)));
        return;
    }
    if (document_->opCount() <= kSynchronousMaxOps) {
        ++simulationsRun_;
        Simulator simulator(*document_->graph, *cluster, document_->sim);
        showStep(simulator.run(placement_));
        return;
    }
    // A big graph (a new best of a 100k-op run arrives every few seconds): off the GUI thread.
    summary_->setText(tr("%1. Shown placement: simulating…").arg(devices));
    if (hub_ && (!made_ || document_->cluster == made_) && placement_ == document_->placement) {
        // The window simulates exactly this step: its figure, now or when it comes.
        awaitingStep_ = true;
        if (isStepOfShown(lastStep_)) {
            awaitingStep_ = false;
            showStep(lastStep_->result);
        }
        return;
    }
    ++simulationsRun_;
    const quint64 id = job_.begin();
    std::shared_ptr<const Cluster> on = made_ ? made_ : document_->cluster;
    watcher_->disconnect(this);
    connect(watcher_, &QFutureWatcher<SimResult>::finished, this, [this, id] {
        if (job_.finish(id))
            showStep(watcher_->future().result());
    });
    watcher_->setFuture(
        runInBackground([graph = document_->graph, on = std::move(on), placement = placement_, sim = document_->sim] {
            SimResult r = Simulator(*graph, *on, sim).run(placement);
            r.timeline = {}; // only the figures are shown
            return r;
        }));
}

bool ClusterEditor::isStepOfShown(const StepPtr& step) const
{
    if (!step || !document_)
        return false;
    const GraphDocument& of = *step->document;
    return of.graphId == document_->graphId && of.cluster == document_->cluster && of.placement == placement_;
}

void ClusterEditor::setStep(const StepPtr& step)
{
    lastStep_ = step;
    if (awaitingStep_ && isStepOfShown(step)) {
        awaitingStep_ = false;
        showStep(step->result);
    }
}

void ClusterEditor::showStep(const SimResult& r)
{
    shownStepUs_ = r.stepTimeUs;
    shownFeasible_ = r.feasible;
    summary_->setText(tr("%1. Shown placement: step %2%3")
                          .arg(tr("%n device(s)", nullptr, draft_.deviceCount()), formatMicroseconds(r.stepTimeUs),
                               r.feasible ? QString() : tr(", out of memory")));
    emit shownStepChanged();
}

int ClusterEditor::addDevice()
{
    const QModelIndex current = deviceView_->currentIndex();
    Device like = current.isValid() ? draft_.devices[static_cast<size_t>(current.row())]
                                    : (draft_.devices.empty() ? Device{} : draft_.devices.back());
    like.name = draft_.freshName(like.kind);
    const int row = draft_.addDevice(like);
    devices_->reload();
    links_->reload();
    applyEdit();
    deviceView_->setCurrentIndex(devices_->index(row, ClusterDeviceModel::Name));
    return row;
}

bool ClusterEditor::removeDevice(int row)
{
    if (row < 0 || row >= draft_.deviceCount())
        return false;
    if (draft_.deviceCount() == 1) {
        showMessage(tr("A cluster needs at least one device."));
        return false;
    }
    const DeviceKind kind = draft_.devices[static_cast<size_t>(row)].kind;
    draft_.removeDevice(row);
    // Ops on the removed device move to the fastest device of its kind (else device 0);
    // later devices shift down by one.
    DeviceId target = 0;
    double fastest = -1.0;
    for (int i = 0; i < draft_.deviceCount(); ++i) {
        const Device& d = draft_.devices[static_cast<size_t>(i)];
        if (d.kind == kind && d.speed > fastest) {
            fastest = d.speed;
            target = i;
        }
    }
    std::vector<DeviceId> map(static_cast<size_t>(draft_.deviceCount()) + 1);
    for (int old = 0; old <= draft_.deviceCount(); ++old)
        map[static_cast<size_t>(old)] = old < row ? old : old == row ? target : old - 1;
    devices_->reload();
    links_->reload();
    applyEdit(map);
    return true;
}

void ClusterEditor::saveTo(const QString& path) const
{
    writeFileAtomically(path.toStdString(), clusterJson(draft_.build()));
}

bool ClusterEditor::loadFile(const QString& path)
{
    try {
        draft_ = ClusterDraft::from(readClusterFile(path.toStdString()));
    } catch (const InputError& e) {
        showMessage(tr("Could not open %1: %2").arg(QFileInfo(path).fileName(), readErrorText(e)));
        return false;
    }
    made_.reset();
    name_->setText(QString::fromStdString(draft_.name));
    devices_->reload();
    links_->reload();
    showMessage({});
    placement_.clear(); // the window reloads the graph on the new cluster
    resimulate();
    emit clusterFileOpened(path);
    return true;
}

void ClusterEditor::saveDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Cluster"),
                                                      QString::fromStdString(draft_.name) + QStringLiteral(".json"),
                                                      tr("Clusters (*.json)"));
    if (path.isEmpty())
        return;
    try {
        saveTo(path);
    } catch (const InputError& e) {
        showMessage(tr("Could not save: %1").arg(readErrorText(e)));
    }
}

void ClusterEditor::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Cluster"), QString(),
                                                      tr("Clusters (*.json);;All files (*)"));
    if (!path.isEmpty())
        loadFile(path);
}

} // namespace post
