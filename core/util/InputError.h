#pragma once

#include <stdexcept>
#include <string>

namespace post {

// Bad user input: names the file and, where known, the line or field at fault.
// Every importer throws this so the CLI and the GUI can show one clear message. Bytes of
// the parts that are not valid UTF-8 are written \xNN (core/util/Utf8).
class InputError : public std::runtime_error {
public:
    InputError(std::string file, std::string location, std::string message);

    const std::string& file() const { return file_; }
    const std::string& location() const { return location_; }
    const std::string& message() const { return message_; }

private:
    std::string file_;
    std::string location_;
    std::string message_;
};

} // namespace post
