// Inception-V3, layer table of TF-slim's nets/inception_v3.py (tensorflow/models,
// research/slim), which follows Szegedy et al., "Rethinking the Inception Architecture for
// Computer Vision" (CVPR 2016), Table 1 and Figures 5-7. slim's conv2d: Conv2D without bias,
// FusedBatchNorm without scale (gamma fixed at 1), Relu.
#include "core/zoo/TfGraphBuilder.h"
#include "core/zoo/ZooModels.h"

namespace post {
namespace {

class InceptionV3Net {
public:
    explicit InceptionV3Net(int batch)
        : b_("inception-v3")
        , batch_(batch)
    {
    }

    int conv(const std::string& scope, int x, std::int64_t filters, int kh, int kw, int stride = 1,
             const std::string& padding = "SAME")
    {
        const int y = b_.conv2d(scope, x, filters, kh, kw, stride, padding);
        const int n = b_.fusedBatchNorm(scope + "/BatchNorm", y, false);
        return b_.unary(scope + "/Relu", "Relu", n);
    }

    int avgPoolSame(const std::string& name, int x) { return b_.pool(name, "AvgPool", x, 3, 1, "SAME"); }

    // Mixed_5b/5c/5d (35x35): Figure 5 with the 5x5 branch slim keeps.
    int blockA(const std::string& s, int x, std::int64_t poolProj)
    {
        const int b0 = conv(s + "/Branch_0/Conv2d_0a_1x1", x, 64, 1, 1);
        int b1 = conv(s + "/Branch_1/Conv2d_0a_1x1", x, 48, 1, 1);
        b1 = conv(s + "/Branch_1/Conv2d_0b_5x5", b1, 64, 5, 5);
        int b2 = conv(s + "/Branch_2/Conv2d_0a_1x1", x, 64, 1, 1);
        b2 = conv(s + "/Branch_2/Conv2d_0b_3x3", b2, 96, 3, 3);
        b2 = conv(s + "/Branch_2/Conv2d_0c_3x3", b2, 96, 3, 3);
        int b3 = avgPoolSame(s + "/Branch_3/AvgPool_0a_3x3", x);
        b3 = conv(s + "/Branch_3/Conv2d_0b_1x1", b3, poolProj, 1, 1);
        return b_.concat(s + "/concat", {b0, b1, b2, b3}, 3);
    }

    // Mixed_6a: grid reduction 35 -> 17.
    int reductionA(const std::string& s, int x)
    {
        const int b0 = conv(s + "/Branch_0/Conv2d_1a_1x1", x, 384, 3, 3, 2, "VALID");
        int b1 = conv(s + "/Branch_1/Conv2d_0a_1x1", x, 64, 1, 1);
        b1 = conv(s + "/Branch_1/Conv2d_0b_3x3", b1, 96, 3, 3);
        b1 = conv(s + "/Branch_1/Conv2d_1a_1x1", b1, 96, 3, 3, 2, "VALID");
        const int b2 = b_.pool(s + "/Branch_2/MaxPool_1a_3x3", "MaxPool", x, 3, 2, "VALID");
        return b_.concat(s + "/concat", {b0, b1, b2}, 3);
    }

    // Mixed_6b..6e (17x17): Figure 6, factorised 7x7 with `c` channels inside.
    int blockB(const std::string& s, int x, std::int64_t c)
    {
        const int b0 = conv(s + "/Branch_0/Conv2d_0a_1x1", x, 192, 1, 1);
        int b1 = conv(s + "/Branch_1/Conv2d_0a_1x1", x, c, 1, 1);
        b1 = conv(s + "/Branch_1/Conv2d_0b_1x7", b1, c, 1, 7);
        b1 = conv(s + "/Branch_1/Conv2d_0c_7x1", b1, 192, 7, 1);
        int b2 = conv(s + "/Branch_2/Conv2d_0a_1x1", x, c, 1, 1);
        b2 = conv(s + "/Branch_2/Conv2d_0b_7x1", b2, c, 7, 1);
        b2 = conv(s + "/Branch_2/Conv2d_0c_1x7", b2, c, 1, 7);
        b2 = conv(s + "/Branch_2/Conv2d_0d_7x1", b2, c, 7, 1);
        b2 = conv(s + "/Branch_2/Conv2d_0e_1x7", b2, 192, 1, 7);
        int b3 = avgPoolSame(s + "/Branch_3/AvgPool_0a_3x3", x);
        b3 = conv(s + "/Branch_3/Conv2d_0b_1x1", b3, 192, 1, 1);
        return b_.concat(s + "/concat", {b0, b1, b2, b3}, 3);
    }

    // Mixed_7a: grid reduction 17 -> 8.
    int reductionB(const std::string& s, int x)
    {
        int b0 = conv(s + "/Branch_0/Conv2d_0a_1x1", x, 192, 1, 1);
        b0 = conv(s + "/Branch_0/Conv2d_1a_3x3", b0, 320, 3, 3, 2, "VALID");
        int b1 = conv(s + "/Branch_1/Conv2d_0a_1x1", x, 192, 1, 1);
        b1 = conv(s + "/Branch_1/Conv2d_0b_1x7", b1, 192, 1, 7);
        b1 = conv(s + "/Branch_1/Conv2d_0c_7x1", b1, 192, 7, 1);
        b1 = conv(s + "/Branch_1/Conv2d_1a_3x3", b1, 192, 3, 3, 2, "VALID");
        const int b2 = b_.pool(s + "/Branch_2/MaxPool_1a_3x3", "MaxPool", x, 3, 2, "VALID");
        return b_.concat(s + "/concat", {b0, b1, b2}, 3);
    }

