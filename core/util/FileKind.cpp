#include "core/util/FileKind.h"

#include "core/util/InputError.h"

#include <filesystem>
#include <system_error>

#include <sys/stat.h>

namespace post {
namespace {

std::optional<std::string> kindOf(mode_t mode)
{
    if (S_ISREG(mode))
        return std::nullopt;
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

} // namespace

std::optional<std::string> nonRegularKind(const std::string& path)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0)
        return std::nullopt;
    return kindOf(st.st_mode);
}

void requireRegularInput(const std::string& path)
{
    if (path == "-")
        return;
    if (auto kind = nonRegularKind(path))
        throw InputError(path, {}, "is " + *kind + ", not a regular file");
}

bool sameFile(const std::string& a, const std::string& b)
{
    struct stat sa { };
    struct stat sb { };
    const bool hasA = ::stat(a.c_str(), &sa) == 0;
    const bool hasB = ::stat(b.c_str(), &sb) == 0;
    if (hasA && hasB)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (hasA != hasB)
        return false;
    std::error_code ec1;
    std::error_code ec2;
    const auto pa = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec1), ec1);
    const auto pb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec2), ec2);
    return !ec1 && !ec2 && pa == pb;
}

} // namespace post
