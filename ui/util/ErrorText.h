#pragma once

#include <QString>

#include <exception>

namespace post {

// The message to show for an error a reader or writer threw: "location: message" for an
// InputError (its file is shown separately, as the dialog's subject), what() otherwise.
QString readErrorText(const std::exception& error);

} // namespace post
