#include "core/util/FileText.h"

#include "core/util/FileKind.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace post {

RegularInput::RegularInput(RegularInput&& other) noexcept
    : fd_(std::exchange(other.fd_, -1))
    , size_(other.size_)
{
}

RegularInput::~RegularInput()
{
    if (fd_ >= 0)
        ::close(fd_);
}

std::int64_t RegularInput::readUpTo(std::uint64_t offset, std::size_t n, char* out) const
{
    std::size_t done = 0;
    while (done < n) {
        const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break; // the file ends here (it shrank)
        done += static_cast<std::size_t>(got);
    }
    return static_cast<std::int64_t>(done);
}

bool RegularInput::readAt(std::uint64_t offset, std::size_t n, char* out) const
{
    return readUpTo(offset, n, out) == static_cast<std::int64_t>(n);
}

RegularInput openRegularInput(const std::string& path, std::size_t maxBytes, bool refuseLarger)
{
    requireRegularInput(path);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        throw InputError(path, {}, std::string("cannot open: ") + std::strerror(errno));
    RegularInput input(fd, 0); // closes it from here on
    struct stat st { };
    if (::fstat(fd, &st) != 0)
        throw InputError(path, {}, std::string("cannot determine the file size: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw InputError(path, {}, "is not a regular file");
    input.size_ = static_cast<std::uint64_t>(st.st_size);
    if (refuseLarger && input.size_ > maxBytes)
        throw InputError(path, {}, "file is too large (" + std::to_string(input.size_) + " bytes)");
    return input;
}

FilePrefix readRegularInput(const std::string& path, std::size_t maxBytes, bool refuseLarger)
{
    const RegularInput input = openRegularInput(path, maxBytes, refuseLarger);
    FilePrefix head;
    head.size = input.size();
    head.bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(head.size, maxBytes)));
    const std::int64_t got = input.readUpTo(0, head.bytes.size(), head.bytes.data());
    if (got < 0)
        throw InputError(path, {}, std::string("read error: ") + std::strerror(errno));
    head.bytes.resize(static_cast<std::size_t>(got));
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
