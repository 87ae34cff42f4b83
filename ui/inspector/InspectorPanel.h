#pragma once

#include "ui/document/GraphDocument.h"

#include <QWidget>

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

signals:
    // A neighbour's link was clicked.
    void opActivated(post::OpId op);

protected:
    void changeEvent(QEvent* event) override;

private:
    void render();
    QString summaryHtml() const; // shown while no op is selected

    DocumentPtr document_;
    OpId op_ = kNoOp;
    QTextBrowser* browser_;
};

} // namespace post
