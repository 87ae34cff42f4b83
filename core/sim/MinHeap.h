#pragma once

#include <cstdint>

namespace post {

// A heap entry: something (op, event) that becomes due at `time`; ties go to the lower id
// so the simulation never depends on insertion order.
struct TimedId {
    double time;
    std::int32_t id;

    // Bitwise rather than short-circuit: heap comparisons are unpredictable, so a branch
    // per comparison would cost more than evaluating both halves.
    friend bool operator<(const TimedId& a, const TimedId& b)
    {
        return (a.time < b.time) | ((a.time == b.time) & (a.id < b.id));
    }
};

// Binary min-heap over caller-owned storage, so the simulator can carve many heaps out of
// one preallocated array and never allocate while it runs. The caller guarantees capacity.
inline void heapPush(TimedId* heap, int& size, TimedId value)
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
inline TimedId heapPop(TimedId* heap, int& size)
{
    const TimedId top = heap[0];
    const int n = --size;
    if (n == 0)
        return top;
    const TimedId last = heap[n];
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

} // namespace post
