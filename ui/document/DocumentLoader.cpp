#include "ui/document/DocumentLoader.h"

#include "core/io/GraphFile.h"
#include "core/io/ImportedGraph.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/torch/CostsFiles.h"
#include "core/io/torch/TorchModules.h"
#include "core/util/InputError.h"
#include "ui/util/LatestRead.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <QStringList>

#include <algorithm>

namespace post {
namespace {

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

// The measured costs of `costs` on `imported` (core's applyCostsFiles, as post-cli --costs),
// what each measured as notes; an error names the costs file (the read fails as the graph's).
void applyCosts(ImportedGraph& imported, const MeasuredCostsFiles& costs, GraphDocument& doc)
{
    std::vector<CostsFile> files;
    for (const QString& value : costs.files)
        files.push_back(parseCostsFile(value.toStdString()));
    try {
        for (const std::string& note : applyCostsFiles(imported, files, {.partial = costs.partial}))
            doc.notes << QString::fromStdString(note);
    } catch (const InputError& e) {
        throw InputError(imported.source, "measured costs",
                         e.file() + ": " + readErrorText(e).toStdString()
                             + " (File ▸ Forget Measured Costs reads the graph without them)");
    }
    doc.costs = costs;
}

// The per-file read settings (input dimensions, measured costs) are kept by absolute path;
// an empty value forgets the file's.
template <class T> void keepForPath(QHash<QString, T>& settings, const QString& path, const T& value)
{
    const QString key = QFileInfo(path).absoluteFilePath();
    if (value.empty())
        settings.remove(key);
    else
        settings.insert(key, value);
}

template <class T> T forPath(const QHash<QString, T>& settings, const QString& path)
{
    return settings.value(QFileInfo(path).absoluteFilePath());
}

} // namespace

DocumentLoader::DocumentLoader(QObject* parent)
    : QObject(parent)
    , read_(std::make_unique<LatestRead<DocumentPtr>>(this))
{
    qRegisterMetaType<post::DocumentPtr>();
}

QString DocumentLoader::defaultClusterName() { return QStringLiteral("k80x4"); }

QString DocumentLoader::clusterProblem(const QString& nameOrPath)
{
    try {
        loadCluster(nameOrPath.toStdString());
    } catch (const InputError& e) { // the message is shown apart from the graph's: it names the file
        const QString file = QString::fromStdString(e.file());
        return file.isEmpty() ? readErrorText(e) : file + QStringLiteral(": ") + readErrorText(e);
    } catch (const std::exception& e) {
        return readErrorText(e);
    }
    return {};
}

void DocumentLoader::setDimensions(const QString& path, const InputDimensions& dimensions)
{
    keepForPath(dimensions_, path, dimensions);
}

InputDimensions DocumentLoader::dimensions(const QString& path) const { return forPath(dimensions_, path); }

void DocumentLoader::setCosts(const QString& path, const MeasuredCostsFiles& costs)
{
    keepForPath(costs_, path, costs);
}

MeasuredCostsFiles DocumentLoader::costs(const QString& path) const { return forPath(costs_, path); }

DocumentPtr DocumentLoader::loadNow(const QString& path, const QString& clusterName, std::int64_t batch,
                                    const InputDimensions& dimensions, std::optional<PrecisionMode> precision,
                                    const MeasuredCostsFiles& costs,
                                    std::function<void(std::string_view stage, double fraction)> progress)
{
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QFileInfo(path).absoluteFilePath();
    ImportOptions options;
    options.batch = batch;
    options.dims = dimensions.dims;
    options.inputShapes = dimensions.inputShapes;
    options.counts = dimensions.counts;
    options.countsAtMost = dimensions.countsAtMost;
    options.progress = std::move(progress);
    if (!costs.empty()) { // as post-cli --costs: measured times are eager PyTorch's kernels, one per op
        options.fuseElementwise = false;
        options.fusionGivenBy = "measured costs: their times are per op, as eager PyTorch runs them";
    }
    ImportedGraph imported = readGraphFileWithPlacement(path.toStdString(), GraphFormat::Auto, options);
    applyCosts(imported, costs, *doc);
    doc->format = imported.format;
    doc->eagerHost = imported.eagerHost;
    doc->batch = batch;
    for (const std::vector<std::int64_t>& shape : imported.inputShapes) { // their shared leading dimension
        const std::int64_t lead = shape.empty() ? 0 : shape.front();
        if (lead <= 0 || (doc->modelBatch > 0 && lead != doc->modelBatch)) {
            doc->modelBatch = 0;
            break;
        }
        doc->modelBatch = lead;
    }
    doc->dimensions = dimensions;
    doc->unresolvedDims = imported.unresolvedDims;
    if (!imported.unresolvedDims.empty())
        doc->notes << (imported.unresolvedDims.size() == 1
                           ? QObject::tr("1 input dimension has no value and counts as 1, so the costs are guesses: "
                                         "File ▸ Input Dimensions gives it")
                           : QObject::tr("%1 input dimensions have no value and count as 1, so the costs are guesses: "
                                         "File ▸ Input Dimensions gives them")
                                 .arg(imported.unresolvedDims.size()));
    doc->dataSizes = imported.dataDependentSizes;
    if (doc->hasOpenDataSizes())
        doc->notes << QObject::tr("Some sizes depend on the data (how many elements a NonZero finds, how many boxes a "
                                  "NonMaxSuppression keeps), so the shapes after them are unknown: File ▸ Input "
                                  "Dimensions gives them, or takes each at its most (a worst case)");
    if (imported.unresolvedDims.empty()) { // (unresolved dimensions leave tensors unshaped: those come first)
        if (const std::string problem = unshapedTensorsProblem(imported); !problem.empty()) {
            doc->cannotRun = QObject::tr("Runs are off: %1").arg(QString::fromStdString(problem));
            doc->notes << doc->cannotRun;
        }
    }
    Cluster cluster = loadCluster(clusterName.toStdString());
    if (precision)
        cluster.setPrecision(*precision);
    else if (cluster.precision() == PrecisionMode::Tf32) // the cluster's default: the graph's framework's
        cluster.setPrecision(imported.frameworkPrecision());
    doc->cluster = std::make_shared<const Cluster>(std::move(cluster));
    if (!imported.unknownOpTypes.empty())
        doc->notes << unknownTypesNote(imported.unknownOpTypes);
    // What the reader warns of (a DOT graph without costs, TensorFlow library functions
    // kept opaque) and notes (graph inputs taken as weights), as the CLI prints them.
    for (const std::string& warning : imported.warnings)
        doc->notes << QString::fromStdString(warning);
    for (const std::string& note : imported.notes)
        doc->notes << QString::fromStdString(note);
    if (imported.hasGivenPlacement()) {
        try {
            Placement given = givenPlacement(imported, *doc->cluster);
            if (auto problem = placementProblem(imported.graph, *doc->cluster, given))
                throw InputError(imported.source, "given placement", *problem);
            doc->given = doc->placement = std::move(given);
            doc->notes << QObject::tr("Showing the placement the file gives");
        } catch (const InputError& e) {
            doc->notes << QObject::tr("The file's placement is not shown: %1").arg(readErrorText(e));
        }
    }
    // A PyTorch export's modules each on one device, as post-cli place searches them and
    // post_torch.apply runs them (core/io/torch/TorchModules.h).
    try {
        if (const std::optional<ModuleGroups> groups = groupByModules(imported.graph, path.toStdString()))
            if (const std::string note = groups->note(); !note.empty())
                doc->notes << QString::fromStdString(note);
    } catch (const InputError& e) {
        doc->notes << QObject::tr("%1: not read, so each op is placed on its own: %2")
                          .arg(QString::fromStdString(e.file()), readErrorText(e));
    }
    doc->graph = std::make_shared<const Graph>(std::move(imported.graph));
    return doc;
}

DocumentLoader::~DocumentLoader() = default;

bool DocumentLoader::isLoading() const { return read_->isBusy(); }

void DocumentLoader::cancel()
{
    ++*generation_;
    read_->cancel();
}

void DocumentLoader::load(const QString& path)
{
    const std::uint64_t generation = ++*generation_;
    // Called on the reading thread: posted to this object's thread, once per percent.
    auto report = [self = QPointer<DocumentLoader>(this), generations = generation_, generation,
                   last = std::make_shared<int>(-1)](std::string_view stage, double fraction) {
        const int percent = static_cast<int>(fraction * 100.0);
        if (percent == *last || generations->load() != generation)
            return;
        *last = percent;
        QMetaObject::invokeMethod(
            qApp,
            [self, generations, generation,
             stage = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size())), fraction] {
                if (self && generations->load() == generation)
                    emit self->progress(stage, fraction);
            },
            Qt::QueuedConnection);
    };
    read_->start([path, cluster = cluster_, batch = batch_, dims = dimensions(path), precision = precision_,
                  costs = costs(path), report] { return loadNow(path, cluster, batch, dims, precision, costs, report); },
                 [this, path](const ReadOutcome<DocumentPtr>& outcome) {
                     if (const auto* doc = std::get_if<DocumentPtr>(&outcome))
                         emit loaded(*doc);
                     else
                         emit failed(path, std::get<QString>(outcome));
                 });
}

} // namespace post
