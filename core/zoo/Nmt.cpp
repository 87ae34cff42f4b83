// GNMT-style neural machine translation: Wu et al., "Google's Neural Machine Translation
// System" (2016), Section 3 and Figure 1, as built by tensorflow/nmt's GNMT model: LSTM
// layers of 1024 units; the first encoder layer bidirectional (its outputs concatenated),
// residual connections from the third layer up; the bottom decoder layer's output queries an
// additive (Bahdanau) attention over the top encoder outputs, and the context feeds the next
// step's bottom layer and every upper decoder layer. ColocRL (Mirhoseini et al. 2017)
// placed 2- and 4-layer versions and the hierarchical planner (Mirhoseini et al. 2018) an
// 8-layer one. Wordpiece vocabularies of 32,000 (GNMT Section 4), 30 source and 30 target
// steps by default (our choice, to keep the graphs to tens of thousands of ops; `steps`
// unrolls more: 200 give nmt-8 a training step of ~108,000 ops).
#include "core/zoo/LstmLayer.h"
#include "core/zoo/TfGraphBuilder.h"
#include "core/zoo/ZooModels.h"

#include <memory>

namespace post {
namespace {

constexpr std::int64_t kVocab = 32000, kHidden = 1024;

class NmtNet {
public:
    NmtNet(int batch, int layers, int steps)
        : b_("nmt-" + std::to_string(layers))
        , n_(batch)
        , layers_(layers)
        , steps_(steps)
    {
    }

    std::vector<int> embed(const std::string& scope, int ids)
    {
        const int table = b_.parameter(scope + "/embedding", {kVocab, kHidden});
        const int e = b_.op(scope + "/embedding_lookup", "GatherV2", {table, ids}, {{n_, steps_, kHidden}},
                            {{"axis", {0}}});
        std::vector<TensorShape> shapes(static_cast<size_t>(steps_), TensorShape{n_, kHidden});
        const int first = b_.op(scope + "/unstack", "Unpack", {e}, shapes, {{"axis", {1}}, {"num", {steps_}}});
        std::vector<int> steps;
        for (int t = 0; t < steps_; ++t)
            steps.push_back(first + t);
        return steps;
    }

    std::vector<int> encoder(const std::vector<int>& inputs)
    {
        const std::string s = "dynamic_seq2seq/encoder/";
        LstmLayer fw(b_, s + "bidirectional_rnn/fw/basic_lstm_cell", kHidden, kHidden, n_);
        LstmLayer bw(b_, s + "bidirectional_rnn/bw/basic_lstm_cell", kHidden, kHidden, n_);
        std::vector<int> fwOut, bwOut(static_cast<size_t>(steps_));
        for (int t = 0; t < steps_; ++t)
            fwOut.push_back(fw.step(inputs[static_cast<size_t>(t)]));
        for (int t = steps_ - 1; t >= 0; --t)
            bwOut[static_cast<size_t>(t)] = bw.step(inputs[static_cast<size_t>(t)]);
        std::vector<int> x;
        for (int t = 0; t < steps_; ++t) {
            b_.setColocation(s + "bidirectional_rnn/t" + std::to_string(t));
            x.push_back(b_.concat(s + "bidirectional_rnn/concat_t" + std::to_string(t),
                                  {fwOut[static_cast<size_t>(t)], bwOut[static_cast<size_t>(t)]}, 1));
        }
        b_.setColocation("");
        for (int l = 1; l < layers_; ++l) {
            const std::string cs = s + "rnn/multi_rnn_cell/cell_" + std::to_string(l - 1);
            LstmLayer cell(b_, cs + "/basic_lstm_cell", l == 1 ? 2 * kHidden : kHidden, kHidden, n_);
            for (int t = 0; t < steps_; ++t) {
                const int h = cell.step(x[static_cast<size_t>(t)]);
                if (l >= 2) { // GNMT: residual connections from the third layer
                    b_.setColocation(cs + "/basic_lstm_cell/t" + std::to_string(t));
                    x[static_cast<size_t>(t)] = b_.binary(cs + "/residual_t" + std::to_string(t), "AddV2", h,
                                                          x[static_cast<size_t>(t)]);
                    b_.setColocation("");
                } else {
                    x[static_cast<size_t>(t)] = h;
                }
            }
        }
        return x;
    }

