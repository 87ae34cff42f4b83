#include "ui/graphview/OpSearchWidget.h"

#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace post {

OpSearchWidget::OpSearchWidget(QWidget* parent)
    : QFrame(parent)
    , edit_(new QLineEdit(this))
    , list_(new QListWidget(this))
    , count_(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    edit_->setPlaceholderText(tr("Find op by name or type"));
    edit_->setClearButtonEnabled(true);
    edit_->installEventFilter(this);
    list_->installEventFilter(this);
    list_->setUniformItemSizes(true);
    list_->setTextElideMode(Qt::ElideMiddle);
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    count_->setForegroundRole(QPalette::PlaceholderText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    layout->addWidget(edit_);
    layout->addWidget(count_);
    layout->addWidget(list_);
    connect(edit_, &QLineEdit::textChanged, this, &OpSearchWidget::refresh);
    connect(edit_, &QLineEdit::returnPressed, this, &OpSearchWidget::pickCurrent);
    connect(list_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit opPicked(item->data(Qt::UserRole).toInt()); });
    connect(list_, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { emit opPicked(item->data(Qt::UserRole).toInt()); });
    refresh();
}

void OpSearchWidget::setGraph(std::shared_ptr<const Graph> graph)
{
    graph_ = std::move(graph);
    refresh();
}

void OpSearchWidget::activate()
{
    show();
    raise();
    edit_->setFocus(Qt::ShortcutFocusReason);
    edit_->selectAll();
}

void OpSearchWidget::setQuery(const QString& text) { edit_->setText(text); }

QString OpSearchWidget::query() const { return edit_->text(); }

std::vector<OpId> OpSearchWidget::findOps(const Graph& graph, const QString& query, int limit)
{
    const QString q = query.trimmed();
    if (q.isEmpty())
        return {};
    // Four ranks, filled in one pass and concatenated.
    std::vector<OpId> ranks[4];
    for (OpId id = 0; id < graph.opCount(); ++id) {
        const Op& op = graph.op(id);
        const QString name = QString::fromStdString(op.name);
        if (name.compare(q, Qt::CaseInsensitive) == 0)
            ranks[0].push_back(id);
        else if (name.startsWith(q, Qt::CaseInsensitive))
            ranks[1].push_back(id);
        else if (name.contains(q, Qt::CaseInsensitive))
            ranks[2].push_back(id);
        else if (QString::fromStdString(op.type).contains(q, Qt::CaseInsensitive))
            ranks[3].push_back(id);
    }
    std::vector<OpId> out;
    for (const auto& rank : ranks)
        for (OpId id : rank) {
            if (static_cast<int>(out.size()) >= limit)
                return out;
            out.push_back(id);
        }
    return out;
}

void OpSearchWidget::refresh()
{
    matches_ = graph_ ? findOps(*graph_, edit_->text(), kMaxResults) : std::vector<OpId>{};
    list_->clear();
    for (OpId id : matches_) {
        const Op& op = graph_->op(id);
        auto* item = new QListWidgetItem(
            QStringLiteral("%1  —  %2").arg(QString::fromStdString(op.name), QString::fromStdString(op.type)));
        item->setData(Qt::UserRole, id);
        list_->addItem(item);
    }
    if (!matches_.empty())
        list_->setCurrentRow(0);
    // As tall as the results, up to kVisibleRows.
    const int rows = std::min(list_->count(), kVisibleRows);
    const int rowHeight = list_->count() > 0 ? list_->sizeHintForRow(0) : 0;
    list_->setFixedHeight(rows * rowHeight + 2 * list_->frameWidth());
    const bool typed = !edit_->text().trimmed().isEmpty();
    count_->setVisible(typed);
    list_->setVisible(!matches_.empty());
    count_->setText(matches_.empty() ? tr("No op matches")
                        : static_cast<int>(matches_.size()) >= kMaxResults
                        ? tr("First %1 matches").arg(matches_.size())
                        : tr("%n match(es)", nullptr, static_cast<int>(matches_.size())));
    adjustSize();
    emit matchesChanged(matches_);
}

void OpSearchWidget::pickCurrent()
{
    if (matches_.empty())
        return;
    const int row = std::max(0, list_->currentRow());
    emit opPicked(matches_[static_cast<size_t>(row)]);
}

void OpSearchWidget::close()
{
    hide();
    emit closed();
}

bool OpSearchWidget::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::KeyPress)
        return QFrame::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Escape) {
        close();
        return true;
    }
    if (watched == edit_ && (key->key() == Qt::Key_Down || key->key() == Qt::Key_Up) && list_->count() > 0) {
        const int step = key->key() == Qt::Key_Down ? 1 : -1;
        list_->setCurrentRow(std::clamp(list_->currentRow() + step, 0, list_->count() - 1));
        pickCurrent(); // follow the selection as the user arrows through results
        return true;
    }
    return QFrame::eventFilter(watched, event);
}

} // namespace post
