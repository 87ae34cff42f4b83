#include "core/util/FileText.h"

#include "core/util/InputError.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace post {

std::string readFileText(const std::string& path, std::size_t maxBytes)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path, {}, "is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, {}, std::string("cannot open: ") + std::strerror(errno));
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size < 0)
        throw InputError(path, {}, "cannot determine the file size");
    if (static_cast<std::size_t>(size) > maxBytes)
        throw InputError(path, {}, "file is too large (" + std::to_string(static_cast<long long>(size)) + " bytes)");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    in.read(text.data(), size);
    if (!in)
        throw InputError(path, {}, "read error");
    return text;
}

} // namespace post
