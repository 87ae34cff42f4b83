#include "core/util/FilePrefix.h"

#include "core/util/FileKind.h"
#include "core/util/InputError.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace post {

FilePrefix readFilePrefix(const std::string& path, std::size_t maxBytes)
{
    requireRegularInput(path); // a FIFO's open() waits for a writer, forever
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        throw InputError(path, {}, std::string("cannot open: ") + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st { };
    if (::fstat(fd, &st) != 0)
        throw InputError(path, {}, std::string("cannot determine the file size: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw InputError(path, {}, "is not a regular file");
    FilePrefix prefix;
    prefix.size = static_cast<std::uint64_t>(st.st_size);
    prefix.bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(prefix.size, maxBytes)));
    std::size_t done = 0;
    while (done < prefix.bytes.size()) {
        const ssize_t n = ::read(fd, prefix.bytes.data() + done, prefix.bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw InputError(path, {}, std::string("read error: ") + std::strerror(errno));
        if (n == 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    prefix.bytes.resize(done);
    return prefix;
}

} // namespace post
