#pragma once

#include <string_view>
#include <vector>

namespace post::fuzz {

// One importer under fuzzing: `parse` feeds it the bytes and may throw InputError (bad
// input, fine) but must never crash, hang or exhaust memory. The libFuzzer executables
// (fuzz_<name>) and the regression test (tests/core/test_fuzz_regressions.cpp, replaying
// tests/data/fuzz-regressions/<name>/*) share this table.
struct FuzzTarget {
    std::string_view name;
    void (*parse)(std::string_view bytes);
};

const std::vector<FuzzTarget>& fuzzTargets();
const FuzzTarget* findFuzzTarget(std::string_view name);

} // namespace post::fuzz
