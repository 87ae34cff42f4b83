// ResNet-50, He et al., "Deep Residual Learning for Image Recognition" (CVPR 2016), Table 1,
// in the v1.5 form of torchvision's resnet50 and TF official models (the stride-2 of a
// stage's first block sits on the 3x3 convolution): conv1 7x7/2, max pool 3x3/2, stages of
// [1x1 c, 3x3 c, 1x1 4c] bottlenecks with c = 64, 128, 256, 512 repeated 3, 4, 6, 3 times,
// global average pool, 1000-way fully connected layer. Convolutions have no bias; every one
// is followed by a FusedBatchNorm with scale and offset.
#include "core/zoo/TfGraphBuilder.h"
#include "core/zoo/ZooModels.h"

#include <array>

namespace post {
namespace {

class ResNet50Net {
public:
    explicit ResNet50Net(int batch)
        : b_("resnet-50")
        , batch_(batch)
    {
    }

    int convBn(const std::string& scope, int x, std::int64_t filters, int k, int stride)
    {
        const int y = b_.conv2d(scope, x, filters, k, k, stride, "SAME");
        return b_.fusedBatchNorm(scope + "/BatchNorm", y, true);
    }

    int bottleneck(const std::string& s, int x, std::int64_t c, int stride, bool projection)
    {
        const int shortcut = projection ? convBn(s + "/shortcut", x, 4 * c, 1, stride) : x;
        int y = b_.unary(s + "/conv1/Relu", "Relu", convBn(s + "/conv1", x, c, 1, 1));
        y = b_.unary(s + "/conv2/Relu", "Relu", convBn(s + "/conv2", y, c, 3, stride));
        y = convBn(s + "/conv3", y, 4 * c, 1, 1);
        const int sum = b_.binary(s + "/add", "AddV2", y, shortcut);
        return b_.unary(s + "/Relu", "Relu", sum);
    }

    ShapedGraph build()
    {
        const std::string p = "resnet50/";
        const int images = b_.placeholder("input/images", {batch_, 224, 224, 3});
        const int labels = b_.placeholder("input/labels", {batch_}, 4);
        int x = b_.unary(p + "conv1/Relu", "Relu", convBn(p + "conv1", images, 64, 7, 2)); // 112x112x64
        x = b_.pool(p + "pool1/MaxPool", "MaxPool", x, 3, 2, "SAME");                      // 56x56x64
        const std::array<int, 4> blocks{3, 4, 6, 3};
        std::int64_t c = 64;
        for (int stage = 0; stage < 4; ++stage, c *= 2)
            for (int k = 0; k < blocks[static_cast<size_t>(stage)]; ++k) {
                const std::string s = p + "block" + std::to_string(stage + 1) + "/unit" + std::to_string(k + 1);
                const int stride = (k == 0 && stage > 0) ? 2 : 1;
                x = bottleneck(s, x, c, stride, k == 0);
            }
        x = b_.reduce(p + "pool5/Mean", "Mean", x, {1, 2}, false); // [N, 2048]
        const int logits = b_.dense(p + "fc1000", x, 1000);
        b_.unary(p + "predictions/Softmax", "Softmax", logits);
        b_.sparseSoftmaxLoss("losses", logits, labels);
        return std::move(b_).take();
    }

private:
    TfGraphBuilder b_;
    std::int64_t batch_;
};

} // namespace

ShapedGraph buildResNet50(int batch) { return ResNet50Net(batch).build(); }

} // namespace post
