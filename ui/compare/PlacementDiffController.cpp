#include "ui/compare/PlacementDiffController.h"

#include "core/io/native/PlacementFile.h"
#include "core/session/SessionFile.h"
#include "core/util/InputError.h"
#include "ui/compare/PlacementByNames.h"
#include "ui/compare/PlacementDiff.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/DocumentName.h"
#include "ui/util/ErrorText.h"

#include <QFile>
#include <QFileInfo>
#include <QTableWidget>

#include <string_view>

namespace post {

PlacementDiffController::PlacementDiffController(DocumentHub* hub, QWidget* window)
    : QObject(window)
    , hub_(hub)
    , window_(window)
{
    // The diff on show follows the shown placement (and drops out with its graph).
    connect(hub_, &DocumentHub::documentChanged, this, &PlacementDiffController::update);
}

PlacementDiffController::~PlacementDiffController()
{
    // The dialog (the window's child) may outlive this controller in ~QWidget: no calls back.
    if (diff_.dialog)
        diff_.dialog->disconnect(this);
}

Placement PlacementDiffController::readPlacementToDiff(const QString& path, const GraphDocument& document, QString* error)
{
    try {
        QFile file(path);
        bool session = false;
        if (QFileInfo(path).isFile() && file.open(QIODevice::ReadOnly)) { // a FIFO would block the open
            const QByteArray head = file.read(4096);
            session = looksLikeSession(std::string_view(head.constData(), static_cast<size_t>(head.size())));
        }
        if (session) {
            // Another session's placement, carried over by op and device names.
            const Session other = readSessionFile(path.toStdString());
            if (other.placement.empty())
                throw InputError(path.toStdString(), "placement", "the session has no placement");
            return parsePlacement(placementJson(*other.graph, *other.cluster, other.placement), path.toStdString(),
                                  *document.graph, *document.cluster);
        }
        return readPlacementFile(path.toStdString(), *document.graph, *document.cluster);
    } catch (const InputError& e) {
        *error = readErrorText(e);
        return {};
    }
}

PlacementDiffDialog* PlacementDiffController::show(Side from, Side to, const QString& fromName, const QString& toName)
{
    const DocumentPtr document = hub_->document();
    if (!document)
        return nullptr;
    if (from.shown)
        from.fixed = document->placement;
    if (to.shown)
        to.fixed = document->placement;
    close(QString()); // one diff at a time on the graph
    for (const Side* side : {&from, &to})
        if (side->otherHub) // the other window's placement changes too (its run, its Compare rows): follow it
            connect(side->otherHub, &DocumentHub::documentChanged, this, &PlacementDiffController::update,
                    Qt::UniqueConnection);
    auto* dialog = new PlacementDiffDialog(document->graph, document->cluster, from.fixed, to.fixed, fromName, toName,
                                           window_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PlacementDiffDialog::opActivated, this, &PlacementDiffController::opActivated);
    connect(dialog, &QObject::destroyed, this, [this](QObject* gone) {
        // Closed by the user: its marks go with it (not those of a diff opened since).
        if (!diff_.dialogObject || diff_.dialogObject == gone) {
            diff_ = ActiveDiff{};
            emit movedOps(0, {});
        }
    });
    diff_.dialog = dialog;
    diff_.dialogObject = dialog;
    diff_.from = std::move(from);
    diff_.to = std::move(to);
    diff_.graphId = document->graphId;
    mark(document);
    dialog->show();
    return dialog;
}

void PlacementDiffController::mark(const DocumentPtr& document)
{
    emit movedOps(document->graphId, movedDevices(diff_.from.fixed, diff_.to.fixed, document->cluster->deviceCount()));
}

void PlacementDiffController::close(const QString& why)
{
    if (PlacementDiffDialog* dialog = diff_.dialog) {
        diff_.dialog = nullptr;
        dialog->close(); // deleted on close
    }
    diff_ = ActiveDiff{};
    emit movedOps(0, {});
    if (!why.isEmpty())
        emit statusMessage(why);
}

void PlacementDiffController::update()
{
    if (!diff_.dialog)
        return;
    const DocumentPtr& document = hub_->document();
    if (!document || document->graphId != diff_.graphId || !document->isPlaced()) {
        close(tr("Placement diff closed: the window shows another graph"));
        return;
    }
    bool changed = false;
    for (Side* side : {&diff_.from, &diff_.to}) {
        Placement now = side->fixed;
        if (side->shown) {
            now = document->placement;
        } else if (side->otherHub) {
            QString problem;
            const DocumentPtr& theirs = side->otherHub->document();
            now = placementByNames(*document, documentDisplayName(document->path), theirs,
                                   theirs ? documentDisplayName(theirs->path) : QString(), &problem);
            if (now.empty()) {
                close(tr("Placement diff closed: %1").arg(problem));
                return;
            }
        }
        if (now != side->fixed) {
            side->fixed = std::move(now);
            changed = true;
        }
    }
    const bool clusterChanged = diff_.dialog->pairTable()->rowCount() != document->cluster->deviceCount();
    if (changed || clusterChanged)
        diff_.dialog->setPlacements(document->cluster, diff_.from.fixed, diff_.to.fixed);
    mark(document);
}

} // namespace post
