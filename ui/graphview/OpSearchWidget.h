#pragma once

#include "core/graph/Graph.h"

#include <QFrame>

#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QListWidget;

namespace post {

// Ctrl+F: a line edit with a list of ops whose name or type contains the text.
// Picking one (Enter, click) emits opPicked; every match is reported for highlighting.
class OpSearchWidget : public QFrame {
    Q_OBJECT

public:
    explicit OpSearchWidget(QWidget* parent = nullptr);

    void setGraph(std::shared_ptr<const Graph> graph);
    // Shows the widget and focuses the text, ready to type.
    void activate();
    void setQuery(const QString& text);
    QString query() const;
    const std::vector<OpId>& matches() const { return matches_; }
    // Picks the current (or first) match, as Enter does.
    void pickCurrent();

    // Ops whose name or type contains `query` (case-insensitive): exact names first,
    // then name prefixes, other name matches, and type matches; at most `limit`.
    static std::vector<OpId> findOps(const Graph& graph, const QString& query, int limit);
    static constexpr int kMaxResults = 200;
    static constexpr int kVisibleRows = 12;

signals:
    void opPicked(post::OpId op);
    void matchesChanged(const std::vector<post::OpId>& ops);
    void closed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refresh();
    void close();

    std::shared_ptr<const Graph> graph_;
    std::vector<OpId> matches_;
    QLineEdit* edit_;
    QListWidget* list_;
    QLabel* count_;
};

} // namespace post
