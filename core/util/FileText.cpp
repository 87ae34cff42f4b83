#include "core/util/FileText.h"

#include "core/util/FileKind.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace post {

FilePrefix readRegularInput(const std::string& path, std::size_t maxBytes, bool refuseLarger)
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
    FilePrefix head;
    head.size = static_cast<std::uint64_t>(st.st_size);
    if (refuseLarger && head.size > maxBytes)
        throw InputError(path, {}, "file is too large (" + std::to_string(head.size) + " bytes)");
    head.bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(head.size, maxBytes)));
    std::size_t done = 0;
    while (done < head.bytes.size()) {
        const ssize_t n = ::read(fd, head.bytes.data() + done, head.bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw InputError(path, {}, std::string("read error: ") + std::strerror(errno));
        if (n == 0)
            break; // the file shrank while being read: what was there
        done += static_cast<std::size_t>(n);
    }
    head.bytes.resize(done);
    return head;
}

std::string readFileText(const std::string& path, std::size_t maxBytes)
{
    return gunzipIfCompressed(readRegularInput(path, maxBytes, true).bytes, path, maxBytes);
}

bool isGzip(std::string_view bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f
        && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

struct Inflater {
    z_stream z{};
    Inflater(const std::string& source)
    {
        // 16 + MAX_WBITS: gzip framing only (header and CRC checked), not zlib or raw.
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
            throw InputError(source, {}, "cannot start the gzip decompressor");
    }
    ~Inflater() { inflateEnd(&z); }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;
};

std::string gzipError(const z_stream& z, int rc)
{
    std::string what = rc == Z_MEM_ERROR ? "out of memory" : "corrupt data";
    if (z.msg != nullptr)
        what += std::string(" (") + z.msg + ")";
    return "gzip: " + what;
}

} // namespace

std::string gunzipIfCompressed(std::string bytes, const std::string& source, std::size_t maxBytes)
{
    if (!isGzip(bytes))
        return bytes;
    Inflater inflater(source);
    z_stream& z = inflater.z;
    std::string out;
    std::size_t consumed = 0;
    constexpr std::size_t kChunk = std::size_t(1) << 20;
    for (;;) {
        // zlib counts in uInt: feed the input a gigabyte at a time.
        const std::size_t inLeft = bytes.size() - consumed;
        const auto inNow = static_cast<uInt>(std::min<std::size_t>(inLeft, std::size_t(1) << 30));
        z.next_in = reinterpret_cast<Bytef*>(bytes.data() + consumed);
        z.avail_in = inNow;
        // The output grows a chunk at a time, one byte past the limit at most.
        const std::size_t room = std::min(kChunk, maxBytes + 1 - out.size());
        const std::size_t before = out.size();
        out.resize(before + room);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
        z.avail_out = static_cast<uInt>(room);
        const int rc = inflate(&z, Z_NO_FLUSH);
        out.resize(before + (room - z.avail_out));
        consumed += inNow - z.avail_in;
        if (out.size() > maxBytes)
            throw InputError(source, {},
                             "gzip: decompresses to more than " + std::to_string(maxBytes)
                                 + " bytes (the input limit); refused as a possible gzip bomb");
        if (rc == Z_STREAM_END) {
            // Another member follows (concatenated gzip files), or trailing zero padding.
            const bool more = consumed < bytes.size() && isGzip(std::string_view(bytes).substr(consumed));
            if (!more)
                break;
            inflateReset(&z);
            continue;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && consumed == bytes.size())
            throw InputError(source, {}, "gzip: the file is truncated (the stream ends early)");
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            throw InputError(source, {}, gzipError(z, rc));
    }
    return out;
}

} // namespace post
