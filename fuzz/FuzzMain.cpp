// libFuzzer entry point, built once per importer as fuzz_<name> with POST_FUZZ_TARGET="<name>".
#include "fuzz/FuzzTargets.h"

#include "core/util/InputError.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const post::fuzz::FuzzTarget* target = [] {
        const auto* t = post::fuzz::findFuzzTarget(POST_FUZZ_TARGET);
        if (!t) {
            std::fprintf(stderr, "no fuzz target named %s in fuzz/FuzzTargets.cpp\n", POST_FUZZ_TARGET);
            std::abort();
        }
        return t;
    }();
    // POST_FUZZ_PRINT_ERRORS=1 prints each refusal: to see how far a seed gets.
    static const bool printErrors = std::getenv("POST_FUZZ_PRINT_ERRORS") != nullptr;
    try {
        target->parse(std::string_view(reinterpret_cast<const char*>(data), size));
        if (printErrors)
            std::fprintf(stderr, "accepted\n");
    } catch (const post::InputError& e) {
        // The expected answer to bad input. Anything else escapes and libFuzzer reports it.
        if (printErrors)
            std::fprintf(stderr, "InputError: %s\n", e.what());
    }
    return 0;
}
