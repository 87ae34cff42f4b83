#include "core/io/tf/TextProtoField.h"

namespace post {

const TextProtoField* TextProtoField::find(std::string_view fieldName) const
{
    for (const TextProtoField& f : fields)
        if (f.name == fieldName)
            return &f;
    return nullptr;
}

} // namespace post
