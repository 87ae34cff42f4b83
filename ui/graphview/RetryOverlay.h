#pragma once

#include <QFrame>

class QLabel;

namespace post {

// Shown over an empty graph view when its layout was cancelled: says so and offers to
// lay the graph out again.
class RetryOverlay : public QFrame {
    Q_OBJECT

public:
    explicit RetryOverlay(QWidget* parent = nullptr);
    void setMessage(const QString& text);
    QString message() const;

signals:
    void retry();

private:
    QLabel* label_;
};

} // namespace post
