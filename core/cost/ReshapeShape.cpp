#include "core/cost/ReshapeShape.h"

namespace post {

std::optional<std::vector<std::int64_t>> reshapeTarget(std::vector<std::int64_t> dims, std::int64_t elements)
{
    int inferred = -1;
    std::int64_t known = 1; // product of the given sizes; -1 once it overflowed
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == -1) {
            if (inferred >= 0)
                return std::nullopt;
            inferred = static_cast<int>(i);
        } else if (dims[i] < 0) {
            return std::nullopt;
        } else if (known >= 0 && __builtin_mul_overflow(known, dims[i], &known)) {
            known = -1;
        }
    }
    if (inferred >= 0)
        dims[static_cast<std::size_t>(inferred)] = elements >= 0 && known > 0 && elements % known == 0 ? elements / known
                                                                                                       : -1;
    return dims;
}

bool reshapeHolds(const std::vector<std::int64_t>& dims, std::int64_t elements)
{
    const auto target = reshapeTarget(dims, elements);
    if (!target || elements < 0)
        return false;
    std::int64_t product = 1;
    for (std::int64_t d : *target)
        if (d < 0 || __builtin_mul_overflow(product, d, &product))
            return false;
    return product == elements;
}

} // namespace post
