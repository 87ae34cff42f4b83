#pragma once

#include <cmath>

namespace post {

// The larger of the two last points golden-section search reaches for the maximum of `f` over
// [lo, hi] in `steps` narrowings (each one more evaluation), with its value: the maximum up to
// the final interval where `f` is unimodal, some value of `f` anywhere. `more()` false ends it
// early. The lower bound's weights and the memory split's theta (core/sim).
struct GoldenMax {
    double x = 0.0;
    double value = 0.0;
};

template <class F, class More> GoldenMax goldenSectionMax(F f, double lo, double hi, int steps, More more)
{
    const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
    double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
    double fa = f(a), fb = f(b);
    for (int i = 0; i < steps && more(); ++i) {
        if (fa < fb) {
            lo = a;
            a = b;
            fa = fb;
            b = lo + golden * (hi - lo);
            fb = f(b);
        } else {
            hi = b;
            b = a;
            fb = fa;
            a = hi - golden * (hi - lo);
            fa = f(a);
        }
    }
    return fa >= fb ? GoldenMax{a, fa} : GoldenMax{b, fb};
}

} // namespace post
