#pragma once

namespace post {

// What one forward op costs, from its shapes.
struct OpCost {
    double flops = 0.0;        // floating-point operations (a multiply-add is 2)
    double bytesRead = 0.0;    // activations and parameters read
    double bytesWritten = 0.0; // outputs written
    bool known = true;         // false: the op type is unknown and a fallback was used
    bool matrix = false;       // a matrix product or convolution: tensor-core work
    int elementBytes = 4;      // of the op's first input: its compute precision (Precision.h)
    bool convolution = false;  // a matrix op that is a convolution (Op::convolution)
    bool narrow = false;       // a convolution over <= 4 input channels per group (Op::narrowConvolution)
    bool streaming = false;    // an element-wise kernel: DeviceSpec::streamingMemoryEfficiency (isStreamingOpType)
    // A 3x3 stride-1 FP32 convolution run as cuDNN's non-fused Winograd F(4x4, 3x3)
    // (docs/cost-model.md, "Winograd convolutions"; 0 = not eligible): the batched product's
    // FLOPs and bytes, and the bytes of the transform kernels around it. The roofline takes
    // the faster of this and the direct cost above at the FP32 peak (cuDNN picks the faster).
    double winogradFlops = 0.0;
    double winogradGemmBytes = 0.0;
    double winogradTransformBytes = 0.0;
    // Streaming traffic the op moves besides its main roofline and not overlapped with it (a
    // zeroing kernel of its own, atomic adds): added at the streaming memory efficiency with one
    // more launch (docs/cost-model.md, "Backward of strided convolutions"; 0 = none).
    double passBytes = 0.0;
    // A strided FP32 convolution: what the passes of its input gradient move under cuDNN's
    // atomic-add backward-data algorithm (the zeroing of the input gradient, then a
    // read-modify-write per accumulated product). Not timed with the forward op:
    // buildTrainingGraph gives it to the backward op as passBytes where an input gradient runs.
    double inputGradPassBytes = 0.0;
};

} // namespace post
