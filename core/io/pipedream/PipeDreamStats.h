#pragma once

#include <string>
#include <string_view>

namespace post {

// One layer's profile as PipeDream writes it (graph.txt's third field, or the bracketed
// part of a graph.dot label): milliseconds per minibatch on one GPU and bytes.
struct PipeDreamStats {
    double forwardMs = 0.0;
    double backwardMs = 0.0;
    double activationBytes = 0.0; // a list "[a; b; c]" or "[a, b, c]" (multi-output layers) is summed
    double parameterBytes = 0.0;
};

// Parses "forward_compute_time=F, backward_compute_time=B, activation_size=A, parameter_size=P"
// (items separated by ',' outside [...] with optional blanks, in any order; unknown keys
// are ignored).
// Throws InputError(source, location, ...) naming the key at fault.
PipeDreamStats parsePipeDreamStats(std::string_view text, const std::string& source, const std::string& location);

} // namespace post
