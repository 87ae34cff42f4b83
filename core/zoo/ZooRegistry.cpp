#include "core/zoo/ZooRegistry.h"

#include "core/zoo/ZooModels.h"

#include <functional>
#include <stdexcept>

namespace post {
namespace {

struct Entry {
    ZooModelInfo info;
    std::function<ShapedGraph(int batch, int steps)> build;
};

// Default batches are the ones the papers ran: 32 for the CNNs (ColocRL, Post), 64 for the
// LSTM models (ColocRL), 32 sequences of 128 for BERT (Devlin et al. use 256 over many chips),
// 8 sequences of 1,024 for GPT-2 (OpenAI used 512 over many chips).
const std::vector<Entry>& entries()
{
    auto fixed = [](ShapedGraph (*f)(int)) { return [f](int batch, int) { return f(batch); }; };
    auto gpt = [](const char* name, int layers, int hidden) {
        return [=](int batch, int) { return buildGpt(name, batch, layers, hidden); };
    };
    static const std::vector<Entry> list{
        {{"inception-v3", "Inception-V3, 299x299 images, auxiliary head (Szegedy et al. 2016; TF-slim)", 32},
         fixed(buildInceptionV3)},
        {{"resnet-50", "ResNet-50 v1.5, 224x224 images (He et al. 2016)", 32}, fixed(buildResNet50)},
        {{"rnnlm-2", "2-layer LSTM language model, 2048 units, 10k words, 20 steps (ColocRL's RNNLM)", 64, 20},
         [](int b, int steps) { return buildRnnlm(b, 2, steps); }},
        {{"rnnlm-4", "4-layer LSTM language model, 2048 units, 10k words, 20 steps (Post's RNNLM)", 64, 20},
         [](int b, int steps) { return buildRnnlm(b, 4, steps); }},
        {{"nmt-2", "GNMT-style translation, 2+2 LSTM layers of 1024, attention, 30+30 steps (ColocRL)", 64, 30},
         [](int b, int steps) { return buildNmt(b, 2, steps); }},
        {{"nmt-4", "GNMT-style translation, 4+4 LSTM layers of 1024, attention, 30+30 steps (ColocRL)", 64, 30},
         [](int b, int steps) { return buildNmt(b, 4, steps); }},
        {{"nmt-8", "GNMT translation, 8+8 LSTM layers of 1024, attention, 30+30 steps (Wu et al. 2016)", 64, 30},
         [](int b, int steps) { return buildNmt(b, 8, steps); }},
        // Its "steps" are the sequence's tokens (--steps 384: SQuAD fine-tuning's length).
        {{"bert-base", "BERT-base pre-training, 12 layers, hidden 768, sequence 128, Adam (Devlin et al. 2019)", 32,
          128, true},
         [](int b, int seq) { return buildBertBase(b, seq); }},
        {{"gpt2", "GPT-2 124M decoder, 12 layers, hidden 768, sequence 1024, Adam (Radford et al. 2019)", 8, 0, true},
         gpt("gpt2", 12, 768)},
        {{"gpt2-medium", "GPT-2 355M decoder, 24 layers, hidden 1024, sequence 1024, Adam", 8, 0, true},
         gpt("gpt2-medium", 24, 1024)},
        {{"gpt2-large", "GPT-2 774M decoder, 36 layers, hidden 1280, sequence 1024, Adam", 8, 0, true},
         gpt("gpt2-large", 36, 1280)},
        {{"gpt2-xl", "GPT-2 1.5B decoder, 48 layers, hidden 1600, sequence 1024, Adam", 8, 0, true},
         gpt("gpt2-xl", 48, 1600)},
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

ShapedGraph ZooRegistry::forwardGraph(const std::string& name, int batch, int steps)
{
    const Entry* e = findEntry(name);
    if (!e)
        throw std::invalid_argument("no model '" + name + "' in the zoo (models: " + joinedNames() + ")");
    if (steps > 0 && e->info.defaultSteps == 0)
        throw std::invalid_argument("model '" + name + "' has no time steps to unroll");
    if (steps > kMaxSteps)
        throw std::invalid_argument("at most " + std::to_string(kMaxSteps) + " time steps");
    return e->build(batch > 0 ? batch : e->info.defaultBatch, steps > 0 ? steps : e->info.defaultSteps);
}

Graph ZooRegistry::generate(const std::string& name, int batch, const CostModelOptions& options, CostReport* report,
                            int steps)
{
    ShapedGraph forward = forwardGraph(name, batch, steps);
    if (forward.ops.size() > kMaxForwardOps)
        throw std::invalid_argument(name + (steps > 0 ? " with " + std::to_string(steps) + " steps" : std::string())
                                    + " has " + std::to_string(forward.ops.size()) + " forward ops; at most "
                                    + std::to_string(kMaxForwardOps)
                                    + " (its training step would take over 1 GB to build and give a file over the "
                                      "160 MB a graph file may have; nmt-8 reaches it at about 400 steps)");
    // The step's update ops come from the cost model (CostModelOptions::optimizer): models
    // trained with Adam get Adam's, the others the options' (SGD with momentum by default).
    CostModelOptions step = options;
    if (findEntry(name)->info.optimizerUpdates && step.optimizer != OptimizerKind::None)
        step.optimizer = OptimizerKind::Adam;
    return buildTrainingGraph(std::move(forward), step, report);
}

} // namespace post
