#pragma once

#include <QApplication>
#include <QFileDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>

#include <memory>

// Answering the modal dialogs a UI test's next call opens (they run their own event loop).
namespace uitest {

// Answers the message box that opens next with `button`, then (after Save) the file dialog
// with `path`. `question`, when given, receives the box's text.
inline void answerDialogs(QMessageBox::StandardButton button, const QString& path = {},
                          std::shared_ptr<QString> question = {})
{
    auto* timer = new QTimer;
    timer->setInterval(20);
    auto answered = std::make_shared<bool>(false);
    QObject::connect(timer, &QTimer::timeout, [timer, answered, button, path, question] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* box = qobject_cast<QMessageBox*>(modal); box && !*answered) {
            *answered = true;
            if (question)
                *question = box->text() + QLatin1Char('\n') + box->informativeText();
            if (path.isEmpty()) {
                timer->stop();
                timer->deleteLater();
            }
            box->button(button)->click();
        } else if (auto* files = qobject_cast<QFileDialog*>(modal); files && *answered) {
            timer->stop();
            timer->deleteLater();
            // Typed into the name field, as a user would: selectFile() alone can be overtaken by
            // the dialog's own default name when its directory loads late on a busy machine.
            files->selectFile(path);
            if (auto* name = files->findChild<QLineEdit*>(QStringLiteral("fileNameEdit")))
                name->setText(path);
            static_cast<QDialog*>(files)->accept(); // QFileDialog::accept, protected there
        }
    });
    timer->start();
}

} // namespace uitest
