#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace post {

// A TensorFlow device string in the form cluster presets use. The local job's prefix
// (/job:localhost, /replica:0, /task:0, in any subset) is dropped and the legacy
// lower-case form is upgraded: "/job:localhost/replica:0/task:0/device:GPU:0", "/gpu:0",
// "/device:gpu:0" and "GPU:0" all become "/device:GPU:0". Another job or task is kept,
// canonically ordered: "/job:worker/replica:0/task:1/device:GPU:0". Returns nullopt when
// the string names no device type and index ("/job:ps", "/device:GPU:*", "banana").
std::optional<std::string> normalizeTfDeviceName(std::string_view device);

} // namespace post
