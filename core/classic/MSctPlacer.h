#pragma once

#include "core/place/Placer.h"

namespace post {

struct MSctOptions {
    int maxLpOps = 1000;    // ops per favourite-child LP window (see FavouriteChildLp)
    double threshold = 0.5; // LP x_ij at or below this makes j the favourite child of i
};

// Baechi's m-SCT: favourite children from the LP relaxation (FavouriteChildLp), then
// m-ETF list scheduling that keeps a device free for its last op's favourite child.
class MSctPlacer : public Placer {
public:
    explicit MSctPlacer(MSctOptions options = {})
        : options_(options)
    {
    }
    std::string name() const override { return "m-sct"; }
    PlaceResult place(const PlaceContext& context) override;

private:
    MSctOptions options_;
};

} // namespace post
