// LSTM language model: the RNNLM benchmark of Mirhoseini et al., "Device Placement
// Optimization with Reinforcement Learning" (ICML 2017, ColocRL), Section 4: LSTM layers of
// 2048 units, batch 64. ColocRL does not give the vocabulary or the unroll length; we take
// the Penn Treebank setup of Zaremba et al., "Recurrent Neural Network Regularization"
// (2014) whose model ColocRL cites: 10,000 words, embedding size = hidden size, 20 steps,
// and its graph shape (tensorflow/models tutorials/rnn/ptb/ptb_word_lm.py): embedding
// lookup, a static unroll (`steps` long), outputs concatenated and reshaped to [batch*steps, hidden],
// one softmax layer, sequence loss.
#include "core/zoo/LstmLayer.h"
#include "core/zoo/TfGraphBuilder.h"
#include "core/zoo/ZooModels.h"

#include <memory>

namespace post {

ShapedGraph buildRnnlm(int batch, int layers, int steps)
{
    constexpr std::int64_t kVocab = 10000, kHidden = 2048;
    const std::int64_t n = batch;
    TfGraphBuilder b("rnnlm-" + std::to_string(layers));
    const int ids = b.placeholder("input/word_ids", {n, steps}, 4);
    const int targets = b.placeholder("input/targets", {n * steps}, 4);
    const int embedding = b.parameter("Model/embedding", {kVocab, kHidden});
    const int embedded = b.op("Model/embedding_lookup", "GatherV2", {embedding, ids}, {{n, steps, kHidden}},
                              {{"axis", {0}}});
    std::vector<TensorShape> stepShapes(static_cast<size_t>(steps), TensorShape{n, kHidden});
    const int first = b.op("Model/unstack", "Unpack", {embedded}, stepShapes, {{"axis", {1}}, {"num", {steps}}});

    std::vector<std::unique_ptr<LstmLayer>> cells;
    for (int l = 0; l < layers; ++l)
        cells.push_back(std::make_unique<LstmLayer>(
            b, "Model/RNN/multi_rnn_cell/cell_" + std::to_string(l) + "/basic_lstm_cell", kHidden, kHidden, n));
    std::vector<int> outputs;
    for (int t = 0; t < steps; ++t) {
        int x = first + t; // Unpack's outputs are consecutive tensors
        for (auto& cell : cells)
            x = cell->step(x);
        outputs.push_back(x);
    }
    const int all = b.concat("Model/concat", outputs, 1);
    const int flat = b.reshape("Model/Reshape", all, {n * steps, kHidden});
    const int logits = b.dense("Model/softmax", flat, kVocab);
    b.sparseSoftmaxLoss("Model/loss", logits, targets);
    return std::move(b).take();
}

} // namespace post
