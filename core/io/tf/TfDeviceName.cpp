#include "core/io/tf/TfDeviceName.h"

#include <cctype>

namespace post {
namespace {

std::string upper(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

bool isIndex(std::string_view text)
{
    if (text.empty() || text.size() > 6)
        return false;
    for (char c : text)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

bool isTypeName(std::string_view text)
{
    if (text.empty())
        return false;
    for (char c : text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            return false;
    return true;
}

} // namespace

std::optional<std::string> normalizeTfDeviceName(std::string_view device)
{
    std::string job, replica, task, type, index;
    std::size_t pos = 0;
    while (pos < device.size()) {
        if (device[pos] == '/') {
            ++pos;
            continue;
        }
        const std::size_t slash = device.find('/', pos);
        const std::string_view part = device.substr(
            pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
        pos = slash == std::string_view::npos ? device.size() : slash;
        const std::size_t colon = part.find(':');
        if (colon == std::string_view::npos)
            return std::nullopt;
        const std::string_view key = part.substr(0, colon);
        const std::string_view value = part.substr(colon + 1);
        if (key == "job") {
            job = value;
        } else if (key == "replica") {
            replica = value;
        } else if (key == "task") {
            task = value;
        } else {
            // "device:GPU:0" or the legacy "gpu:0".
            std::string_view kind = key, ordinal = value;
            if (key == "device") {
                const std::size_t c2 = value.find(':');
                if (c2 == std::string_view::npos)
                    return std::nullopt;
                kind = value.substr(0, c2);
                ordinal = value.substr(c2 + 1);
            }
            if (!isTypeName(kind) || !isIndex(ordinal) || !type.empty())
                return std::nullopt;
            type = upper(kind);
            index = std::string(ordinal);
        }
    }
    if (type.empty())
        return std::nullopt;
    const std::string tail = "/device:" + type + ":" + std::to_string(std::stoi(index));
    const bool local = (job.empty() || job == "localhost") && (replica.empty() || replica == "0")
        && (task.empty() || task == "0");
    if (local)
        return tail;
    return "/job:" + (job.empty() ? std::string("localhost") : job) + "/replica:" + (replica.empty() ? "0" : replica)
        + "/task:" + (task.empty() ? "0" : task) + tail;
}

} // namespace post
