#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/place/Placer.h"

#include <string>
#include <vector>

namespace post {

// A learner started from the best placement of some classical placers (CLI name
// "post@m-sct", or "post@best" for the best of all of them). Post from scratch often
// stops in a local optimum a list scheduler avoids (docs/learners.md); starting from
// that placement lets the learner spend its budget improving on it. But a start can also
// trap it (on MSR graphs the classical placers' conservative memory estimates give slow
// starts), so half the budget goes to a warm run and half to a cold one, and the better
// wins. The result is never worse than the start: the start is itself a simulated placement.
class WarmStartedPlacer : public Placer {
public:
    WarmStartedPlacer(std::string learner, std::vector<std::string> starters, std::string name,
                      LearnerOptions options = {});

    std::string name() const override { return name_; }
    PlaceResult place(const PlaceContext& context) override;

private:
    std::string learner_;
    std::vector<std::string> starters_;
    std::string name_;
    LearnerOptions options_;
};

} // namespace post
