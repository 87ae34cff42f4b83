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
};

} // namespace post
