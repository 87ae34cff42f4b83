#pragma once

#include "ui/document/GraphDocument.h"

#include <QWidget>

#include <cstdint>
#include <optional>

class QTextBrowser;
class QUrl;

namespace post {

// Details of the selected op: name, type, device, time on each device kind, sizes,
// colocation group, and its inputs and outputs as links that select the neighbour.
class InspectorPanel : public QWidget {
    Q_OBJECT

public:
    explicit InspectorPanel(QWidget* parent = nullptr);

    void setDocument(DocumentPtr document);
    void showOp(OpId op); // kNoOp shows a hint
    OpId op() const { return op_; }

    // The HTML shown (for tests) and a link's target op, or kNoOp.
    QString html() const;
    static OpId opFromLink(const QUrl& url);
    // How many times the HTML was built (a new placement that changes nothing shown keeps it).
    int renderCount() const { return renders_; }

signals:
    // A neighbour's link was clicked.
    void opActivated(post::OpId op);

protected:
    void changeEvent(QEvent* event) override;

private:
    // What the HTML depends on: a new best that moves other ops than the one shown (or, with
    // none shown, keeps the placement's kind) does not rebuild it.
    struct Shown {
        std::uint64_t graphId = 0;
        const Cluster* cluster = nullptr;
        OpId op = kNoOp;
        int device = kNoDevice; // the op's device, or (no op) the placement's kind
        bool operator==(const Shown&) const = default;
    };
    Shown shownNow() const;
    void render(bool force = false);
    QString summaryHtml(); // shown while no op is selected

    DocumentPtr document_;
    OpId op_ = kNoOp;
    QTextBrowser* browser_;
    std::optional<Shown> shown_; // what the HTML on show was built for
    int renders_ = 0;
    // The graph's sums for the summary, kept per graph (107k ops took 2 ms).
    std::uint64_t totalsGraph_ = 0;
    double gpuTotalUs_ = 0.0, cpuTotalUs_ = 0.0, paramBytes_ = 0.0;
};

} // namespace post
