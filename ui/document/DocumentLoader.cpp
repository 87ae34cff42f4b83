#include "document/DocumentLoader.h"

#include "io/ClusterPresets.h"
#include "io/GraphFile.h"
#include "util/InputError.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <variant>

namespace post {
namespace {

// What a pool thread hands back: a document, or the message to show.
using LoadOutcome = std::variant<DocumentPtr, QString>;

QString describe(const InputError& e)
{
    QString text = QString::fromStdString(e.message());
    if (!e.location().empty())
        text = QString::fromStdString(e.location()) + QStringLiteral(": ") + text;
    return text;
}

LoadOutcome loadOutcome(const QString& path, const QString& cluster)
{
    try {
        return DocumentLoader::loadNow(path, cluster);
    } catch (const InputError& e) {
        return describe(e);
    } catch (const std::bad_alloc&) {
        return QObject::tr("not enough memory to read it");
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

} // namespace

DocumentLoader::DocumentLoader(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<post::DocumentPtr>();
}

QString DocumentLoader::defaultClusterName()
{
    return QStringLiteral("k80x4");
}

DocumentPtr DocumentLoader::loadNow(const QString& path, const QString& clusterName)
{
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QFileInfo(path).absoluteFilePath();
    doc->graph = std::make_shared<const Graph>(readGraphFile(path.toStdString()));
    doc->cluster = std::make_shared<const Cluster>(loadCluster(clusterName.toStdString()));
    return doc;
}

void DocumentLoader::load(const QString& path)
{
    const quint64 generation = ++generation_;
    loading_ = true;
    auto* watcher = new QFutureWatcher<LoadOutcome>(this);
    connect(watcher, &QFutureWatcher<LoadOutcome>::finished, this, [this, watcher, generation, path] {
        watcher->deleteLater();
        if (generation != generation_)
            return; // a newer load replaced this one
        loading_ = false;
        const LoadOutcome outcome = watcher->result();
        if (const auto* doc = std::get_if<DocumentPtr>(&outcome))
            emit loaded(*doc);
        else
            emit failed(path, std::get<QString>(outcome));
    });
    watcher->setFuture(QtConcurrent::run(loadOutcome, path, cluster_));
}

} // namespace post
