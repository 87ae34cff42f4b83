#include "tests/support/RunProgram.h"

#include "tests/support/TestData.h"

#include <QProcess>

namespace testsupport {

ProgramRun runProgram(const QString& program, const QStringList& args, const QByteArray* input)
{
    QProcess p;
    p.start(program, args);
    if (input) {
        p.write(*input);
        p.closeWriteChannel();
    }
    if (!p.waitForFinished(120000)) {
        p.kill();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

ProgramRun runCli(const QStringList& args, const QByteArray* input)
{
    return runProgram(testdata::cliPath(), args, input);
}

} // namespace testsupport
