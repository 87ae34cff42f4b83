#pragma once

#include "core/place/Placer.h"

namespace post {

// Baechi's m-ETF: memory-constrained earliest-time-first list scheduling
// (see ListScheduler for the rules).
class MEtfPlacer : public Placer {
public:
    std::string name() const override { return "m-etf"; }
    PlaceResult place(const PlaceContext& context) override;
};

} // namespace post
