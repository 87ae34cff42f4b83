#pragma once

#include "ui/MainWindow.h"

#include <QSignalSpy>
#include <QString>
#include <QtGlobal>

#include <memory>

// The main window as the route, session and autosave tests open it.
namespace uitest {

// A graph of the repository's samples/graphs folder.
inline QString sample(const char* name)
{
    return qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/") + QLatin1String(name);
}

// A window showing `path`, errors reported by signal only; `interactive` asks the window's
// questions (and shows errors) once the graph is shown.
inline std::unique_ptr<post::MainWindow> openWindow(const QString& path, bool interactive = false)
{
    constexpr int kShownWaitMs = 60000;
    auto window = std::make_unique<post::MainWindow>();
    window->setInteractiveErrors(false);
    QSignalSpy shown(window.get(), &post::MainWindow::documentShown);
    window->openFile(path);
    if (!shown.wait(kShownWaitMs))
        qFatal("%s was not shown", qPrintable(path));
    if (interactive) {
        window->setInteractiveErrors(true); // the question is asked from here on
        window->show();
    }
    return window;
}

} // namespace uitest
