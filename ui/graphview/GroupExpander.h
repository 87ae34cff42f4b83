#pragma once

#include <QObject>

namespace post {

class GraphPanel;

// Expand-a-group on the graph view: double-click a group's box, or use its context menu,
// to draw its ops; an expanded group's ops offer "Collapse" in theirs. Watches the view's
// viewport; events elsewhere pass through.
class GroupExpander : public QObject {
    Q_OBJECT

public:
    explicit GroupExpander(GraphPanel* panel);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    GraphPanel* panel_;
};

} // namespace post
