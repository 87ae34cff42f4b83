#include "core/util/InputError.h"

#include "core/util/Utf8.h"

namespace post {
namespace {

std::string compose(const std::string& file, const std::string& location, const std::string& message)
{
    std::string text = file.empty() ? std::string("<input>") : file;
    if (!location.empty())
        text += ": " + location;
    text += ": " + message;
    return text;
}

} // namespace

// Every part is valid UTF-8 (bytes that are not are written \xNN), so that the message can
// go into JSON output or a Qt string whatever the input held.
InputError::InputError(std::string file, std::string location, std::string message)
    : std::runtime_error(compose(escapeInvalidUtf8(file), escapeInvalidUtf8(location), escapeInvalidUtf8(message)))
    , file_(escapeInvalidUtf8(file))
    , location_(escapeInvalidUtf8(location))
    , message_(escapeInvalidUtf8(message))
{
}

} // namespace post