    // Mixed_7b/7c (8x8): Figure 7, expanded filter banks.
    int blockC(const std::string& s, int x)
    {
        const int b0 = conv(s + "/Branch_0/Conv2d_0a_1x1", x, 320, 1, 1);
        const int b1 = conv(s + "/Branch_1/Conv2d_0a_1x1", x, 384, 1, 1);
        const int b1a = conv(s + "/Branch_1/Conv2d_0b_1x3", b1, 384, 1, 3);
        const int b1b = conv(s + "/Branch_1/Conv2d_0c_3x1", b1, 384, 3, 1);
        const int b1c = b_.concat(s + "/Branch_1/concat", {b1a, b1b}, 3);
        int b2 = conv(s + "/Branch_2/Conv2d_0a_1x1", x, 448, 1, 1);
        b2 = conv(s + "/Branch_2/Conv2d_0b_3x3", b2, 384, 3, 3);
        const int b2a = conv(s + "/Branch_2/Conv2d_0c_1x3", b2, 384, 1, 3);
        const int b2b = conv(s + "/Branch_2/Conv2d_0d_3x1", b2, 384, 3, 1);
        const int b2c = b_.concat(s + "/Branch_2/concat", {b2a, b2b}, 3);
        int b3 = avgPoolSame(s + "/Branch_3/AvgPool_0a_3x3", x);
        b3 = conv(s + "/Branch_3/Conv2d_0b_1x1", b3, 192, 1, 1);
        return b_.concat(s + "/concat", {b0, b1c, b2c, b3}, 3);
    }

    // Logits: a 1x1 convolution with biases and no batch norm, then squeeze to [N, classes].
    int logits(const std::string& s, int x)
    {
        const int y = b_.conv2d(s, x, kClasses, 1, 1, 1, "VALID");
        const int z = b_.biasAdd(s, y);
        return b_.op(s + "/SpatialSqueeze", "Squeeze", {z}, {{batch_, kClasses}}, {{"squeeze_dims", {1, 2}}});
    }

    ShapedGraph build()
    {
        const std::string p = "InceptionV3/";
        const int images = b_.placeholder("input/images", {batch_, 299, 299, 3});
        const int labels = b_.placeholder("input/labels", {batch_}, 4);
        int x = conv(p + "Conv2d_1a_3x3", images, 32, 3, 3, 2, "VALID"); // 149x149x32
        x = conv(p + "Conv2d_2a_3x3", x, 32, 3, 3, 1, "VALID");          // 147x147x32
        x = conv(p + "Conv2d_2b_3x3", x, 64, 3, 3);                      // 147x147x64
        x = b_.pool(p + "MaxPool_3a_3x3", "MaxPool", x, 3, 2, "VALID");  // 73x73x64
        x = conv(p + "Conv2d_3b_1x1", x, 80, 1, 1, 1, "VALID");          // 73x73x80
        x = conv(p + "Conv2d_4a_3x3", x, 192, 3, 3, 1, "VALID");         // 71x71x192
        x = b_.pool(p + "MaxPool_5a_3x3", "MaxPool", x, 3, 2, "VALID");  // 35x35x192
        x = blockA(p + "Mixed_5b", x, 32);                               // 35x35x256
        x = blockA(p + "Mixed_5c", x, 64);                               // 35x35x288
        x = blockA(p + "Mixed_5d", x, 64);                               // 35x35x288
        x = reductionA(p + "Mixed_6a", x);                               // 17x17x768
        x = blockB(p + "Mixed_6b", x, 128);
        x = blockB(p + "Mixed_6c", x, 160);
        x = blockB(p + "Mixed_6d", x, 160);
        x = blockB(p + "Mixed_6e", x, 192); // 17x17x768

        // Auxiliary head on Mixed_6e (slim: 5x5 average pool, stride 3).
        const std::string a = p + "AuxLogits/";
        int aux = b_.pool(a + "AvgPool_1a_5x5", "AvgPool", x, 5, 3, "VALID"); // 5x5x768
        aux = conv(a + "Conv2d_1b_1x1", aux, 128, 1, 1);
        aux = conv(a + "Conv2d_2a_5x5", aux, 768, 5, 5, 1, "VALID"); // 1x1x768
        aux = logits(a + "Conv2d_2b_1x1", aux);

        x = reductionB(p + "Mixed_7a", x); // 8x8x1280
        x = blockC(p + "Mixed_7b", x);     // 8x8x2048
        x = blockC(p + "Mixed_7c", x);
        x = b_.pool(p + "Logits/AvgPool_1a_8x8", "AvgPool", x, 8, 1, "VALID"); // 1x1x2048
        const int main = logits(p + "Logits/Conv2d_1c_1x1", x);
        b_.unary(p + "Predictions/Softmax", "Softmax", main);

        const int mainLoss = b_.sparseSoftmaxLoss("losses/main", main, labels);
        const int auxLoss = b_.sparseSoftmaxLoss("losses/aux", aux, labels);
        const int weighted = b_.binary("losses/aux/mul", "Mul", auxLoss, b_.constant("losses/aux/weight", {1}));
        b_.op("losses/total_loss", "AddN", {mainLoss, weighted}, {{1}});
        return std::move(b_).take();
    }

private:
    static constexpr std::int64_t kClasses = 1001; // slim's ImageNet label set has a background class
    TfGraphBuilder b_;
    std::int64_t batch_;
};

} // namespace

ShapedGraph buildInceptionV3(int batch) { return InceptionV3Net(batch).build(); }

} // namespace post
