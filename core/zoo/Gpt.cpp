// GPT-2-style decoder: Radford et al., "Language Models are Unsupervised Multitask Learners"
// (2019), Table 2 (12/24/36/48 layers of width 768/1024/1280/1600), with the op structure of
// OpenAI's gpt-2 src/model.py: token and position embeddings (50,257 BPE tokens, 1,024
// positions), pre-norm blocks (norm -> c_attn -> split heads -> masked softmax attention ->
// merge heads -> c_proj -> residual; norm -> c_fc -> tanh GELU -> c_proj -> residual), a final
// norm and logits tied to the token embeddings. Heads of 64. Sequence 1,024 (the context).
// Parameters: V H + 1024 H + L (12 H^2 + 13 H) + 2 H, i.e. 124,439,808 / 354,823,168 /
// 774,030,080 / 1,557,611,200 (HuggingFace's gpt2 ... gpt2-xl; the paper's 117M and 345M
// were miscounted; OpenAI's released checkpoints are 124M / 355M / 774M / 1558M, "1.5B").
#include "core/zoo/TfGraphBuilder.h"
#include "core/zoo/ZooModels.h"

namespace post {
namespace {

constexpr std::int64_t kVocab = 50257, kContext = 1024, kHeadSize = 64;

class GptNet {
public:
    GptNet(std::string name, int batch, int layers, std::int64_t hidden)
        : b_(std::move(name))
        , n_(batch)
        , layers_(layers)
        , h_(hidden)
        , heads_(hidden / kHeadSize)
    {
    }

    // model.py norm(): u = mean(x), s = mean(square(x - u)), (x - u) rsqrt(s + eps) g + b.
    int norm(const std::string& s, int x)
    {
        const int g = b_.parameter(s + "/g", {h_});
        const int bias = b_.parameter(s + "/b", {h_});
        const int last = static_cast<int>(b_.shape(x).size()) - 1;
        const int u = b_.reduce(s + "/Mean", "Mean", x, {last}, true);
        const int centred = b_.binary(s + "/sub", "Sub", x, u);
        const int sq = b_.unary(s + "/Square", "Square", centred);
        const int var = b_.reduce(s + "/Mean_1", "Mean", sq, {last}, true);
        const int r = b_.unary(s + "/Rsqrt", "Rsqrt", b_.binary(s + "/add", "AddV2", var, b_.constant(s + "/eps", {1})));
        const int y = b_.binary(s + "/mul", "Mul", centred, r);
        return b_.binary(s + "/add_1", "AddV2", b_.binary(s + "/mul_1", "Mul", y, g), bias);
    }

    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    int gelu(const std::string& s, int x)
    {
        const int cube = b_.binary(s + "/Pow", "Pow", x, b_.constant(s + "/three", {1}));
        const int scaled = b_.binary(s + "/mul", "Mul", cube, b_.constant(s + "/c", {1}));
        const int inner = b_.binary(s + "/add", "AddV2", x, scaled);
        const int arg = b_.binary(s + "/mul_1", "Mul", inner, b_.constant(s + "/sqrt_2_over_pi", {1}));
        const int t = b_.unary(s + "/Tanh", "Tanh", arg);
        const int one = b_.binary(s + "/add_1", "AddV2", t, b_.constant(s + "/one", {1}));
        const int half = b_.binary(s + "/mul_2", "Mul", x, b_.constant(s + "/half", {1}));
        return b_.binary(s + "/mul_3", "Mul", half, one);
    }

    // [N*S, H] -> [N, heads, S, 64]
    int splitHeads(const std::string& s, int x)
    {
        const int r = b_.reshape(s + "/Reshape", x, {n_, kContext, heads_, kHeadSize});
        return b_.op(s + "/transpose", "Transpose", {r}, {{n_, heads_, kContext, kHeadSize}}, {{"perm", {0, 2, 1, 3}}});
    }

    int block(const std::string& s, int x, int mask, int maskBias)
    {
        const std::string a = s + "/attn";
        const int qkv = b_.dense(a + "/c_attn", norm(s + "/ln_1", x), 3 * h_);
        const int q = b_.op(a + "/split", "Split", {qkv}, {{n_ * kContext, h_}, {n_ * kContext, h_}, {n_ * kContext, h_}},
                            {{"num_split", {3}}, {"axis", {1}}});
        const int qh = splitHeads(a + "/q", q);
        const int kh = splitHeads(a + "/k", q + 1); // Split's outputs are consecutive tensors
        const int vh = splitHeads(a + "/v", q + 2);
        int w = b_.op(a + "/MatMul", "BatchMatMulV2", {qh, kh}, {{n_, heads_, kContext, kContext}}, {{"adj_y", {1}}});
        w = b_.binary(a + "/mul", "Mul", w, b_.constant(a + "/rsqrt_head_size", {1}));
        // mask_attn_weights: w b - 1e10 (1 - b), with b the causal mask
        w = b_.binary(a + "/mul_1", "Mul", w, mask);
        w = b_.binary(a + "/sub", "Sub", w, maskBias);
        const int probs = b_.unary(a + "/Softmax", "Softmax", w);
        int ctx = b_.op(a + "/MatMul_1", "BatchMatMulV2", {probs, vh}, {{n_, heads_, kContext, kHeadSize}});
        ctx = b_.op(a + "/transpose", "Transpose", {ctx}, {{n_, kContext, heads_, kHeadSize}}, {{"perm", {0, 2, 1, 3}}});
        ctx = b_.reshape(a + "/Reshape", ctx, {n_ * kContext, h_});
        x = b_.binary(s + "/add", "AddV2", x, b_.dense(a + "/c_proj", ctx, h_));

        const std::string m = s + "/mlp";
        int y = gelu(m + "/gelu", b_.dense(m + "/c_fc", norm(s + "/ln_2", x), 4 * h_));
        y = b_.dense(m + "/c_proj", y, h_);
        return b_.binary(s + "/add_1", "AddV2", x, y);
    }

    ShapedGraph build()
    {
        const int tokens = b_.placeholder("input/tokens", {n_, kContext}, 4);
        const int labels = b_.placeholder("input/labels", {n_ * kContext}, 4);
        const int wte = b_.sharedParameter("model/wte", {kVocab, h_});
        const int wpe = b_.parameter("model/wpe", {kContext, h_});
        const int tok = b_.op("model/GatherV2", "GatherV2", {wte, tokens}, {{n_, kContext, h_}}, {{"axis", {0}}});
        const int pos = b_.op("model/Slice", "Slice", {wpe}, {{kContext, h_}}); // positions 0..S-1
        int x = b_.reshape("model/Reshape", b_.binary("model/add", "AddV2", tok, pos), {n_ * kContext, h_});
        const int mask = b_.constant("model/attention_mask", {kContext, kContext});
        const int maskBias = b_.constant("model/attention_mask_bias", {kContext, kContext});
        for (int l = 0; l < layers_; ++l)
            x = block("model/h" + std::to_string(l), x, mask, maskBias);
        x = norm("model/ln_f", x);
        const int logits = b_.matmul("model/logits/MatMul", x, wte, true);
        b_.sparseSoftmaxLoss("loss", logits, labels);
        return std::move(b_).take();
    }

private:
    TfGraphBuilder b_;
    std::int64_t n_;
    int layers_;
    std::int64_t h_, heads_;
};

} // namespace

ShapedGraph buildGpt(const std::string& name, int batch, int layers, int hidden)
{
    return GptNet(name, batch, layers, hidden).build();
}

} // namespace post
