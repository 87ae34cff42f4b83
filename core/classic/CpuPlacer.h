#pragma once

#include "core/place/Placer.h"

namespace post {

// Every op on the cluster's first CPU: the baseline a graph runs at without accelerators.
// Throws InputError when the cluster has no CPU.
class CpuPlacer : public Placer {
public:
    std::string name() const override { return "cpu"; }
    PlaceResult place(const PlaceContext& context) override;
};

} // namespace post
