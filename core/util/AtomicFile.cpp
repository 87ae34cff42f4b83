#include "core/util/AtomicFile.h"

#include "core/util/FileKind.h"
#include "core/util/InputError.h"
#include "core/util/SignalHandler.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

namespace post {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error)
{
    throw InputError(path, {}, what + ": " + std::strerror(error));
}

// The temporary files being written, for the signal handler to remove: fixed slots, so
// the handler touches only lock-free atomics and unlink (async-signal-safe). A write that
// finds every slot taken still works; only its temporary file is not removed on a signal.
struct TempSlot {
    std::atomic<bool> taken{false};
    std::atomic<bool> ready{false};
    char path[PATH_MAX] = {};
};
std::array<TempSlot, 32> g_tempSlots;

class TempRegistration {
public:
    explicit TempRegistration(const std::string& path)
    {
        if (path.size() >= PATH_MAX)
            return;
        for (TempSlot& slot : g_tempSlots) {
            bool expected = false;
            if (slot.taken.compare_exchange_strong(expected, true)) {
                std::memcpy(slot.path, path.c_str(), path.size() + 1);
                slot.ready.store(true, std::memory_order_release);
                slot_ = &slot;
                return;
            }
        }
    }
    TempRegistration(const TempRegistration&) = delete;
    TempRegistration& operator=(const TempRegistration&) = delete;
    ~TempRegistration()
    {
        if (slot_) {
            slot_->ready.store(false, std::memory_order_release);
            slot_->taken.store(false, std::memory_order_release);
        }
    }

private:
    TempSlot* slot_ = nullptr;
};

std::array<struct sigaction, 2> g_previous{};
constexpr std::array<int, 2> kCleanupSignals{SIGINT, SIGTERM};

void removeTempsAndRaise(int sig)
{
    for (TempSlot& slot : g_tempSlots)
        if (slot.ready.load(std::memory_order_acquire))
            ::unlink(slot.path);
    for (std::size_t k = 0; k < kCleanupSignals.size(); ++k) {
        if (kCleanupSignals[k] != sig)
            continue;
        const struct sigaction& before = g_previous[k];
        if (!(before.sa_flags & SA_SIGINFO) && before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
            before.sa_handler(sig);
            return;
        }
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
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

// Why `path` (resolved to `target`) cannot be replaced, or "".
std::string replaceProblem(const std::string& target, bool force)
{
    struct stat st { };
    if (::stat(target.c_str(), &st) == 0) {
        if (auto kind = nonRegularKind(target))
            return "is " + *kind + ", not a regular file: refusing to replace it";
        if (!force && ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0))
            return "is read-only: refusing to replace it";
    } else if (errno != ENOENT) {
        return std::string("cannot check it: ") + std::strerror(errno);
    }
    const std::filesystem::path parent = std::filesystem::path(target).parent_path();
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
    struct stat ds { };
    if (::stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode))
        return "its folder " + dir + " does not exist";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return "cannot write in its folder " + dir + ": " + std::strerror(errno);
    return {};
}

} // namespace

std::string writeTargetOf(const std::string& path)
{
    std::filesystem::path current(path);
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code ec;
        if (!std::filesystem::is_symlink(current, ec))
            return current.string();
        const std::filesystem::path next = std::filesystem::read_symlink(current, ec);
        if (ec)
            throw InputError(path, {}, "cannot read the symbolic link: " + ec.message());
        current = next.is_absolute() ? next : current.parent_path() / next;
    }
    throw InputError(path, {}, "too many levels of symbolic links");
}

void checkWriteTarget(const std::string& path, bool force)
{
    if (std::filesystem::path(path).filename().empty())
        throw InputError(path, {}, "not a file name");
    const std::string target = writeTargetOf(path);
    if (target != path) {
        std::error_code ec;
        // /dev/stdout and /proc/self/fd/N lead to "pipe:[...]" or "socket:[...]" when the
        // output is piped: an open stream, which a file replaced by renaming cannot be.
        const std::string name = std::filesystem::path(target).filename().string();
        if (name.starts_with("pipe:[") || name.starts_with("socket:[") || name.starts_with("anon_inode:"))
            throw InputError(path, {},
                             "leads to an open pipe or socket (" + name
                                 + "), not a file: outputs are written to a file and renamed into place; give a "
                                   "file name");
        if (!std::filesystem::exists(target, ec))
            throw InputError(path, {}, "is a symbolic link to " + target + ", which does not exist");
    }
    const std::string problem = replaceProblem(target, force);
    if (!problem.empty())
        throw InputError(path, {}, target == path ? problem : "links to " + target + ", which " + problem);
}

void removeTemporaryFilesOnSignals()
{
    static std::atomic<bool> installed{false};
    if (installed.exchange(true))
        return;
    for (std::size_t k = 0; k < kCleanupSignals.size(); ++k)
        replaceSignalHandler(kCleanupSignals[k], removeTempsAndRaise, g_previous[k]);
}

void writeFileAtomically(const std::string& path, std::string_view content, bool force)
{
    checkWriteTarget(path, force);
    const std::filesystem::path target(writeTargetOf(path));

    // O_EXCL with a fresh name: never follow or reuse someone else's file. The kernel
    // applies the umask to 0666, as for any newly created file.
    int fd = -1;
    std::string tempPath;
    std::optional<TempRegistration> registration;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
        tempPath = temporaryName(target, attempt);
        registration.reset();
        registration.emplace(tempPath); // before the open: a signal right after it still removes it
        fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            fail(path, "cannot create a temporary file next to it", errno);
    }
    if (fd < 0)
        fail(path, "cannot create a temporary file next to it", EEXIST);
    TempFile temp(tempPath, fd);

    struct stat existing { };
    if (::stat(target.c_str(), &existing) == 0 && S_ISREG(existing.st_mode))
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
    if (::rename(temp.path().c_str(), target.c_str()) != 0)
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
