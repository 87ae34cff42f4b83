#pragma once

#include "core/learn/LearnerOptions.h"

#include <QWidget>

#include <string>
#include <utility>
#include <vector>

class QFormLayout;
class QLabel;
class QPushButton;

namespace post {

// Every learner constant of `post-cli --set KEY=VALUE` (core's learnerOptionKeys()), one
// field each with a tooltip explaining it. Text is checked by core's setLearnerOption as
// it is typed; a problem shows under the field and makes isValid() false.
class LearnerOptionsEditor : public QWidget {
    Q_OBJECT

public:
    explicit LearnerOptionsEditor(QWidget* parent = nullptr);

    bool isValid() const { return problems_ == 0; }
    // The options (defaults where a field is invalid).
    LearnerOptions options() const;
    // KEY=VALUE pairs that differ from the defaults (what `--set` would need).
    std::vector<std::pair<std::string, std::string>> changed() const;
    // Sets a field's text as if typed; false when the key is unknown.
    bool setValue(const QString& key, const QString& value);
    QString value(const QString& key) const;
    QString problem(const QString& key) const; // the inline message, empty when valid

    // Longer explanation for a key's tooltip (empty if none).
    static QString explanation(const QString& key);

public slots:
    void resetToDefaults();

signals:
    void validityChanged(bool valid);
    void optionsChanged();

private:
    struct Field {
        QString key;
        QWidget* editor = nullptr; // QLineEdit or QComboBox
        QLabel* problem = nullptr;
        QString defaultValue;
    };
    void check(Field& field);
    QString text(const Field& field) const;

    std::vector<Field> fields_;
    QPushButton* defaults_ = nullptr;
    int problems_ = 0;
};

} // namespace post
