#include "ui/document/DocumentHub.h"

#include "ui/document/DocumentLoader.h"
#include "ui/document/StepSimulation.h"

namespace post {

DocumentHub::DocumentHub(QObject* parent)
    : QObject(parent)
    , loader_(new DocumentLoader(this))
    , steps_(new StepSimulation(this))
{
    connect(loader_, &DocumentLoader::loaded, this, [this](DocumentPtr document) {
        if (document && document->sim.dispatch != dispatch_) {
            auto timed = std::make_shared<GraphDocument>(*document);
            timed->sim.dispatch = dispatch_;
            document = std::move(timed);
        }
        publish(std::move(document));
    });
    connect(loader_, &DocumentLoader::failed, this, &DocumentHub::loadFailed);
    connect(loader_, &DocumentLoader::progress, this, &DocumentHub::loadProgress);
}

DocumentHub::~DocumentHub() = default;

void DocumentHub::load(const QString& path) { loader_->load(path); }

bool DocumentHub::isLoading() const { return loader_->isLoading(); }

void DocumentHub::cancelLoad() { loader_->cancel(); }

bool DocumentHub::setClusterName(const QString& nameOrPath)
{
    if (nameOrPath == loader_->clusterName())
        return false;
    loader_->setClusterName(nameOrPath);
    emit clusterNameChanged(nameOrPath);
    return true;
}

const QString& DocumentHub::clusterName() const { return loader_->clusterName(); }

bool DocumentHub::setPrecision(PrecisionMode mode)
{
    const bool readsChange = loader_->precision() != mode;
    loader_->setPrecision(mode);
    if (!document_ || !document_->cluster || document_->cluster->precision() == mode)
        return readsChange;
    // The same devices in another mode: the placement still applies, the costs do not.
    auto cluster = std::make_shared<Cluster>(*document_->cluster);
    cluster->setPrecision(mode);
    setCluster(std::move(cluster), document_->placement, this);
    return true;
}

bool DocumentHub::setDispatch(Dispatch dispatch)
{
    const bool readsChange = dispatch_ != dispatch;
    dispatch_ = dispatch;
    if (!document_ || !document_->cluster || document_->sim.dispatch == dispatch)
        return readsChange;
    // The same placement timed under another rule. The cluster is copied, so that whatever
    // holds results of the current cluster (a step, a run, a proven bound) sees another one.
    auto next = std::make_shared<GraphDocument>(*document_);
    next->cluster = std::make_shared<Cluster>(*document_->cluster);
    next->sim.dispatch = dispatch;
    next->made = {}; // its step time was the other rule's
    publish(std::move(next), Change::Cluster, this);
    return true;
}

PrecisionMode DocumentHub::precision() const
{
    if (const auto mode = loader_->precision())
        return *mode;
    return document_ && document_->cluster ? document_->cluster->precision() : PrecisionMode::Tf32;
}

bool DocumentHub::setBatch(std::int64_t batch)
{
    if (batch < 1 || batch == loader_->batch())
        return false;
    loader_->setBatch(batch);
    return true;
}

std::int64_t DocumentHub::batch() const { return loader_->batch(); }

void DocumentHub::setDimensions(const QString& path, const InputDimensions& dimensions)
{
    loader_->setDimensions(path, dimensions);
}

InputDimensions DocumentHub::dimensions(const QString& path) const { return loader_->dimensions(path); }

void DocumentHub::setCosts(const QString& path, const MeasuredCostsFiles& costs) { loader_->setCosts(path, costs); }

MeasuredCostsFiles DocumentHub::costs(const QString& path) const { return loader_->costs(path); }

void DocumentHub::open(DocumentPtr document)
{
    // A restored document (a session) brings its cluster's mode: reads go on in the mode on show.
    if (document && document->cluster && loader_->precision())
        loader_->setPrecision(document->cluster->precision());
    if (document) // and its rule
        dispatch_ = document->sim.dispatch;
    loader_->cancel(); // a read still running must not replace this document
    publish(std::move(document));
}

void DocumentHub::close()
{
    loader_->cancel();
    publish(nullptr);
}

void DocumentHub::setPlacement(Placement placement, PlacementProvenance made, const QObject* origin)
{
    if (!document_)
        return;
    auto next = std::make_shared<GraphDocument>(*document_); // the same graphId
    next->placement = std::move(placement);
    next->made = std::move(made);
    publish(std::move(next), Change::Placement, origin);
}

void DocumentHub::setCluster(std::shared_ptr<const Cluster> cluster, Placement placement, const QObject* origin)
{
    if (!document_ || !cluster)
        return;
    auto next = std::make_shared<GraphDocument>(*document_);
    next->cluster = std::move(cluster);
    next->placement = std::move(placement);
    next->made = {}; // mapped onto other devices: no placer's result as such
    publish(std::move(next), Change::Cluster, origin);
}

void DocumentHub::publish(DocumentPtr document, Change change, const QObject* origin)
{
    document_ = std::move(document);
    change_ = change;
    origin_ = origin;
    emit documentChanged(document_);
    // Every panel has the document: its step follows (at once on small graphs).
    steps_->setDocument(document_);
}

} // namespace post
