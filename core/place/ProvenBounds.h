#pragma once

namespace post {

// The bounds a placer proved on the step time (the milp placer's), held by PlaceResult for one
// run and by ComparisonRow for the runs of one algorithm (merge()). Every field 0 / false: none.
struct ProvenBounds {
    // A lower bound on the step time of every placement that fits in memory (the solver's bound;
    // 0: none), whether it holds for the op-level problem (false: only inside a grouping, never
    // to be reported as a bound of the graph), and whether the placement is proven optimal.
    double solverBoundUs = 0.0;
    bool solverBoundOpLevel = false;
    bool provenOptimal = false;
    // A bound valid only inside a grouping (milp's grouped mode: the solver's bound on the coarse
    // graph of groupedBoundGroups chunks; 0: none), and whether the placement expands the proven
    // optimum of that coarse graph. Never a bound of the op-level problem.
    double groupedBoundUs = 0.0;
    int groupedBoundGroups = 0;
    bool groupedOptimal = false;

    bool hasSolverBound() const { return solverBoundUs > 0.0; }
    bool hasGroupedBound() const { return groupedBoundUs > 0.0; }
    bool any() const { return hasSolverBound() || hasGroupedBound(); }
    // The solver's bound where it holds for the op-level problem (a bound of the graph), else 0.
    double opLevelUs() const { return solverBoundOpLevel ? solverBoundUs : 0.0; }
    bool provesOpLevel() const { return solverBoundOpLevel && hasSolverBound(); }

    // Takes another run's bounds: the larger bound of each kind (with its scope or its chunks),
    // optimal where either run proved it.
    void merge(const ProvenBounds& other)
    {
        if (other.solverBoundUs > solverBoundUs) {
            solverBoundUs = other.solverBoundUs;
            solverBoundOpLevel = other.solverBoundOpLevel;
        }
        provenOptimal = provenOptimal || other.provenOptimal;
        if (other.groupedBoundUs > groupedBoundUs) {
            groupedBoundUs = other.groupedBoundUs;
            groupedBoundGroups = other.groupedBoundGroups;
        }
        groupedOptimal = groupedOptimal || other.groupedOptimal;
    }
};

} // namespace post
