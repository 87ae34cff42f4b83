#pragma once

#include "core/graph/Placement.h"
#include "ui/document/GraphDocument.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <cstdint>
#include <vector>

class QWidget;

namespace post {

class DocumentHub;
class PlacementDiffDialog;

// The placement diff on show in a window (one at a time): its dialog, and sides that follow
// the placements they stand for. A side is a fixed placement, the hub's shown placement, or
// another hub's (another window's) carried over by names (placementByNames). It follows
// its own hub's documentChanged (and the other hub's): a side's new placement updates the
// dialog and the marks; another graph closes it.
class PlacementDiffController : public QObject {
    Q_OBJECT

public:
    struct Side {
        Placement fixed;
        bool shown = false;             // the hub's shown placement
        QPointer<DocumentHub> otherHub; // another window's shown placement
    };

    // Dialogs open over `window` (their parent).
    PlacementDiffController(DocumentHub* hub, QWidget* window);
    ~PlacementDiffController() override;

    // Shows the diff of `from` and `to` (closing the one on show); nullptr without a document.
    PlacementDiffDialog* show(Side from, Side to, const QString& fromName, const QString& toName);
    PlacementDiffDialog* active() const { return diff_.dialog.data(); }
    // Closes the diff on show; `why` (when not empty) goes to statusMessage.
    void close(const QString& why);

    // A post-placement file or a session file's placement, for the hub's document (carried
    // over by names from a session of the same graph). Empty with `error` set when it cannot
    // be read or does not fit.
    static Placement readPlacementToDiff(const QString& path, const GraphDocument& document, QString* error);

signals:
    // Per op, the device it moves to (empty: no marks) on graph `graphId`.
    void movedOps(std::uint64_t graphId, std::vector<post::DeviceId> movedTo);
    void opActivated(post::OpId op);
    void statusMessage(const QString& message);

private:
    void update();
    void mark(const DocumentPtr& document);

    DocumentHub* hub_;
    QWidget* window_;
    struct ActiveDiff {
        QPointer<PlacementDiffDialog> dialog;
        // The same dialog as a QObject, for its destroyed() signal: ~QWidget emits it when the
        // dialog is no longer a PlacementDiffDialog, so `dialog` may not be read there (UBSan:
        // a downcast of an object of another type).
        const QObject* dialogObject = nullptr;
        Side from;
        Side to;
        std::uint64_t graphId = 0;
    } diff_;
};

} // namespace post
