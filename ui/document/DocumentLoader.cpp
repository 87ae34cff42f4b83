#include "document/DocumentLoader.h"

#include "io/ClusterPresets.h"
#include "io/GraphFile.h"
#include "io/ImportedGraph.h"
#include "util/InputError.h"

#include <QFileInfo>
#include <QStringList>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
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

LoadOutcome loadOutcome(const QString& path, const QString& cluster, std::int64_t batch)
{
    try {
        return DocumentLoader::loadNow(path, cluster, batch);
    } catch (const InputError& e) {
        return describe(e);
    } catch (const std::bad_alloc&) {
        return QObject::tr("not enough memory to read it");
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

QString unknownTypesNote(const std::vector<std::pair<std::string, int>>& types)
{
    constexpr size_t kShown = 5; // the status bar has room for a few; the CLI lists all
    QStringList parts;
    for (size_t i = 0; i < std::min(types.size(), kShown); ++i)
        parts << QStringLiteral("%1 (%2)").arg(QString::fromStdString(types[i].first)).arg(types[i].second);
    if (types.size() > kShown)
        parts << QObject::tr("%n more type(s)", nullptr, static_cast<int>(types.size() - kShown));
    return QObject::tr("No cost formula for %1: estimated as element-wise ops").arg(parts.join(QStringLiteral(", ")));
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

DocumentPtr DocumentLoader::loadNow(const QString& path, const QString& clusterName, std::int64_t batch)
{
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QFileInfo(path).absoluteFilePath();
    ImportOptions options;
    options.batch = batch;
    ImportedGraph imported = readGraphFileWithPlacement(path.toStdString(), GraphFormat::Auto, options);
    doc->format = imported.format;
    doc->batch = batch;
    doc->cluster = std::make_shared<const Cluster>(loadCluster(clusterName.toStdString()));
    if (!imported.unknownOpTypes.empty())
        doc->notes << unknownTypesNote(imported.unknownOpTypes);
    if (imported.hasGivenPlacement()) {
        try {
            Placement given = givenPlacement(imported, *doc->cluster);
            if (auto problem = placementProblem(imported.graph, *doc->cluster, given))
                throw InputError(imported.source, "given placement", *problem);
            doc->given = doc->placement = std::move(given);
            doc->notes << QObject::tr("Showing the placement the file gives");
        } catch (const InputError& e) {
            doc->notes << QObject::tr("The file's placement is not shown: %1").arg(describe(e));
        }
    }
    doc->graph = std::make_shared<const Graph>(std::move(imported.graph));
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
    watcher->setFuture(QtConcurrent::run(loadOutcome, path, cluster_, batch_));
}

} // namespace post
