#pragma once

class QThread;

namespace post {

// Learner and comparison runs keep every core busy (the evaluation pool has a thread per
// core). At equal priority the GUI thread then waits its turn behind them and the window
// stutters (the measured 40-100 ms event-loop gaps on 2 cores). A positive nice value per
// thread lets the scheduler prefer the GUI thread while leaving the search all idle CPU.
// Threads started from a lowered thread inherit its nice value on Linux, so lowering the
// worker QThread also lowers the evaluation pool it creates.
constexpr int kBackgroundNice = 10;

// Once `thread` (not yet started) runs, raises its nice value by kBackgroundNice (capped
// at 19). No-op where per-thread nice values do not exist.
void runAtBackgroundPriority(QThread& thread);

// The calling thread's nice value (for tests); 0 where unsupported.
int currentThreadNice();

// Raises the calling thread's nice value by kBackgroundNice the first time it is called on
// that thread (a pool thread runs many jobs); no-op where unsupported.
void lowerCurrentThreadPriorityOnce();

} // namespace post
