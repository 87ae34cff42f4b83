#include "core/cluster/Cluster.h"
#include "core/io/native/ClusterFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/util/AtomicFile.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include "tests/support/TestData.h"

#include <QtTest>

#include <cmath>
#include <filesystem>

using namespace post;

namespace {

// Per-direction bandwidth from the data sheets x 0.8 (docs/clusters.md), in bytes per µs.
double effectiveBytesPerUs(double dataSheetGBps) { return dataSheetGBps * 0.8 * 1e3; }

// Speeds are peak FP32 throughput relative to the V100's 15.7 TFLOP/s (GPUs) or to a
// tenth of it (CPUs), rounded to 3 decimals in the preset files.
double gpuSpeed(double tflops) { return tflops / 15.7; }
double cpuSpeed(double tflops) { return tflops / 1.57; }

bool near(double a, double b, double tolerance) { return std::fabs(a - b) <= tolerance; }

} // namespace

class TestClusterFile : public QObject {
    Q_OBJECT

private:
    static void expectSameCluster(const Cluster& a, const Cluster& b)
    {
        QCOMPARE(a.name(), b.name());
        QCOMPARE(a.deviceCount(), b.deviceCount());
        for (DeviceId d = 0; d < a.deviceCount(); ++d) {
            QCOMPARE(a.device(d).name, b.device(d).name);
            QVERIFY(a.device(d).kind == b.device(d).kind);
            QCOMPARE(a.device(d).type, b.device(d).type);
            QVERIFY(a.device(d).speed == b.device(d).speed);
            QVERIFY(a.device(d).memoryBytes == b.device(d).memoryBytes);
        }
        for (DeviceId x = 0; x < a.deviceCount(); ++x)
            for (DeviceId y = 0; y < a.deviceCount(); ++y) {
                QCOMPARE(a.link(x, y).bytesPerUs, b.link(x, y).bytesPerUs);
                QCOMPARE(a.link(x, y).latencyUs, b.link(x, y).latencyUs);
            }
        QCOMPARE(a.hostDispatchUsPerOp(), b.hostDispatchUsPerOp());
    }

private slots:
    void parsesEveryField()
    {
        const Cluster c = parseCluster(R"({"format": "post-cluster/1", "name": "toy",
            "devices": [{"name": "/device:CPU:0", "kind": "cpu", "speed": 0.5, "memory_bytes": 64e9},
                        {"name": "/device:GPU:0", "kind": "gpu", "speed": 1.0, "memory_bytes": 12e9},
                        {"name": "/device:GPU:1", "kind": "gpu"}],
            "links": [{"from": "/device:GPU:0", "to": "/device:GPU:1", "bandwidth_GBps": 10, "latency_us": 10},
                      {"from": "/device:CPU:0", "to": "/device:GPU:1", "bandwidth_GBps": 2, "bidirectional": true}],
            "default_link": {"bandwidth_GBps": 12, "latency_us": 20}})",
                                       "toy.json");
        QCOMPARE(c.name(), std::string("toy"));
        QCOMPARE(c.deviceCount(), 3);
        QVERIFY(c.device(0).kind == DeviceKind::Cpu);
        QCOMPARE(c.device(0).speed, 0.5);
        QCOMPARE(c.device(0).memoryBytes, 64e9);
        QCOMPARE(c.device(1).memoryBytes, 12e9);
        QCOMPARE(c.device(2).speed, 1.0);             // default
        QVERIFY(std::isinf(c.device(2).memoryBytes)); // default: unlimited
        QCOMPARE(c.link(1, 2).bytesPerUs, 10e3);      // 10 GB/s = 10^10 B/s = 10^4 B/us
        QCOMPARE(c.link(1, 2).latencyUs, 10.0);
        QCOMPARE(c.link(2, 1).bytesPerUs, 12e3); // one-way: the reverse keeps the default
        QCOMPARE(c.link(2, 1).latencyUs, 20.0);
        QCOMPARE(c.link(0, 2).bytesPerUs, 2e3); // bidirectional: both ways
        QCOMPARE(c.link(2, 0).bytesPerUs, 2e3);
        QCOMPARE(c.link(2, 0).latencyUs, 20.0); // missing latency: the default link's
        QCOMPARE(c.link(0, 1).bytesPerUs, 12e3);
        // 1 MB over 10 GB/s with 10 us latency: 10 + 1e6 / 1e4 = 110 us.
        QCOMPARE(c.link(1, 2).transferUs(1e6), 110.0);
    }

    void defaultLinkDefaults()
    {
        const Cluster c = parseCluster(R"({"format": "post-cluster/1",
            "devices": [{"name": "a", "kind": "gpu"}, {"name": "b", "kind": "gpu"}]})",
                                       "dir/two.json");
        QCOMPARE(c.name(), std::string("two"));
        const Link defaults;
        QCOMPARE(c.link(0, 1).bytesPerUs, defaults.bytesPerUs);
        QCOMPARE(c.link(0, 1).latencyUs, defaults.latencyUs);
    }

    void writerRoundTrips()
    {
        std::vector<Device> devices = {{"/device:CPU:0", DeviceKind::Cpu, 0.844, 137438953472.0},
                                       {"/device:GPU:0", DeviceKind::Gpu, 0.1 + 0.2, 12e9},
                                       {"/device:GPU:1", DeviceKind::Gpu, 1.0, std::numeric_limits<double>::infinity()}};
        devices[1].type = "t4"; // device types round-trip; a device without one writes none
        Cluster c("round \"trip\"", devices, Link{12600.0, 10.0});
        c.setLink(1, 2, Link{40000.0, 5.0});
        c.setLink(2, 1, Link{40000.0, 5.0});
        c.setLink(0, 2, Link{1234.5, 0.0}); // one-way
        QVERIFY(!c.hostDispatchUsPerOp());
        QVERIFY(!QString::fromStdString(clusterJson(c)).contains("host_dispatch")); // not given: not written
        c.setHostDispatchUsPerOp(31.5); // the machine's host, as bench/host_dispatch.py measured it
        const std::string text = clusterJson(c);
        const Cluster back = parseCluster(text, "x.json");
        expectSameCluster(c, back);
        QCOMPARE(clusterJson(back), text);
        const QString q = QString::fromStdString(text);
        QVERIFY2(q.contains(R"("bidirectional": true)"), text.c_str());
        QCOMPARE(q.count("\"from\""), 2); // the symmetric pair once, the one-way link once
        QCOMPARE(q.count("\"type\""), 1);
    }

    // A device's "type" (docs/clusters.md, "Device types"): kept as given; a kind name, an
    // "x-" key, upper case or other characters are refused naming the field.
    void deviceTypes()
    {
        const Cluster c = parseCluster(R"({"format": "post-cluster/1", "devices": [
            {"name": "a", "kind": "gpu", "type": "v100"}, {"name": "b", "kind": "cpu", "type": "xeon-8380"},
            {"name": "c", "kind": "gpu"}]})",
                                       "typed.json");
        QCOMPARE(c.device(0).type, std::string("v100"));
        QCOMPARE(c.device(1).type, std::string("xeon-8380"));
        QCOMPARE(c.device(2).type, std::string());
        for (const char* bad : {"gpu", "cpu", "V100", "x-t4", "t4 pcie", "", "-t4"}) {
            const std::string text = std::string("{\"format\": \"post-cluster/1\", \"devices\": [{\"name\": \"a\", "
                                                 "\"kind\": \"gpu\", \"type\": \"")
                + bad + "\"}]}";
            try {
                (void)parseCluster(text, "bad.json");
                QFAIL(qPrintable(QString("type \"%1\" was accepted").arg(bad)));
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains("devices[0].type"), e.what());
            }
        }
        // Every preset names the type of each device; the mixed one has three.
        for (const std::string& name : clusterPresetNames()) {
            const Cluster preset = loadCluster(name);
            for (const Device& d : preset.devices())
                QVERIFY2(!d.type.empty(), (name + " " + d.name).c_str());
        }
        const Cluster mixed = loadCluster("mixed-v100-t4-cpu");
        std::vector<std::string> types;
        for (const Device& d : mixed.devices())
            types.push_back(d.type);
        QCOMPARE(types, (std::vector<std::string>{"xeon-8380", "v100", "v100", "t4", "t4"}));
        QCOMPARE(loadCluster("v100x4-nvlink").device(1).type, std::string("v100"));
    }

    // The mixed preset's data-sheet figures (docs/clusters.md): T4 8.1 TFLOP/s FP32, 65 FP16
    // tensor, 130 INT8, 320 GB/s; V100 SXM2 15.7 / 125 / 900 GB/s; Xeon Platinum 8380 40 cores x
    // 2.3 GHz x 32 FLOP, 8 channels of DDR4-3200; the V100 pair on NVLink 2, the rest on PCIe 3.0.
    void mixedPresetMatchesItsDocumentedFigures()
    {
        const Cluster c = loadCluster("mixed-v100-t4-cpu");
        QCOMPARE(c.deviceCount(), 5);
        QVERIFY(c.device(0).kind == DeviceKind::Cpu);
        QCOMPARE(c.device(0).peakFlops, 2.944e12);
        QVERIFY(near(c.device(0).speed, cpuSpeed(40 * 2.3 * 32 / 1e3), 5e-4));
        QCOMPARE(c.device(0).memoryBandwidth, 204.8e9);
        for (DeviceId g : {1, 2}) {
            QCOMPARE(c.device(g).peakFlops, 15.7e12);
            QCOMPARE(c.device(g).peakFp16Flops, 125e12);
            QCOMPARE(c.device(g).memoryBandwidth, 900e9);
            QCOMPARE(c.device(g).speed, 1.0);
        }
        for (DeviceId g : {3, 4}) {
            QCOMPARE(c.device(g).peakFlops, 8.1e12);
            QCOMPARE(c.device(g).peakFp16Flops, 65e12);
            QCOMPARE(c.device(g).peakInt8Ops, 130e12);
            QCOMPARE(c.device(g).memoryBandwidth, 320e9);
            QVERIFY(near(c.device(g).speed, gpuSpeed(8.1), 5e-4));
            QCOMPARE(c.device(g).memoryBytes, 16.0 * (1 << 30));
        }
        QVERIFY(near(c.link(1, 2).bytesPerUs, effectiveBytesPerUs(50), 0.051e3));
        QVERIFY(near(c.link(2, 1).bytesPerUs, effectiveBytesPerUs(50), 0.051e3));
        for (DeviceId a = 0; a < 5; ++a)
            for (DeviceId b = 0; b < 5; ++b)
                if (a != b && !((a == 1 && b == 2) || (a == 2 && b == 1)))
                    QVERIFY(near(c.link(a, b).bytesPerUs, effectiveBytesPerUs(15.75), 0.051e3));
    }

    void presetsMatchTheirDocumentedFigures_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("gpuSpeed");
        QTest::addColumn<double>("gpuMemoryGiB");
        QTest::addColumn<double>("cpuSpeed");
        QTest::addColumn<double>("gpuGpuBytesPerUs");
        QTest::addColumn<double>("hostBytesPerUs");
        // K80: 8.73 TFLOP/s per board = two GK210 chips; E5-2699 v3: 18 cores x 2.3 GHz x 32 FLOP.
        QTest::newRow("k80x4") << "k80x4" << 4 << gpuSpeed(8.73 / 2) << 12.0 << cpuSpeed(18 * 2.3 * 32 / 1e3)
                               << effectiveBytesPerUs(15.75) << effectiveBytesPerUs(15.75);
        QTest::newRow("k80x2") << "k80x2" << 2 << gpuSpeed(8.73 / 2) << 12.0 << cpuSpeed(18 * 2.3 * 32 / 1e3)
                               << effectiveBytesPerUs(15.75) << effectiveBytesPerUs(15.75);
        // NVLink 2 between a fully connected V100 pair: 2 of 6 links, 25 GB/s each way each.
        QTest::newRow("v100x4-nvlink") << "v100x4-nvlink" << 4 << 1.0 << 16.0 << cpuSpeed(20 * 2.2 * 32 / 1e3)
                                       << effectiveBytesPerUs(50) << effectiveBytesPerUs(15.75);
        // NVSwitch: a pair gets all of a GPU's 600 (A100) / 900 (H100) GB/s, half each way.
        QTest::newRow("a100x8-nvlink") << "a100x8-nvlink" << 8 << gpuSpeed(19.5) << 40.0
                                       << cpuSpeed(2 * 64 * 2.25 * 32 / 1e3) << effectiveBytesPerUs(300)
                                       << effectiveBytesPerUs(31.5);
        QTest::newRow("h100x8-nvlink") << "h100x8-nvlink" << 8 << gpuSpeed(67) << 80.0
                                       << cpuSpeed(2 * 56 * 2.0 * 64 / 1e3) << effectiveBytesPerUs(450)
                                       << effectiveBytesPerUs(63);
    }

    void presetsMatchTheirDocumentedFigures()
    {
        QFETCH(QString, name);
        QFETCH(int, gpus);
        QFETCH(double, gpuSpeed);
        QFETCH(double, gpuMemoryGiB);
        QFETCH(double, cpuSpeed);
        QFETCH(double, gpuGpuBytesPerUs);
        QFETCH(double, hostBytesPerUs);
        const Cluster c = loadCluster(name.toStdString());
        QCOMPARE(QString::fromStdString(c.name()), name);
        QCOMPARE(c.deviceCount(), gpus + 1);
        QCOMPARE(c.device(0).name, std::string("/device:CPU:0"));
        QVERIFY(c.device(0).kind == DeviceKind::Cpu);
        QVERIFY2(near(c.device(0).speed, cpuSpeed, 5e-4), qPrintable(QString::number(c.device(0).speed)));
        QVERIFY(std::isfinite(c.device(0).memoryBytes));
        for (DeviceId g = 1; g <= gpus; ++g) {
            QCOMPARE(c.device(g).name, "/device:GPU:" + std::to_string(g - 1));
            QVERIFY(c.device(g).kind == DeviceKind::Gpu);
            QVERIFY2(near(c.device(g).speed, gpuSpeed, 5e-4), qPrintable(QString::number(c.device(g).speed)));
            QCOMPARE(c.device(g).memoryBytes, gpuMemoryGiB * (1 << 30));
            QVERIFY(near(c.link(0, g).bytesPerUs, hostBytesPerUs, 0.051e3));
            QVERIFY(near(c.link(g, 0).bytesPerUs, hostBytesPerUs, 0.051e3));
            for (DeviceId h = 1; h <= gpus; ++h)
                if (h != g)
                    QVERIFY2(near(c.link(g, h).bytesPerUs, gpuGpuBytesPerUs, 0.051e3),
                             qPrintable(QString::number(c.link(g, h).bytesPerUs)));
        }
    }

    void embeddedPresetsMatchResourceFiles()
    {
        namespace fs = std::filesystem;
        const fs::path dir = fs::path(testdata::sourceDir().toStdString()) / "resources" / "clusters";
        std::vector<std::string> onDisk;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().extension() == ".json")
                onDisk.push_back(entry.path().stem().string());
        std::sort(onDisk.begin(), onDisk.end());
        QCOMPARE(clusterPresetNames(), onDisk);
        QCOMPARE(onDisk,
                 (std::vector<std::string>{"a100x8-nvlink", "h100x8-nvlink", "k80x2", "k80x4", "mixed-v100-t4-cpu",
                                           "v100x4-nvlink"}));
        for (const std::string& name : onDisk)
            QCOMPARE(*clusterPresetJson(name), readFileText((dir / (name + ".json")).string()));
        QVERIFY(!clusterPresetJson("nope"));
    }

    void loadClusterReadsFilesAndListsPresets()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("mine.json").toStdString();
        writeFileAtomically(path,
                            R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", "speed": 2}]})");
        const Cluster c = loadCluster(path);
        QCOMPARE(c.name(), std::string("mine"));
        QCOMPARE(c.device(0).speed, 2.0);
        try {
            (void)loadCluster("k80x3");
            QFAIL("an unknown preset was accepted");
        } catch (const InputError& e) {
            const QString message = e.what();
            QVERIFY2(message.startsWith("k80x3: ") && message.contains("k80x4") && message.contains("h100x8-nvlink"),
                     qPrintable(message));
        }
    }

    void malformedInputs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("fragments");
        const QString head = R"({"format": "post-cluster/1", "devices": [{"name": "a", "kind": "gpu"}, )";
        auto row = [&](const char* name, const QString& text, const QStringList& fragments) {
            QTest::newRow(name) << text << fragments;
        };
        row("truncated", "{\"format\": \"post-cluster/1\",\n\"devices\": [", {"line 2, column 13"});
        row("no devices", R"({"format": "post-cluster/1", "devices": []})", {"field devices", "at least one device"});
        row("devices missing", R"({"format": "post-cluster/1"})", {"field devices", "missing"});
        row("duplicate device", head + R"({"name": "a", "kind": "cpu"}]})",
            {"field devices[1].name", "duplicate device \"a\""});
        row("zero speed", head + R"({"name": "b", "kind": "gpu", "speed": 0}]})", {"field devices[1].speed", "> 0"});
        row("negative speed", head + R"({"name": "b", "kind": "gpu", "speed": -2}]})", {"field devices[1].speed", "> 0"});
        row("speed string", head + R"({"name": "b", "kind": "gpu", "speed": "NaN"}]})",
            {"field devices[1].speed", "must be a number"});
        row("zero memory", head + R"({"name": "b", "kind": "gpu", "memory_bytes": 0}]})",
            {"field devices[1].memory_bytes", "> 0"});
        row("unknown kind", head + R"({"name": "b", "kind": "tpu"}]})", {"field devices[1].kind", "unknown device kind"});
        row("missing kind", head + R"({"name": "b"}]})", {"field devices[1].kind", "missing"});
        row("zero bandwidth", head + R"({"name": "b", "kind": "gpu"}],
                "links": [{"from": "a", "to": "b", "bandwidth_GBps": 0}]})",
            {"field links[0].bandwidth_GBps", "> 0"});
        row("negative latency", head + R"({"name": "b", "kind": "gpu"}],
                "links": [{"from": "a", "to": "b", "latency_us": -1}]})",
            {"field links[0].latency_us", ">= 0"});
        row("overflowing latency", head + R"({"name": "b", "kind": "gpu"}], "default_link": {"latency_us": -1e400}})",
            {"line 1, column 134", "too large"});
        row("bad default link", head + R"({"name": "b", "kind": "gpu"}], "default_link": {"bandwidth_GBps": "fast"}})",
            {"field default_link.bandwidth_GBps", "must be a number"});
        row("link to unknown device", head + R"({"name": "b", "kind": "gpu"}], "links": [{"from": "a", "to": "c"}]})",
            {"field links[0].to", "unknown device \"c\""});
        row("self link", head + R"({"name": "b", "kind": "gpu"}], "links": [{"from": "b", "to": "b"}]})",
            {"field links[0]", "two different devices"});
        row("duplicate link", head + R"({"name": "b", "kind": "gpu"}],
                "links": [{"from": "b", "to": "a"}, {"from": "a", "to": "b", "bidirectional": true}]})",
            {"field links[1]", "b -> a", "already given by links[0]"});
        row("bidirectional not bool", head + R"({"name": "b", "kind": "gpu"}],
                "links": [{"from": "a", "to": "b", "bidirectional": "yes"}]})",
            {"field links[0].bidirectional", "true or false"});
        row("wrong format", R"({"format": "post-graph/1", "devices": []})", {"field format", "post-cluster/1"});
        row("newer version", R"({"format": "post-cluster/7", "devices": []})", {"field format", "unsupported version"});
        row("unknown field", head + R"({"name": "b", "kind": "gpu", "mem": 3}]})",
            {"field devices[1].mem", "unknown field"});
        row("zero host dispatch", head + R"({"name": "b", "kind": "gpu"}], "host_dispatch_us_per_op": 0})",
            {"field host_dispatch_us_per_op", "between 0.1 and 1e+06, got 0"});
        row("host dispatch string", head + R"({"name": "b", "kind": "gpu"}], "host_dispatch_us_per_op": "47"})",
            {"field host_dispatch_us_per_op", "must be a number"});
    }

    void malformedInputs()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, fragments);
        const QByteArray utf8 = text.toUtf8();
        try {
            (void)parseCluster(std::string_view(utf8.constData(), size_t(utf8.size())), "bad-cluster.json");
            QFAIL("malformed input was accepted");
        } catch (const InputError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith("bad-cluster.json: "), qPrintable(message));
            for (const QString& fragment : fragments)
                QVERIFY2(message.contains(fragment), qPrintable(message + "\n  lacks: " + fragment));
        }
    }
};

QTEST_APPLESS_MAIN(TestClusterFile)
#include "test_cluster_file.moc"
