#pragma once

#include "core/learn/Policy.h"
#include "core/learn/SampleBatch.h"

namespace post {

// PPO's clipped surrogate (Schulman et al. 2017) for `policy` on `batch`:
//   mean_i min(r_i A_i, clip(r_i, 1 - clip, 1 + clip) A_i),  r_i = exp(log p(a_i) - old log p_i).
// When `gradient` is given it is overwritten with d objective / d logits: a sample
// contributes A_i r_i d log p(a_i) where the unclipped term is the smaller one, else nothing.
double clippedSurrogate(const Policy& policy, const SampleBatch& batch, double clip, PolicyMatrix* gradient);

} // namespace post
