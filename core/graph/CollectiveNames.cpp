#include "core/graph/CollectiveNames.h"

#include <cctype>
#include <string>
#include <utility>

namespace post {

CollectiveKind collectiveKindOfLetters(std::string_view name)
{
    std::string letters; // "_reduce_scatter_base_" -> "reducescatterbase"
    for (char c : name)
        if (std::isalpha(static_cast<unsigned char>(c)))
            letters.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    // The longer names first: "allreduce" also contains "reduce", "reducescatter" starts with it.
    static const std::pair<std::string_view, CollectiveKind> kinds[] = {{"reducescatter", CollectiveKind::ReduceScatter},
                                                                        {"allreduce", CollectiveKind::AllReduce},
                                                                        {"allgather", CollectiveKind::AllGather},
                                                                        {"alltoall", CollectiveKind::AllToAll},
                                                                        {"broadcast", CollectiveKind::Broadcast},
                                                                        {"barrier", CollectiveKind::Barrier},
                                                                        {"reduce", CollectiveKind::Reduce},
                                                                        {"gather", CollectiveKind::Gather},
                                                                        {"scatter", CollectiveKind::Scatter}};
    for (const auto& [pattern, kind] : kinds)
        if (letters.starts_with(pattern))
            return kind;
    return CollectiveKind::None;
}

} // namespace post
