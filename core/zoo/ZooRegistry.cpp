#include "core/zoo/ZooRegistry.h"

#include "core/zoo/ZooModels.h"

#include <functional>
#include <stdexcept>

namespace post {
namespace {

struct Entry {
    ZooModelInfo info;
    std::function<ShapedGraph(int)> build;
};

// Default batches are the ones the papers ran: 32 for the CNNs (ColocRL, Post), 64 for the
// LSTM models (ColocRL), 32 sequences of 128 for BERT (Devlin et al. use 256 over many chips).
const std::vector<Entry>& entries()
{
    static const std::vector<Entry> list{
        {{"inception-v3", "Inception-V3, 299x299 images, auxiliary head (Szegedy et al. 2016; TF-slim)", 32},
         buildInceptionV3},
        {{"resnet-50", "ResNet-50 v1.5, 224x224 images (He et al. 2016)", 32}, buildResNet50},
        {{"rnnlm-2", "2-layer LSTM language model, 2048 units, 10k words, 20 steps (ColocRL's RNNLM)", 64},
         [](int b) { return buildRnnlm(b, 2); }},
        {{"rnnlm-4", "4-layer LSTM language model, 2048 units, 10k words, 20 steps (Post's RNNLM)", 64},
         [](int b) { return buildRnnlm(b, 4); }},
        {{"nmt-2", "GNMT-style translation, 2+2 LSTM layers of 1024, attention, 30+30 steps (ColocRL)", 64},
         [](int b) { return buildNmt(b, 2); }},
        {{"nmt-4", "GNMT-style translation, 4+4 LSTM layers of 1024, attention, 30+30 steps (ColocRL)", 64},
         [](int b) { return buildNmt(b, 4); }},
        {{"nmt-8", "GNMT translation, 8+8 LSTM layers of 1024, attention, 30+30 steps (Wu et al. 2016)", 64},
         [](int b) { return buildNmt(b, 8); }},
        {{"bert-base", "BERT-base pre-training, 12 layers, hidden 768, sequence 128 (Devlin et al. 2019)", 32},
         buildBertBase},
    };
    return list;
}

const Entry* findEntry(const std::string& name)
{
    for (const Entry& e : entries())
        if (e.info.name == name)
            return &e;
    return nullptr;
}

} // namespace

const std::vector<ZooModelInfo>& ZooRegistry::models()
{
    static const std::vector<ZooModelInfo> infos = [] {
        std::vector<ZooModelInfo> v;
        for (const Entry& e : entries())
            v.push_back(e.info);
        return v;
    }();
    return infos;
}

std::optional<ZooModelInfo> ZooRegistry::find(const std::string& name)
{
    if (const Entry* e = findEntry(name))
        return e->info;
    return std::nullopt;
}

std::string ZooRegistry::joinedNames()
{
    std::string text;
    for (const Entry& e : entries())
        text += (text.empty() ? "" : ", ") + e.info.name;
    return text;
}

ShapedGraph ZooRegistry::forwardGraph(const std::string& name, int batch)
{
    const Entry* e = findEntry(name);
    if (!e)
        throw std::invalid_argument("no model '" + name + "' in the zoo (models: " + joinedNames() + ")");
    return e->build(batch > 0 ? batch : e->info.defaultBatch);
}

Graph ZooRegistry::generate(const std::string& name, int batch, const CostModelOptions& options, CostReport* report)
{
    return buildTrainingGraph(forwardGraph(name, batch), options, report);
}

} // namespace post
