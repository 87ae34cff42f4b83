#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace post {

// The element type an op computes in, as far as the roofline cares (docs/cost-model.md,
// "Precision"): 32-bit floats, 16-bit floats (fp16 and bf16 share a tensor-core peak on
// every preset GPU), 8-bit integers.
enum class ElementPrecision : std::uint8_t { Fp32, Half, Int8 };

// How a framework runs FP32 matrix products and convolutions (docs/clusters.md):
//   fp32  plain FP32 units (the old default, no tensor cores);
//   tf32  TF32 tensor cores where the device has them (what PyTorch's cuDNN convolutions and
//         TensorFlow do by default on Ampere and later), plain FP32 elsewhere;
//   amp   automatic mixed precision: FP16 tensor cores, activations in 16 bits.
enum class PrecisionMode : std::uint8_t { Fp32, Tf32, Amp };

constexpr std::string_view toString(PrecisionMode mode)
{
    switch (mode) {
    case PrecisionMode::Fp32:
        return "fp32";
    case PrecisionMode::Tf32:
        return "tf32";
    case PrecisionMode::Amp:
        return "amp";
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
    return std::nullopt;
}

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
