#pragma once
// 64-bit FNV-1a, the hash behind the fingerprints files carry ("fnv1a64:" and 16 lower-case
// hex digits): a placement's (PlacementFile.h) and a sweep result's inputs (SweepFiles.h).
// Not cryptographic: it tells versions of a file apart, it does not guard against forgery.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace post {

class Fnv1a64 {
public:
    void add(std::string_view text)
    {
        for (const char c : text) {
            hash_ ^= static_cast<unsigned char>(c);
            hash_ *= 0x100000001b3ULL; // FNV's 64-bit prime
        }
    }
    std::uint64_t value() const { return hash_; }
    // "fnv1a64:0123456789abcdef"
    std::string fingerprint() const
    {
        char text[32];
        std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash_));
        return text;
    }

private:
    std::uint64_t hash_ = 0xcbf29ce484222325ULL; // FNV's 64-bit offset basis
};

} // namespace post
