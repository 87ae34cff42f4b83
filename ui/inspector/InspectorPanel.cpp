#include "ui/inspector/InspectorPanel.h"

#include "core/cost/HostDispatch.h"

#include "ui/theme/CategoryPalette.h"
#include "ui/theme/ViewTheme.h"
#include "ui/util/Format.h"

#include <QEvent>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace post {
namespace {

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString row(const QString& label, const QString& value)
{
    return QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>").arg(label, value);
}

QString swatch(const QColor& colour)
{
    return QStringLiteral("<span style='color:%1'>&#9632;</span> ").arg(colour.name());
}

} // namespace

InspectorPanel::InspectorPanel(QWidget* parent)
    : QWidget(parent)
    , browser_(new QTextBrowser(this))
{
    browser_->setOpenLinks(false);
    browser_->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(browser_);
    connect(browser_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const OpId op = opFromLink(url);
        if (op != kNoOp)
            emit opActivated(op);
    });
    render();
}

void InspectorPanel::setDocument(DocumentPtr document)
{
    const bool sameGraph = document && document_ && document->graphId == document_->graphId;
    document_ = std::move(document);
    if (!sameGraph)
        op_ = kNoOp;
    render();
}

void InspectorPanel::showOp(OpId op)
{
    op_ = op;
    render();
}

QString InspectorPanel::html() const { return browser_->toHtml(); }

OpId InspectorPanel::opFromLink(const QUrl& url)
{
    if (url.scheme() != QLatin1String("op"))
        return kNoOp;
    bool ok = false;
    const int id = url.path().toInt(&ok);
    return ok ? id : kNoOp;
}

void InspectorPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        render(true); // swatch and link colours depend on the palette
}

InspectorPanel::Shown InspectorPanel::shownNow() const
{
    Shown s;
    if (!document_ || !document_->graph)
        return s;
    s.graphId = document_->graphId;
    s.cluster = document_->cluster.get();
    if (op_ >= 0 && op_ < document_->opCount()) {
        s.op = op_;
        s.device = document_->deviceOf(op_);
    } else {
        // The summary's placement row: none yet, the file's own, or another.
        s.device = !document_->isPlaced() ? 0 : document_->placement == document_->given ? 1 : 2;
    }
    return s;
}

QString InspectorPanel::summaryHtml()
{
    const Graph& graph = *document_->graph;
    if (totalsGraph_ != document_->graphId) {
        totalsGraph_ = document_->graphId;
        gpuTotalUs_ = graph.totalTimeUs(DeviceKind::Gpu);
        cpuTotalUs_ = graph.totalTimeUs(DeviceKind::Cpu);
        paramBytes_ = graph.totalParamBytes();
    }
    QString h = QStringLiteral("<h3 style='margin-bottom:2px'>%1</h3>")
                    .arg(graph.name().empty() ? tr("Graph") : esc(graph.name()));
    h += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    h += row(tr("Ops"), QString::number(graph.opCount()));
    h += row(tr("Edges"), QString::number(graph.edgeCount()));
    h += row(tr("Colocation groups"), QString::number(graph.colocationGroupCount()));
    h += row(tr("GPU time (sum)"), formatMicroseconds(gpuTotalUs_));
    h += row(tr("CPU time (sum)"), formatMicroseconds(cpuTotalUs_));
    h += row(tr("Parameters"), formatBytes(paramBytes_));
    if (document_->cluster)
        h += row(tr("Cluster"),
                 tr("%1 (%n devices)", nullptr, document_->cluster->deviceCount()).arg(esc(document_->cluster->name())));
    if (document_->cluster)
        h += row(tr("Precision"), describePrecision(document_->cluster->precision()).toHtmlEscaped());
    const bool fromFile = document_->isPlaced() && document_->placement == document_->given;
    h += row(tr("Placement"), !document_->isPlaced() ? tr("none yet") : fromFile ? tr("the file's own") : tr("shown"));
    if (document_->format == GraphFormat::Onnx)
        h += row(tr("Batch size"), document_->batchText().toHtmlEscaped());
    if (document_->eagerHost) // what eager PyTorch's host thread takes, whatever the placement
        h += row(tr("Host dispatch"),
                 tr("%1 (eager PyTorch: %2 ops at about %3 µs each from one host thread, %4; a "
                    "shorter step is likely bound by the host)")
                     .arg(formatMicroseconds(eagerDispatchUs(graph, document_->cluster.get())))
                     .arg(dispatchedOps(graph))
                     .arg(dispatchUsPerOp(document_->cluster.get()))
                     .arg(QString::fromStdString(dispatchRateSource(document_->cluster.get())).toHtmlEscaped()));
    return h + QStringLiteral("</table>");
}

