#include "core/util/AtomicFile.h"

#include "core/util/InputError.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace post {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error)
{
    throw InputError(path, {}, what + ": " + std::strerror(error));
}

// Closes the temporary file and removes it unless the rename went through.
class TempFile {
public:
    TempFile(std::string path, int fd)
        : path_(std::move(path))
        , fd_(fd)
    {
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile()
    {
        if (fd_ >= 0)
            ::close(fd_);
        if (!committed_)
            ::unlink(path_.c_str());
    }

    int fd() const { return fd_; }
    const std::string& path() const { return path_; }
    int close()
    {
        const int result = ::close(fd_);
        fd_ = -1;
        return result;
    }
    void commit() { committed_ = true; }

private:
    std::string path_;
    int fd_;
    bool committed_ = false;
};

std::string temporaryName(const std::filesystem::path& target, int attempt)
{
    static std::atomic<unsigned> counter{0};
    std::string name = ".";
    name.append(target.filename().string());
    name.append(".tmp-").append(std::to_string(::getpid()));
    name.append("-").append(std::to_string(counter++));
    name.append("-").append(std::to_string(attempt));
    return (target.parent_path() / name).string();
}

} // namespace

void writeFileAtomically(const std::string& path, std::string_view content)
{
    const std::filesystem::path target(path);
    if (target.filename().empty())
        throw InputError(path, {}, "not a file name");

    // O_EXCL with a fresh name: never follow or reuse someone else's file. The kernel
    // applies the umask to 0666, as for any newly created file.
    int fd = -1;
    std::string tempPath;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
        tempPath = temporaryName(target, attempt);
        fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            fail(path, "cannot create a temporary file next to it", errno);
    }
    if (fd < 0)
        fail(path, "cannot create a temporary file next to it", EEXIST);
    TempFile temp(tempPath, fd);

    struct stat existing { };
    if (::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode))
        (void)::fchmod(temp.fd(), existing.st_mode & 07777);

    const char* data = content.data();
    size_t left = content.size();
    while (left > 0) {
        const ssize_t n = ::write(temp.fd(), data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail(path, "cannot write", errno);
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    if (::fsync(temp.fd()) != 0)
        fail(path, "cannot flush to disk", errno);
    if (temp.close() != 0)
        fail(path, "cannot close", errno);
    if (::rename(temp.path().c_str(), path.c_str()) != 0)
        fail(path, "cannot replace", errno);
    temp.commit();

    // Make the rename itself durable; a failure here leaves the new content in place.
    const std::string dir = target.parent_path().empty() ? std::string(".") : target.parent_path().string();
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        (void)::fsync(dirFd);
        ::close(dirFd);
    }
}

} // namespace post
