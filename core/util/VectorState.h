#pragma once

namespace post {

// The upper halves of the AVX registers (YMM0-15 above bit 127) as the CPU tracks them for
// the calling thread. Code compiled for SSE (the whole core: no -mavx) pays for every
// instruction while that state is "dirty" (in use): on the EPYC Zen 4 of docs/performance.md
// a libm exp() takes twice as long, and the learner 3-4x. A thread inherits the state of the
// thread that created it (Linux copies the vector registers on clone), and Qt's GUI start-up
// leaves the GUI thread's state dirty, so a worker thread started by the GUI runs all of
// core's arithmetic in it (docs/performance.md, "The GUI learner's vector state").
//
// clearUpperVectorState() executes VZEROUPPER where the CPU has AVX (what a compiler emits
// at every AVX-to-SSE boundary), a no-op elsewhere; cheap enough for the start of every job.
void clearUpperVectorState() noexcept;

// Whether the calling thread's upper AVX state is in use (XGETBV with ECX=1, bit 2), or
// false where the CPU cannot tell (no AVX, no XGETBV1, not x86): for tests and benchmarks.
bool upperVectorStateDirty() noexcept;
// Whether upperVectorStateDirty() can tell on this CPU.
bool canReadVectorState() noexcept;
// Makes the calling thread's upper AVX state dirty (writes YMM15 with a VEX.256
// instruction) where the CPU has AVX: how tests and benchmarks reproduce a GUI thread's state.
void dirtyUpperVectorState() noexcept;

} // namespace post
