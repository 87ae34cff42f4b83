#pragma once

#include <cstdint>

namespace post {

// The next event of one resource (a device's running op, or the transfer at the head of a
// link's queue). Ordered by time only: the simulator gives the same result whatever order it
// handles the events of one instant in, and a one-field comparison is much cheaper in the
// hottest loop.
struct TimedEvent {
    double time;
    std::int32_t id;

    friend bool operator<(const TimedEvent& a, const TimedEvent& b) { return a.time < b.time; }
};

// Binary min-heap over caller-owned storage, so the simulator can carve many heaps out of
// one preallocated array and never allocate while it runs. The caller guarantees capacity.
template <class T> inline void heapPush(T* heap, int& size, T value)
{
    int hole = size++;
    while (hole > 0) {
        const int parent = (hole - 1) >> 1;
        if (!(value < heap[parent]))
            break;
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = value;
}

// Bottom-up pop: the hole goes all the way down along the smaller children (a branch-free
// choice), then the last entry sifts up from there. The last entry usually belongs near
// the bottom, so this saves the unpredictable "stop here?" test on every level.
template <class T> inline T heapPop(T* heap, int& size)
{
    const T top = heap[0];
    const int n = --size;
    if (n == 0)
        return top;
    const T last = heap[n];
    int hole = 0;
    for (int child = 1; child < n; child = 2 * hole + 1) {
        child += (child + 1 < n) & (heap[child + 1] < heap[child]);
        heap[hole] = heap[child];
        hole = child;
    }
    while (hole > 0) {
        const int parent = (hole - 1) >> 1;
        if (!(last < heap[parent]))
            break;
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = last;
    return top;
}

// Replaces the top by `value` (pop then push in one pass): a link whose head transfer arrived
// puts its next transfer in the same slot. Plain sift-down: the value often stays near the top.
template <class T> inline void heapReplaceTop(T* heap, int size, T value)
{
    int hole = 0;
    for (int child = 1; child < size; child = 2 * hole + 1) {
        child += (child + 1 < size) & (heap[child + 1] < heap[child]);
        if (!(heap[child] < value))
            break;
        heap[hole] = heap[child];
        hole = child;
    }
    heap[hole] = value;
}

} // namespace post
