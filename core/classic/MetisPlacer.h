#pragma once

#include "core/place/Placer.h"

#include <vector>

namespace post {

struct MetisOptions {
    int imbalancePermille = 30; // METIS ufactor: largest part may exceed its share by 3%
    int seed = 1;               // METIS is deterministic for a fixed seed
};

// k-way min-cut partition with METIS: vertices are colocation-merged units weighted by
// GPU compute, edges weighted by bytes, k = number of GPUs with target part weights
// proportional to GPU speed; part i goes to GPU i. Overflowing devices are then
// repaired greedily by moving units with the least communication to devices with room
// (docs/placers.md has the scaling and the repair rules).
class MetisPlacer : public Placer {
public:
    explicit MetisPlacer(MetisOptions options = {})
        : options_(options)
    {
    }
    std::string name() const override { return "metis"; }
    PlaceResult place(const PlaceContext& context) override;

    // The placement for given per-device memory budgets (bytes), unsimulated.
    static Placement partition(const PlaceContext& context, const MetisOptions& options,
                               const std::vector<double>& budgets);

private:
    MetisOptions options_;
};

} // namespace post