void InspectorPanel::render(bool force)
{
    const Shown now = shownNow();
    if (!force && shown_ == now)
        return; // nothing shown changed (e.g. a new best that moves other ops)
    shown_ = now;
    ++renders_;
    const QString hint = QStringLiteral("<p style='color:%1'>%2</p>")
                             .arg(palette().color(QPalette::PlaceholderText).name(),
                                  tr("Select an op in the graph or the table to see its details."));
    if (!document_ || !document_->graph) {
        browser_->setHtml(hint);
        return;
    }
    if (op_ < 0 || op_ >= document_->opCount()) {
        browser_->setHtml(summaryHtml() + hint);
        return;
    }
    const Graph& graph = *document_->graph;
    const Op& op = graph.op(op_);
    QString h;
    h += QStringLiteral("<h3 style='margin-bottom:2px'>%1</h3>").arg(esc(op.name));
    h += QStringLiteral("<p style='margin-top:0'>%1</p>").arg(op.type.empty() ? tr("(no type)") : esc(op.type));
    h += QStringLiteral("<table cellspacing='0' cellpadding='2'>");

    const DeviceId device = document_->deviceOf(op_);
    const ViewTheme theme = ViewTheme::fromPalette(palette());
    h += row(tr("Device"),
             device == kNoDevice
                 ? swatch(theme.unplaced) + tr("unplaced")
                 : swatch(CategoryPalette::colour(device)) + esc(document_->cluster->device(device).name));
    // Where a time comes from: measured (--costs, docs/pytorch.md), estimated by the cost model
    // from shapes, derived from the other kind's time (a PipeDream profile's CPU times), or
    // (nothing said) as the file gives it, e.g. a PipeDream profile's GPU times.
    const bool costed = op.flops > 0.0 || op.memoryBytes > 0.0;
    const auto source = [&](DeviceKind kind) {
        if (op.measured(kind))
            return op.measuredBy.empty() ? tr(" (measured)") : tr(" (measured: %1)").arg(esc(op.measuredBy));
        if (costed)
            return tr(" (estimated)");
        if (op.derived(kind))
            return kind == DeviceKind::Cpu ? tr(" (derived: the GPU time x the CPU slowdown)")
                                           : tr(" (derived: the CPU time / the CPU slowdown)");
        return QString();
    };
    h += row(tr("GPU time"), formatMicroseconds(op.time(DeviceKind::Gpu)) + source(DeviceKind::Gpu));
    h += row(tr("CPU time"), formatMicroseconds(op.time(DeviceKind::Cpu)) + source(DeviceKind::Cpu));
    // Times per device type (docs/clusters.md, "Device types"): used as they are on such devices.
    for (const TypedTime& t : op.typedTimes)
        h += row(tr("Time on %1").arg(esc(t.type)),
                 formatMicroseconds(t.us)
                     + (!t.measured                 ? tr(" (given)")
                            : op.measuredBy.empty() ? tr(" (measured)")
                                                    : tr(" (measured: %1)").arg(esc(op.measuredBy))));
    if (device != kNoDevice)
        h += row(tr("On its device"), formatMicroseconds(document_->placedTimeUs(op_)));
    h += row(tr("Output"), formatBytes(op.outputBytes));
    h += row(tr("Parameters"), formatBytes(op.paramBytes));
    if (const int group = graph.colocationGroup(op_); group >= 0) {
        // The group's name (often its first op's), and the other ops that share its device.
        QStringList others;
        int count = 0;
        for (OpId other = 0; other < graph.opCount(); ++other)
            if (other != op_ && graph.colocationGroup(other) == group && ++count <= 5)
                others << esc(graph.op(other).name);
        if (count > 5)
            others << tr("%n more", nullptr, count - 5);
        h += row(tr("Colocation group"), esc(graph.colocationGroupName(group)));
        h += row(tr("Colocated with"), others.isEmpty() ? tr("no other op") : others.join(QStringLiteral(", ")));
    }
    if (!op.body.empty()) // a control-flow op: what its bodies hold and how they were costed
        h += row(tr("Body"), esc(op.body));
    if (!op.fusedInto.empty()) // kernel fusion: its cost is the kernel's, counted on that op
        h += row(tr("Fused into"), esc(op.fusedInto));
    h += QStringLiteral("</table>");

    auto neighbours = [&](const QString& title, std::span<const EdgeId> edges, bool inputs) {
        h += QStringLiteral("<p style='margin-bottom:2px'><b>%1</b> (%2)</p>").arg(title).arg(edges.size());
        if (edges.empty()) {
            h += QStringLiteral("<p style='margin-top:0'>%1</p>").arg(tr("none"));
            return;
        }
        h += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
        for (EdgeId e : edges) {
            const Edge& edge = graph.edge(e);
            const OpId other = inputs ? edge.from : edge.to;
            h += QStringLiteral("<tr><td style='padding-right:10px'><a href='op:%1'>%2</a></td><td>%3</td></tr>")
                     .arg(other)
                     .arg(esc(graph.op(other).name), formatBytes(edge.bytes));
        }
        h += QStringLiteral("</table>");
    };
    neighbours(tr("Inputs"), graph.inEdges(op_), true);
    neighbours(tr("Outputs"), graph.outEdges(op_), false);
    browser_->setHtml(h);
}

} // namespace post
