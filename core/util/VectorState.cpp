#include "core/util/VectorState.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <cstdint>
#include <immintrin.h>
#define POST_X86 1
#endif

namespace post {

#if defined(POST_X86)
namespace {

struct VectorFeatures {
    bool avx = false;    // AVX and the OS saves the YMM state (XCR0 bits 1 and 2)
    bool xinuse = false; // XGETBV with ECX=1 reports XINUSE
};

std::uint64_t readXcr(std::uint32_t index)
{
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(index));
    return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

VectorFeatures detect()
{
    VectorFeatures f;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return f;
    const bool osxsave = (c & bit_OSXSAVE) != 0;
    if (!osxsave || (c & bit_AVX) == 0)
        return f;
    f.avx = (readXcr(0) & 0x6) == 0x6;
    if (f.avx && __get_cpuid_max(0, nullptr) >= 0xd) {
        __cpuid_count(0xd, 1, a, b, c, d);
        f.xinuse = (a & (1u << 2)) != 0;
    }
    return f;
}

const VectorFeatures& features()
{
    static const VectorFeatures f = detect();
    return f;
}

__attribute__((target("avx"))) void zeroUpper() { _mm256_zeroupper(); }

// Not compiled for AVX: GCC would end such a function with its own VZEROUPPER.
__attribute__((noinline)) void writeYmm15() { __asm__ volatile("vpcmpeqd %%ymm15, %%ymm15, %%ymm15" ::: "xmm15"); }

} // namespace

void clearUpperVectorState() noexcept
{
    if (features().avx)
        zeroUpper();
}

bool canReadVectorState() noexcept { return features().xinuse; }

bool upperVectorStateDirty() noexcept { return features().xinuse && (readXcr(1) & 0x4) != 0; }

void dirtyUpperVectorState() noexcept
{
    if (features().avx)
        writeYmm15();
}

#else

void clearUpperVectorState() noexcept { }
bool canReadVectorState() noexcept { return false; }
bool upperVectorStateDirty() noexcept { return false; }
void dirtyUpperVectorState() noexcept { }

#endif

} // namespace post
