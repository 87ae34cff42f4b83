#pragma once

#include <QLabel>

namespace post {

// A one-line label for a bar that may be too narrow for it (the status bar's sections): it
// asks for its whole text's width but takes less, and then draws the text elided ("…")
// instead of being clipped or overlapping its neighbours. While elided, its tooltip starts
// with the whole text (followed by whatever setToolTip gave). text() is always the whole text.
class ElidingLabel : public QLabel {
    Q_OBJECT

public:
    explicit ElidingLabel(QWidget* parent = nullptr);

    // The narrowest the label may become: at most `pixels` (never more than its whole text
    // needs). Default: 60.
    void setMinimumTextWidth(int pixels);
    // Whether the text shown is cut short at the label's present width.
    bool isElided() const;
    // The text as drawn ("…" where it is cut).
    QString shownText() const;
    // What the label's tooltip shows now: the whole text first while elided, then toolTip().
    QString effectiveToolTip() const;

    QSize minimumSizeHint() const override;

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    int minimumTextWidth_ = 60;
};

} // namespace post
