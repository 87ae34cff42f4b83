#pragma once

#include <cstdint>

namespace post {

// A heap entry: something (op, event, transfer) that becomes due at `time`; ties go to the
// lower id so the simulation never depends on insertion order.
struct TimedId {
    double time;
    std::int32_t id;

    friend bool operator<(const TimedId& a, const TimedId& b)
    {
        return a.time < b.time || (a.time == b.time && a.id < b.id);
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

inline TimedId heapPop(TimedId* heap, int& size)
{
    const TimedId top = heap[0];
    const TimedId last = heap[--size];
    const int n = size;
    int hole = 0;
    // Walk the hole down to where `last` belongs.
    for (;;) {
        int child = 2 * hole + 1;
        if (child >= n)
            break;
        if (child + 1 < n && heap[child + 1] < heap[child])
            ++child;
        if (!(heap[child] < last))
            break;
        heap[hole] = heap[child];
        hole = child;
    }
    if (n > 0)
        heap[hole] = last;
    return top;
}

} // namespace post
