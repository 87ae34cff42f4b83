#include "core/util/FileText.h"

#include "core/util/FileKind.h"
#include "core/util/InputError.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace post {

std::string readFileText(const std::string& path, std::size_t maxBytes)
{
    // Refused before the open: opening a FIFO waits for a writer, forever.
    requireRegularInput(path);
    // O_NONBLOCK as well, for a file swapped for a FIFO after the check; fstat decides.
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
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > maxBytes)
        throw InputError(path, {}, "file is too large (" + std::to_string(static_cast<long long>(size)) + " bytes)");
    std::string text(size, '\0');
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::read(fd, text.data() + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw InputError(path, {}, std::string("read error: ") + std::strerror(errno));
        if (n == 0)
            break; // the file shrank while being read: what was there
        done += static_cast<std::size_t>(n);
    }
    text.resize(done);
    return text;
}

} // namespace post
