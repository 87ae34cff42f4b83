// BERT-base pre-training step: Devlin et al., "BERT: Pre-training of Deep Bidirectional
// Transformers for Language Understanding" (NAACL 2019), Section 3 (L=12, H=768, A=12,
// feed-forward 4H, 30,522 WordPiece vocabulary, 512 positions, 2 segment types), with the
// op structure of google-research/bert's modeling.py and run_pretraining.py: activations
// reshaped to [batch*seq, hidden] matrices, per-head Reshape/Transpose, BatchMatMul
// attention, exact erf GELU, layer norm as TF's moments + batch-norm arithmetic (10 ops),
// a pooler, a masked-LM head tied to the word embeddings (20 predictions per sequence) and
// the next-sentence head. Sequence length 128 by default (BERT's first pre-training phase;
// `zoo generate bert-base --steps 384` for SQuAD-length sequences, up to 512). Dropout
// is left out (it is an element-wise op per activation and does not change the shape).
#include "core/zoo/TfGraphBuilder.h"
#include "core/zoo/ZooModels.h"

#include <stdexcept>
#include <string>

namespace post {
namespace {

constexpr std::int64_t kVocab = 30522, kHidden = 768, kHeads = 12, kHeadSize = 64, kFfn = 3072, kLayers = 12;
constexpr std::int64_t kPositions = 512, kTypes = 2, kPredictions = 20;

class BertNet {
public:
    BertNet(int batch, int seq)
        : b_("bert-base")
        , n_(batch)
        , seq_(seq)
    {
    }

    int layerNorm(const std::string& s, int x)
    {
        const int gamma = b_.parameter(s + "/gamma", {dim(x, -1)});
        const int beta = b_.parameter(s + "/beta", {dim(x, -1)});
        const int eps = b_.constant(s + "/epsilon", {1});
        const int last = static_cast<int>(b_.shape(x).size()) - 1;
        const int mean = b_.reduce(s + "/moments/mean", "Mean", x, {last}, true);
        const int sq = b_.binary(s + "/moments/SquaredDifference", "SquaredDifference", x, mean);
        const int var = b_.reduce(s + "/moments/variance", "Mean", sq, {last}, true);
        const int r = b_.unary(s + "/batchnorm/Rsqrt", "Rsqrt", b_.binary(s + "/batchnorm/add", "AddV2", var, eps));
        const int scale = b_.binary(s + "/batchnorm/mul", "Mul", r, gamma);
        const int xs = b_.binary(s + "/batchnorm/mul_1", "Mul", x, scale);
        const int ms = b_.binary(s + "/batchnorm/mul_2", "Mul", mean, scale);
        const int shift = b_.binary(s + "/batchnorm/sub", "Sub", beta, ms);
        return b_.binary(s + "/batchnorm/add_1", "AddV2", xs, shift);
    }

    int gelu(const std::string& s, int x)
    {
        const int div = b_.binary(s + "/truediv", "RealDiv", x, b_.constant(s + "/sqrt2", {1}));
        const int erf = b_.unary(s + "/Erf", "Erf", div);
        const int one = b_.binary(s + "/add", "AddV2", erf, b_.constant(s + "/one", {1}));
        const int xe = b_.binary(s + "/mul", "Mul", x, one);
        return b_.binary(s + "/mul_1", "Mul", xe, b_.constant(s + "/half", {1}));
    }

    // [N*S, H] -> [N, heads, S, head size]
    int heads(const std::string& s, int x)
    {
        const int r = b_.reshape(s + "/Reshape", x, {n_, seq_, kHeads, kHeadSize});
        return b_.op(s + "/transpose", "Transpose", {r}, {{n_, kHeads, seq_, kHeadSize}}, {{"perm", {0, 2, 1, 3}}});
    }

    int layer(const std::string& s, int x, int maskAdder)
    {
        const std::string at = s + "/attention/self";
        const int q = heads(at + "/query", b_.dense(at + "/query", x, kHidden));
        const int k = heads(at + "/key", b_.dense(at + "/key", x, kHidden));
        const int v = heads(at + "/value", b_.dense(at + "/value", x, kHidden));
        int scores = b_.op(at + "/MatMul", "BatchMatMulV2", {q, k}, {{n_, kHeads, seq_, seq_}}, {{"adj_y", {1}}});
        scores = b_.binary(at + "/Mul", "Mul", scores, b_.constant(at + "/scale", {1}));
        scores = b_.binary(at + "/add", "AddV2", scores, maskAdder);
        const int probs = b_.unary(at + "/Softmax", "Softmax", scores);
        int ctx = b_.op(at + "/MatMul_1", "BatchMatMulV2", {probs, v}, {{n_, kHeads, seq_, kHeadSize}});
        ctx = b_.op(at + "/transpose_3", "Transpose", {ctx}, {{n_, seq_, kHeads, kHeadSize}}, {{"perm", {0, 2, 1, 3}}});
        ctx = b_.reshape(at + "/Reshape_3", ctx, {n_ * seq_, kHidden});

        const std::string ao = s + "/attention/output";
        int y = b_.dense(ao + "/dense", ctx, kHidden);
        y = layerNorm(ao + "/LayerNorm", b_.binary(ao + "/add", "AddV2", y, x));
        int ff = b_.dense(s + "/intermediate/dense", y, kFfn);
        ff = gelu(s + "/intermediate/gelu", ff);
        const std::string o = s + "/output";
        ff = b_.dense(o + "/dense", ff, kHidden);
        return layerNorm(o + "/LayerNorm", b_.binary(o + "/add", "AddV2", ff, y));
    }

