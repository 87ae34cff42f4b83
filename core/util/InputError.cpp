#include "core/util/InputError.h"

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

InputError::InputError(std::string file, std::string location, std::string message)
    : std::runtime_error(compose(file, location, message))
    , file_(std::move(file))
    , location_(std::move(location))
    , message_(std::move(message))
{
}

} // namespace post
