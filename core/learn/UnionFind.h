#pragma once

#include <numeric>
#include <vector>

namespace post {

// Disjoint sets over 0..n-1 with path halving; unite() keeps the smaller root so the
// representative of a set is deterministic (its lowest member).
class UnionFind {
public:
    explicit UnionFind(int n)
        : parent_(static_cast<size_t>(n))
    {
        std::iota(parent_.begin(), parent_.end(), 0);
    }

    int find(int x)
    {
        while (parent_[static_cast<size_t>(x)] != x) {
            int& p = parent_[static_cast<size_t>(x)];
            p = parent_[static_cast<size_t>(p)];
            x = p;
        }
        return x;
    }

    // Returns the new root.
    int unite(int a, int b)
    {
        a = find(a);
        b = find(b);
        if (a == b)
            return a;
        if (b < a)
            std::swap(a, b);
        parent_[static_cast<size_t>(b)] = a;
        return a;
    }

    int size() const { return static_cast<int>(parent_.size()); }

private:
    std::vector<int> parent_;
};

} // namespace post
