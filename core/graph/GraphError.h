#pragma once

#include <stdexcept>
#include <string>

namespace post {

// A structural problem in a graph (duplicate op, unknown endpoint, cycle, bad cost).
// Importers catch it and rethrow as InputError with the file name attached.
class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace post
