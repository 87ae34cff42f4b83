#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

// Running a program (post-cli, python3) from a test and collecting what it printed.
namespace testsupport {

struct ProgramRun {
    int exitCode = -1; // -1: did not finish within the time limit; -2: crashed
    QString out;
    QString err;
};

// `input`, when given, is written to the program's standard input, which is then closed.
ProgramRun runProgram(const QString& program, const QStringList& args, const QByteArray* input = nullptr);
// runProgram(testdata::cliPath(), ...).
ProgramRun runCli(const QStringList& args, const QByteArray* input = nullptr);

} // namespace testsupport
