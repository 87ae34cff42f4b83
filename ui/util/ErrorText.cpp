#include "ui/util/ErrorText.h"

#include "core/util/InputError.h"

namespace post {

QString readErrorText(const std::exception& error)
{
    const auto* input = dynamic_cast<const InputError*>(&error);
    if (!input)
        return QString::fromUtf8(error.what());
    QString text = QString::fromStdString(input->message());
    if (!input->location().empty())
        text = QString::fromStdString(input->location()) + QStringLiteral(": ") + text;
    return text;
}

} // namespace post
