#include "document/DocumentLoader.h"

#include "io/ClusterPresets.h"
#include "io/GraphFile.h"
#include "util/InputError.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <variant>

namespace post {
namespace {

// What a pool thread hands back: a document, or the message to show (nothing when the load
// was superseded before it started).
using LoadOutcome = std::variant<DocumentPtr, QString>;

QString describe(const InputError& e)
{
    QString text = QString::fromStdString(e.message());
    if (!e.location().empty())
        text = QString::fromStdString(e.location()) + QStringLiteral(": ") + text;
    return text;
}

LoadOutcome loadOutcome(const QString& path, const QString& cluster, const std::shared_ptr<std::atomic<quint64>>& latest,
                        quint64 generation)
{
    // Opening several files quickly (or Cancel) queues reads on the pool: skip those no
    // longer wanted instead of reading each in turn.
    if (latest->load() != generation)
        return QString();
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
    , latest_(std::make_shared<std::atomic<quint64>>(0))
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
    latest_->store(generation);
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
    watcher->setFuture(QtConcurrent::run(loadOutcome, path, cluster_, latest_, generation));
}

} // namespace post
