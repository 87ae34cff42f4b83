#include "ui/learn/LearnerOptionsEditor.h"

#include "core/learn/LearnerOptionSetter.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace post {

QString LearnerOptionsEditor::explanation(const QString& key)
{
    // What the constant changes in practice; the one-line help comes from core.
    static const QHash<QString, QString> text = {
        {QStringLiteral("batch"),
         tr("Post and PPO update the policy after every K samples, which are also simulated as one "
            "parallel batch. Smaller K: more, noisier updates.")},
        {QStringLiteral("ce-interval"),
         tr("Every N samples the cross-entropy step moves the policy towards the best of those N "
            "placements. Rounded up to a multiple of the batch.")},
        {QStringLiteral("elite"),
         tr("The share of the last N samples that counts as elite for the cross-entropy step. Lower "
            "is greedier; with N = 100 and 0.1 the 10 fastest placements decide.")},
        {QStringLiteral("ce-smoothing"),
         tr("After a cross-entropy step each group keeps this much probability spread evenly over all "
            "devices, so no device becomes unreachable.")},
        {QStringLiteral("ppo-epochs"),
         tr("How many gradient steps PPO takes on each batch. More reuses each sample harder; 0 turns "
            "PPO off (cross-entropy only).")},
        {QStringLiteral("ppo-clip"),
         tr("PPO's trust region: the probability ratio of a sample is clipped to [1 - clip, 1 + clip], "
            "limiting how far one batch can move the policy.")},
        {QStringLiteral("entropy-bonus"),
         tr("Rewards keeping the policy uncertain. Raise it if runs converge early to a poor placement.")},
        {QStringLiteral("reinforce-decay"),
         tr("REINFORCE's baseline is an exponential moving average of the reward with this decay "
            "(Mirhoseini et al. 2017). Closer to 1 is smoother.")},
        {QStringLiteral("lr"), tr("Adam's learning rate on the policy logits, for PPO and REINFORCE updates.")},
        {QStringLiteral("milp-groups"),
         tr("milp only: on a graph too big for its exact op-level model, it solves the model on at most "
            "this many chunks (clusters of colocation units along the topological order); 0 picks the "
            "most that fit. The solver's bound then holds for that grouping only, never for the graph.")},
        {QStringLiteral("max-groups"),
         tr("Large graphs are bundled into at most this many groups, each placed as one unit. Fewer "
            "groups learn faster; more can balance finer.")},
        {QStringLiteral("warm-mass"),
         tr("For LEARNER@PLACER runs: the probability each group starts with on the device the "
            "classical placement chose.")},
        {QStringLiteral("grouping"),
         tr("How ops are bundled into groups: auto (chains, then chunks on large graphs), none (one "
            "per op), chains (single-consumer chains), chunks (runs of the topological order) or "
            "scopes (name prefixes).")},
        {QStringLiteral("penalty"),
         tr("How out-of-memory samples are scored: growing (worse the further they overflow, so the "
            "learner is led back to fitting) or fixed (one constant failure time).")},
        {QStringLiteral("symmetry"),
         tr("post only: relabel interchangeable devices canonically in every sample, so CE and PPO "
            "count one split once rather than once per labelling (1 on, 0 off).")},
        {QStringLiteral("coarse-to-fine"),
         tr("post only, with guide 0: chain-like graphs start from a few contiguous chunks, split where "
            "the elite disagrees or the critical path runs when the policy collapses (1 on, 0 off).")},
        {QStringLiteral("guide"),
         tr("post only: how strongly each sample is drawn toward the device where an op would finish "
            "earliest given the draws before it (list scheduling), per mean op time of delay; the pull "
            "fades as the policy grows sure of a group. 0 samples from the per-group policy alone.")},
        {QStringLiteral("local-search"),
         tr("post only: hill-climb the best and elite placements with the simulator after every CE "
            "step, within the budget (1 on, 0 off).")},
        {QStringLiteral("block-moves"),
         tr("post and post@best: besides moving, swapping and merging groups, the local search moves "
            "whole blocks of ops that the best placement's critical path waited for: the ops an op on "
            "it queued behind, and the chains on either side of a transfer on it (1 on, 0 off).")},
        {QStringLiteral("kicks"),
         tr("post@best only: the share of the budget left after its first climb that goes, after the "
            "race of Post runs, to the search from the race's best that 'walk' chooses (0 gives the "
            "race everything).")},
        {QStringLiteral("walk"),
         tr("post@best only: after the race, the plateau walk (1): random moves of one group, or swaps "
            "of two neighbouring groups, each kept when the step is no slower, so the search drifts "
            "across placements of equal step time until one is faster; where the walk stalls (nothing "
            "faster for as long again as it had walked), a local search with kicks takes over (a run of "
            "ops moved together to one device, or two devices exchanged within it, then climbed, kept "
            "when faster). 0: the local search with kicks alone.")},
        {QStringLiteral("coarse-width"),
         tr("post only: graphs narrower than this (total work over critical path) start coarse.")},
        {QStringLiteral("restarts"),
         tr("post only: when the entropy collapses without improvement, refine the groups or restart "
            "the policy (1 on, 0 off).")},
    };
    return text.value(key);
}

