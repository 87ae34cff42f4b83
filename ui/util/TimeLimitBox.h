#pragma once

#include <QCoreApplication>
#include <QDoubleSpinBox>

namespace post {

// A time-limit field as the learner panel and the Compare tab show it: 0 to 3600 s in steps
// of half a second, 0 reading "none" (no limit), starting at `seconds`.
inline void setUpTimeLimitBox(QDoubleSpinBox* box, double seconds)
{
    box->setRange(0.0, 3600.0);
    box->setDecimals(1);
    box->setSingleStep(0.5);
    box->setSpecialValueText(QCoreApplication::translate("post::TimeLimitBox", "none"));
    box->setSuffix(QCoreApplication::translate("post::TimeLimitBox", " s"));
    box->setValue(seconds);
}

} // namespace post
