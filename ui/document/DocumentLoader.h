#pragma once

#include "document/GraphDocument.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace post {

// Reads graph files on a pool thread (QtConcurrent) so the window stays responsive.
// Only the newest load is reported: opening B while A is still reading drops A.
class DocumentLoader : public QObject {
    Q_OBJECT

public:
    explicit DocumentLoader(QObject* parent = nullptr);

    // Cluster preset name or post-cluster file for documents loaded from now on.
    void setClusterName(const QString& nameOrPath) { cluster_ = nameOrPath; }
    const QString& clusterName() const { return cluster_; }

    void load(const QString& path);
    bool isLoading() const { return loading_; }
    // Drops the load in progress (its result is never reported).
    void cancel()
    {
        latest_->store(++generation_);
        loading_ = false;
    }

    // The synchronous work: reads the graph (format sniffed from the content) and the
    // cluster. Throws InputError naming the file and what is wrong with it.
    static DocumentPtr loadNow(const QString& path, const QString& clusterName);
    // The cluster used when none is given on the command line or in the settings.
    static QString defaultClusterName();

signals:
    void loaded(post::DocumentPtr document);
    void failed(const QString& path, const QString& message);

private:
    QString cluster_ = defaultClusterName();
    quint64 generation_ = 0;
    // generation_ for the pool threads: a read that is stale when it starts is skipped.
    std::shared_ptr<std::atomic<quint64>> latest_;
    bool loading_ = false;
};

} // namespace post