LearnerOptionsEditor::LearnerOptionsEditor(QWidget* parent)
    : QWidget(parent)
{
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const LearnerOptions defaults;
    for (const LearnerOptionInfo& info : learnerOptionKeys()) {
        Field field;
        field.key = QString::fromStdString(info.key);
        field.defaultValue = QString::fromStdString(learnerOptionValue(defaults, info.key).value_or(std::string()));
        QString tip = QStringLiteral("<b>%1</b>: %2").arg(field.key, QString::fromStdString(info.help).toHtmlEscaped());
        const QString more = explanation(field.key);
        if (!more.isEmpty())
            tip += QStringLiteral("<p>") + more.toHtmlEscaped() + QStringLiteral("</p>");
        tip += tr("<p>Default %1. Command line: <tt>--set %2=VALUE</tt></p>").arg(field.defaultValue, field.key);
        if (info.choices.empty()) {
            auto* edit = new QLineEdit(field.defaultValue, this);
            edit->setPlaceholderText(field.defaultValue);
            field.editor = edit;
        } else {
            auto* combo = new QComboBox(this);
            for (const std::string& choice : info.choices)
                combo->addItem(QString::fromStdString(choice));
            combo->setCurrentText(field.defaultValue);
            field.editor = combo;
        }
        field.editor->setObjectName(QStringLiteral("option-") + field.key);
        field.editor->setToolTip(tip);
        field.problem = new QLabel(this);
        field.problem->setObjectName(QStringLiteral("problem-") + field.key);
        field.problem->setWordWrap(true);
        field.problem->setStyleSheet(QStringLiteral("color: #d03030;"));
        field.problem->hide();
        auto* label = new QLabel(field.key, this);
        label->setToolTip(tip);
        auto* cell = new QVBoxLayout;
        cell->setContentsMargins(0, 0, 0, 0);
        cell->setSpacing(1);
        cell->addWidget(field.editor);
        cell->addWidget(field.problem);
        form->addRow(label, cell);
        fields_.push_back(field);
    }
    for (size_t i = 0; i < fields_.size(); ++i) {
        QWidget* editor = fields_[i].editor;
        auto changed = [this, i] {
            check(fields_[i]);
            emit optionsChanged();
        };
        if (auto* edit = qobject_cast<QLineEdit*>(editor))
            connect(edit, &QLineEdit::textChanged, this, changed);
        else if (auto* combo = qobject_cast<QComboBox*>(editor))
            connect(combo, &QComboBox::currentTextChanged, this, changed);
    }
    defaults_ = new QPushButton(tr("Defaults"), this);
    defaults_->setObjectName(QStringLiteral("optionDefaults"));
    defaults_->setToolTip(tr("Set every constant back to its default"));
    connect(defaults_, &QPushButton::clicked, this, &LearnerOptionsEditor::resetToDefaults);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(defaults_, 0, Qt::AlignRight);
}

QString LearnerOptionsEditor::text(const Field& field) const
{
    if (auto* edit = qobject_cast<QLineEdit*>(field.editor))
        return edit->text().trimmed().isEmpty() ? field.defaultValue : edit->text().trimmed();
    return static_cast<QComboBox*>(field.editor)->currentText();
}

void LearnerOptionsEditor::check(Field& field)
{
    LearnerOptions scratch;
    const auto problem = setLearnerOption(scratch, field.key.toStdString(), text(field).toStdString());
    const bool wasBad = !field.problem->isHidden();
    field.problem->setText(problem ? QString::fromStdString(*problem) : QString());
    field.problem->setVisible(problem.has_value());
    if (auto* edit = qobject_cast<QLineEdit*>(field.editor))
        edit->setStyleSheet(problem ? QStringLiteral("border: 1px solid #d03030;") : QString());
    const bool wasValid = isValid();
    problems_ += (problem ? 1 : 0) - (wasBad ? 1 : 0);
    if (wasValid != isValid())
        emit validityChanged(isValid());
}

LearnerOptions LearnerOptionsEditor::options() const
{
    LearnerOptions options;
    for (const Field& field : fields_)
        setLearnerOption(options, field.key.toStdString(), text(field).toStdString()); // invalid: left at default
    return options;
}

std::vector<std::pair<std::string, std::string>> LearnerOptionsEditor::changed() const
{
    std::vector<std::pair<std::string, std::string>> out;
    const LearnerOptions opts = options();
    for (const Field& field : fields_) {
        const std::string now = learnerOptionValue(opts, field.key.toStdString()).value_or(std::string());
        if (QString::fromStdString(now) != field.defaultValue)
            out.emplace_back(field.key.toStdString(), now);
    }
    return out;
}

bool LearnerOptionsEditor::setValue(const QString& key, const QString& value)
{
    for (Field& field : fields_) {
        if (field.key != key)
            continue;
        if (auto* edit = qobject_cast<QLineEdit*>(field.editor)) {
            edit->setText(value);
        } else {
            auto* combo = static_cast<QComboBox*>(field.editor);
            const int index = combo->findText(value);
            if (index < 0)
                return false;
            combo->setCurrentIndex(index);
        }
        return true;
    }
    return false;
}

QString LearnerOptionsEditor::value(const QString& key) const
{
    for (const Field& field : fields_)
        if (field.key == key)
            return text(field);
    return {};
}

QString LearnerOptionsEditor::problem(const QString& key) const
{
    for (const Field& field : fields_)
        if (field.key == key)
            return field.problem->text();
    return {};
}

void LearnerOptionsEditor::resetToDefaults()
{
    for (const Field& field : fields_)
        setValue(field.key, field.defaultValue);
}

} // namespace post