    ShapedGraph build()
    {
        const int ids = b_.placeholder("input/input_ids", {n_, seq_}, 4);
        const int mask = b_.placeholder("input/input_mask", {n_, seq_}, 4);
        const int types = b_.placeholder("input/segment_ids", {n_, seq_}, 4);
        const int positions = b_.placeholder("input/masked_lm_positions", {n_ * kPredictions}, 4);
        const int mlmLabels = b_.placeholder("input/masked_lm_ids", {n_ * kPredictions}, 4);
        const int nspLabels = b_.placeholder("input/next_sentence_labels", {n_}, 4);

        const std::string e = "bert/embeddings";
        const int words = b_.sharedParameter(e + "/word_embeddings", {kVocab, kHidden});
        int x = b_.op(e + "/GatherV2", "GatherV2", {words, ids}, {{n_, seq_, kHidden}}, {{"axis", {0}}});
        const int typeTable = b_.parameter(e + "/token_type_embeddings", {kTypes, kHidden});
        const int typeEmb = b_.op(e + "/GatherV2_1", "GatherV2", {typeTable, types}, {{n_, seq_, kHidden}},
                                  {{"axis", {0}}});
        x = b_.binary(e + "/add", "AddV2", x, typeEmb);
        const int posTable = b_.parameter(e + "/position_embeddings", {kPositions, kHidden});
        const int pos = b_.op(e + "/Slice", "Slice", {posTable}, {{seq_, kHidden}});
        x = b_.binary(e + "/add_1", "AddV2", x, pos);
        x = layerNorm(e + "/LayerNorm", x);
        x = b_.reshape("bert/encoder/Reshape", x, {n_ * seq_, kHidden});

        // (1 - mask) * -10000 broadcast over heads and query positions.
        const int m = b_.reshape("bert/encoder/Reshape_1", mask, {n_, 1, 1, seq_});
        const int inv = b_.binary("bert/encoder/sub", "Sub", b_.constant("bert/encoder/one", {1}), m);
        const int adder = b_.binary("bert/encoder/mul", "Mul", inv, b_.constant("bert/encoder/minus_10000", {1}));

        for (std::int64_t l = 0; l < kLayers; ++l)
            x = layer("bert/encoder/layer_" + std::to_string(l), x, adder);

        const int seq = b_.reshape("bert/encoder/Reshape_13", x, {n_, seq_, kHidden});
        const int firstToken = b_.op("bert/pooler/strided_slice", "StridedSlice", {seq}, {{n_, kHidden}});
        const int pooled = b_.unary("bert/pooler/dense/Tanh", "Tanh", b_.dense("bert/pooler/dense", firstToken, kHidden));

        // Masked LM: gather the predicted positions, transform, score against the word embeddings.
        const std::string p = "cls/predictions";
        int g = b_.op(p + "/GatherV2", "GatherV2", {x, positions}, {{n_ * kPredictions, kHidden}}, {{"axis", {0}}});
        g = gelu(p + "/transform/gelu", b_.dense(p + "/transform/dense", g, kHidden));
        g = layerNorm(p + "/transform/LayerNorm", g);
        int logits = b_.matmul(p + "/MatMul", g, words, true);
        logits = b_.biasAdd(p + "/output", logits);
        const int mlmLoss = b_.sparseSoftmaxLoss(p + "/loss", logits, mlmLabels);

        const std::string r = "cls/seq_relationship";
        const int nspW = b_.parameter(r + "/output_weights", {2, kHidden});
        const int nsp = b_.biasAdd(r + "/output", b_.matmul(r + "/MatMul", pooled, nspW, true));
        const int nspLoss = b_.sparseSoftmaxLoss(r + "/loss", nsp, nspLabels);
        b_.binary("total_loss", "AddV2", mlmLoss, nspLoss);
        return std::move(b_).take();
    }

private:
    std::int64_t dim(int t, int axis) const { return b_.dim(t, axis); }

    TfGraphBuilder b_;
    std::int64_t n_;
    const std::int64_t seq_; // tokens per sequence
};

} // namespace

ShapedGraph buildBertBase(int batch, int seq)
{
    if (seq < 1 || seq > kPositions)
        throw std::invalid_argument("bert-base: a sequence of 1 to " + std::to_string(kPositions)
                                    + " tokens (--steps), not " + std::to_string(seq));
    return BertNet(batch, seq).build();
}

} // namespace post
