#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace post {

// The element type an op computes in, as far as the roofline cares (docs/cost-model.md,
// "Precision"): 32-bit floats, 16-bit floats (fp16 and bf16 share a tensor-core peak on
// every preset GPU), 8-bit integers.
enum class ElementPrecision : std::uint8_t { Fp32, Half, Int8 };

// How a framework runs FP32 matrix products and convolutions (docs/cost-model.md, "Precision"):
//   fp32     plain FP32 units (the old default, no tensor cores);
//   tf32     TF32 tensor cores for every FP32 matrix product and convolution where the device
//            has them (TensorFlow's default on Ampere and later), plain FP32 elsewhere;
//   amp      automatic mixed precision: FP16 tensor cores, activations in 16 bits;
//   pytorch  PyTorch's defaults (>= 1.12): convolutions in TF32 (cudnn.allow_tf32), matrix
//            products (matmul, linear, Gemm) in FP32 (cuda.matmul.allow_tf32 is false); the
//            default for graphs from PyTorch / ONNX exports.
// In every mode but amp a narrow convolution (<= 4 input channels per group, an image
// network's first layer) runs on cuDNN's FP32 kernels (Op::narrowConvolution).
enum class PrecisionMode : std::uint8_t { Fp32, Tf32, Amp, Pytorch };

constexpr std::string_view toString(PrecisionMode mode)
{
    switch (mode) {
    case PrecisionMode::Fp32:
        return "fp32";
    case PrecisionMode::Tf32:
        return "tf32";
    case PrecisionMode::Amp:
        return "amp";
    case PrecisionMode::Pytorch:
        return "pytorch";
    }
    return "tf32";
}

constexpr std::optional<PrecisionMode> parsePrecisionMode(std::string_view text)
{
    if (text == "fp32")
        return PrecisionMode::Fp32;
    if (text == "tf32")
        return PrecisionMode::Tf32;
    if (text == "amp")
        return PrecisionMode::Amp;
    if (text == "pytorch")
        return PrecisionMode::Pytorch;
    return std::nullopt;
}

// "fp32, tf32, amp or pytorch" for messages.
inline constexpr std::string_view kPrecisionModeNames = "fp32, tf32, amp or pytorch";

// The precision of a tensor of `elementBytes` bytes per element (2: fp16/bf16, 1: int8).
constexpr ElementPrecision precisionOfElementBytes(int elementBytes)
{
    if (elementBytes == 1)
        return ElementPrecision::Int8;
    if (elementBytes == 2)
        return ElementPrecision::Half;
    return ElementPrecision::Fp32;
}

} // namespace post