    ShapedGraph build()
    {
        const int srcIds = b_.placeholder("input/source_ids", {n_, steps_}, 4);
        const int tgtIds = b_.placeholder("input/target_input_ids", {n_, steps_}, 4);
        const int labels = b_.placeholder("input/target_output_ids", {n_ * steps_}, 4);
        const std::vector<int> memorySteps = encoder(embed("dynamic_seq2seq/encoder", srcIds));

        const std::string a = "dynamic_seq2seq/decoder/attention/";
        const int memory = b_.op(a + "memory/stack", "Pack", memorySteps, {{n_, steps_, kHidden}}, {{"axis", {1}}});
        const int memFlat = b_.reshape(a + "memory_layer/Reshape", memory, {n_ * steps_, kHidden});
        const int memW = b_.parameter(a + "memory_layer/kernel", {kHidden, kHidden});
        const int keysFlat = b_.matmul(a + "memory_layer/MatMul", memFlat, memW);
        const int keys = b_.reshape(a + "memory_layer/Reshape_1", keysFlat, {n_, steps_, kHidden});
        const int queryW = b_.sharedParameter(a + "query_layer/kernel", {kHidden, kHidden});
        const int v = b_.sharedParameter(a + "attention_v", {kHidden});

        const std::vector<int> tgt = embed("dynamic_seq2seq/decoder", tgtIds);
        const std::string d = "dynamic_seq2seq/decoder/multi_rnn_cell/";
        std::vector<std::unique_ptr<LstmLayer>> cells;
        for (int l = 0; l < layers_; ++l)
            cells.push_back(std::make_unique<LstmLayer>(b_, d + "cell_" + std::to_string(l) + "/basic_lstm_cell",
                                                        2 * kHidden, kHidden, n_));
        int context = b_.constant(a + "zero_context", {n_, kHidden});
        std::vector<int> outputs;
        for (int t = 0; t < steps_; ++t) {
            const std::string ts = "_t" + std::to_string(t);
            b_.setColocation(d + "cell_0/input" + ts);
            int x = b_.concat(d + "cell_0/input_concat" + ts, {tgt[static_cast<size_t>(t)], context}, 1);
            int below = cells[0]->step(x);
            context = attend(a, ts.substr(1), below, keys, memory, queryW, v);
            for (int l = 1; l < layers_; ++l) {
                const std::string cs = d + "cell_" + std::to_string(l);
                b_.setColocation(cs + "/input" + ts);
                x = b_.concat(cs + "/input_concat" + ts, {below, context}, 1);
                int h = cells[static_cast<size_t>(l)]->step(x);
                if (l >= 2) {
                    b_.setColocation(cs + "/basic_lstm_cell/t" + std::to_string(t));
                    h = b_.binary(cs + "/residual" + ts, "AddV2", h, below);
                }
                below = h;
            }
            b_.setColocation("");
            outputs.push_back(below);
        }
        const int all = b_.concat("dynamic_seq2seq/decoder/concat", outputs, 1);
        const int flat = b_.reshape("dynamic_seq2seq/decoder/Reshape", all, {n_ * steps_, kHidden});
        const int logits = b_.dense("dynamic_seq2seq/decoder/output_projection", flat, kVocab, false);
        b_.sparseSoftmaxLoss("loss", logits, labels);
        return std::move(b_).take();
    }

private:
    // score = sum(v * tanh(keys + W q)), alignments = softmax(score), context = alignments . memory
    int attend(const std::string& a, const std::string& t, int query, int keys, int memory, int queryW, int v)
    {
        const std::string s = a + t + "/";
        b_.setColocation(a + t);
        const int q = b_.matmul(s + "query_layer/MatMul", query, queryW);
        const int q3 = b_.op(s + "ExpandDims", "ExpandDims", {q}, {{n_, 1, kHidden}}, {{"axis", {1}}});
        const int sum = b_.binary(s + "add", "AddV2", keys, q3);
        const int act = b_.unary(s + "Tanh", "Tanh", sum);
        const int weighted = b_.binary(s + "mul", "Mul", v, act);
        const int score = b_.reduce(s + "Sum", "Sum", weighted, {2}, false);
        const int align = b_.unary(s + "Softmax", "Softmax", score);
        const int align3 = b_.op(s + "ExpandDims_1", "ExpandDims", {align}, {{n_, 1, steps_}}, {{"axis", {1}}});
        const int ctx3 = b_.op(s + "MatMul", "BatchMatMulV2", {align3, memory}, {{n_, 1, kHidden}});
        const int ctx = b_.op(s + "Squeeze", "Squeeze", {ctx3}, {{n_, kHidden}}, {{"squeeze_dims", {1}}});
        b_.setColocation("");
        return ctx;
    }

    TfGraphBuilder b_;
    std::int64_t n_;
    int layers_;
    int steps_; // source and target steps
};

} // namespace

ShapedGraph buildNmt(int batch, int layers, int steps) { return NmtNet(batch, layers, steps).build(); }

} // namespace post
