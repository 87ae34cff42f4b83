#include "ui/graphview/RetryOverlay.h"

#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace post {

RetryOverlay::RetryOverlay(QWidget* parent)
    : QFrame(parent)
    , label_(new QLabel(this))
{
    setObjectName(QStringLiteral("retryOverlay"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    label_->setAlignment(Qt::AlignCenter);
    label_->setWordWrap(true);
    auto* button = new QPushButton(tr("Lay Out Again"), this);
    button->setObjectName(QStringLiteral("layOutAgain"));
    connect(button, &QPushButton::clicked, this, &RetryOverlay::retry);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(18, 14, 18, 14);
    layout->addWidget(label_);
    layout->addWidget(button, 0, Qt::AlignHCenter);
}

void RetryOverlay::setMessage(const QString& text)
{
    label_->setText(text);
    adjustSize();
}

QString RetryOverlay::message() const { return label_->text(); }

} // namespace post
