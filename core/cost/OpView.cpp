#include "core/cost/OpView.h"

#include <algorithm>

namespace post {

const ShapedTensor* OpView::tensor(int index) const
{
    if (index < 0 || static_cast<size_t>(index) >= graph_.tensors.size())
        return nullptr;
    return &graph_.tensors[static_cast<size_t>(index)];
}

const ShapedTensor* OpView::input(size_t i) const { return i < op_.inputs.size() ? tensor(op_.inputs[i]) : nullptr; }

const ShapedTensor* OpView::output(size_t i) const { return i < op_.outputs.size() ? tensor(op_.outputs[i]) : nullptr; }

int OpView::rank(const ShapedTensor* t) { return t ? static_cast<int>(t->shape.size()) : 0; }

double OpView::dim(const ShapedTensor* t, int i)
{
    const int r = rank(t);
    if (i < 0)
        i += r;
    if (i < 0 || i >= r)
        return 1.0;
    const std::int64_t d = t->shape[static_cast<size_t>(i)];
    return d < 0 ? 1.0 : static_cast<double>(d);
}

double OpView::dims(const ShapedTensor* t, int from, int to)
{
    const int r = rank(t);
    if (from < 0)
        from += r;
    if (to < 0)
        to += r;
    double product = 1.0;
    for (int i = std::max(from, 0); i < std::min(to, r); ++i)
        product *= dim(t, i);
    return product;
}

double OpView::elements(const ShapedTensor* t) { return t ? dims(t, 0, rank(t)) : 0.0; }

double OpView::bytes(const ShapedTensor* t) { return t ? elements(t) * std::max(t->elementBytes, 0) : 0.0; }

double OpView::outputElements() const
{
    double sum = 0.0;
    for (size_t i = 0; i < op_.outputs.size(); ++i)
        sum += elements(output(i));
    return sum;
}

double OpView::inputBytes() const
{
    double sum = 0.0;
    for (size_t i = 0; i < op_.inputs.size(); ++i)
        sum += bytes(input(i));
    return sum;
}

double OpView::outputBytes() const
{
    double sum = 0.0;
    for (size_t i = 0; i < op_.outputs.size(); ++i)
        sum += bytes(output(i));
    return sum;
}

bool OpView::hasAttr(std::string_view name) const { return op_.intAttrs.find(std::string(name)) != op_.intAttrs.end(); }

std::int64_t OpView::attr(std::string_view name, std::int64_t fallback, size_t i) const
{
    const auto it = op_.intAttrs.find(std::string(name));
    if (it == op_.intAttrs.end() || i >= it->second.size())
        return fallback;
    return it->second[i];
}

double OpView::attrProduct(std::string_view name) const
{
    const auto it = op_.intAttrs.find(std::string(name));
    if (it == op_.intAttrs.end() || it->second.empty())
        return 0.0;
    double product = 1.0;
    for (std::int64_t v : it->second)
        product *= v < 1 ? 1.0 : static_cast<double>(v);
    return product;
}

std::string OpView::stringAttr(const std::string& name, const std::string& fallback) const
{
    const auto it = op_.stringAttrs.find(name);
    return it == op_.stringAttrs.end() ? fallback : it->second;
}

} // namespace post
