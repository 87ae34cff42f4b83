// The ONNX importer never collapses silently (issue 27, "No silent collapse"), on models the
// test builds as ONNX protos: integer shape arithmetic folds fully (Mod, Where, Less, Expand,
// Tile, ReduceProd, ...), weights made from constants (ConstantOfShape) are parameters, a
// --batch the export's fixed dimensions do not take is said, a constant Reshape that no longer
// fits is refused naming the node, inference exports are noted, and generic graph names give
// way to the file's name.
#include "core/cost/CostModel.h"
#include "core/io/GraphFile.h"
#include "core/io/ImportedGraph.h"
#include "core/io/onnx/OnnxReader.h"
#include "core/util/InputError.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <algorithm>
#include <initializer_list>

using namespace post;

namespace {

using Shape = std::vector<std::int64_t>;

// A model of opset 17 built node by node.
class Model {
public:
    explicit Model(const std::string& name = "built")
    {
        model_.set_ir_version(8);
        model_.set_producer_name("test_onnx_honest");
        auto* opset = model_.add_opset_import();
        opset->set_domain("");
        opset->set_version(17);
        model_.mutable_graph()->set_name(name);
    }

    Model& input(const std::string& name, const std::vector<std::string>& dims, int type = onnx::TensorProto::FLOAT)
    {
        auto* vi = graph().add_input();
        vi->set_name(name);
        auto* tt = vi->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(type);
        auto* shape = tt->mutable_shape();
        for (const std::string& d : dims) {
            auto* dim = shape->add_dim();
            if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
                dim->set_dim_value(std::stoll(d));
            else
                dim->set_dim_param(d);
        }
        return *this;
    }

    Model& output(const std::string& name)
    {
        graph().add_output()->set_name(name);
        return *this;
    }

    // An int64 initializer.
    Model& ints(const std::string& name, const Shape& values, const Shape& dims)
    {
        auto* t = graph().add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::INT64);
        for (std::int64_t d : dims)
            t->add_dims(d);
        for (std::int64_t v : values)
            t->add_int64_data(v);
        return *this;
    }
    Model& ints(const std::string& name, const Shape& values)
    {
        return ints(name, values, {Shape::value_type(values.size())});
    }

    // A float initializer of `dims`, zeros.
    Model& floats(const std::string& name, const Shape& dims)
    {
        auto* t = graph().add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::FLOAT);
        std::int64_t n = 1;
        for (std::int64_t d : dims) {
            t->add_dims(d);
            n *= d;
        }
        t->set_raw_data(std::string(static_cast<std::size_t>(n) * 4, '\0'));
        return *this;
    }

    onnx::NodeProto& node(const std::string& type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = {})
    {
        auto* n = graph().add_node();
        n->set_op_type(type);
        n->set_name(name.empty() ? outputs.front() : name);
        for (const auto& i : inputs)
            n->add_input(i);
        for (const auto& o : outputs)
            n->add_output(o);
        return *n;
    }

    // A Constant node holding a float scalar (a literal scale, as exporters write them).
    Model& constant(const std::string& name, float value)
    {
        auto& n = node("Constant", {}, {name});
        auto* a = n.add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto::TENSOR);
        a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
        a->mutable_t()->add_float_data(value);
        return *this;
    }

    std::string bytes() const { return model_.SerializeAsString(); }
    onnx::GraphProto& graph() { return *model_.mutable_graph(); }
    onnx::ModelProto& proto() { return model_; }

private:
    onnx::ModelProto model_;
};

void intAttr(onnx::NodeProto& node, const std::string& name, std::int64_t value)
{
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
}

void intsAttr(onnx::NodeProto& node, const std::string& name, const Shape& values)
{
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (std::int64_t v : values)
        a->add_ints(v);
}

// ConstantOfShape's `value`: a one-element float tensor.
void floatValue(onnx::NodeProto& node, float value)
{
    auto* a = node.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_float_data(value);
}

const ShapedTensor* findTensor(const ShapedGraph& g, const std::string& name)
{
    for (const ShapedTensor& t : g.tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

bool hasOpOfType(const ShapedGraph& g, const std::string& type)
{
    return std::any_of(g.ops.begin(), g.ops.end(), [&](const ShapedOp& op) { return op.type == type; });
}

template <typename F> QString inputErrorOf(F&& call)
{
    try {
        call();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestOnnxHonest : public QObject {
    Q_OBJECT

private slots:
    // Each integer op of shape arithmetic folds: the shape it computes reaches an Expand of an
    // activation, whose output then has exactly that shape. s = Shape(x) = [2, 3, 4, 5].
    void integerShapeArithmeticFolds()
    {
        Model m;
        m.input("x", {"2", "3", "4", "5"});
        m.node("Shape", {"x"}, {"s"});
        intAttr(m.node("ReduceSum", {"x"}, {"r"}), "keepdims", 0); // a scalar activation the shapes expand
        m.ints("i0", {0}).ints("i1", {1}).ints("i2", {2}).ints("i3", {3}).ints("i4", {4});
        m.ints("c7", {7}).ints("cm3", {-3});
        m.ints("c5", {5}).ints("c3", {3}).ints("c1", {1});
        for (const char* k : {"0", "1", "2", "3"}) {
            m.node("Slice", {"s", std::string("i") + k, std::string("i") + std::to_string(std::stoi(k) + 1)},
                   {std::string("s") + k});
        }
        std::vector<std::pair<std::string, Shape>> expected;
        auto expand = [&](const std::string& target, const Shape& shape) {
            m.node("Expand", {"r", target}, {"out_" + target});
            expected.emplace_back("out_" + target, shape);
        };
        // Swin's window padding: (7 - W % 7) % 7 with W = 5 -> 2.
        m.node("Mod", {"s3", "c7"}, {"wmod"});
        m.node("Sub", {"c7", "wmod"}, {"wsub"});
        m.node("Mod", {"wsub", "c7"}, {"pad"});
        expand("pad", {2});
        // Mod takes the divisor's sign (-3 mod 5 = 2); fmod = 1 the dividend's (|-3| = 3).
        m.node("Mod", {"cm3", "c5"}, {"pymod"});
        expand("pymod", {2});
        intAttr(m.node("Mod", {"cm3", "c5"}, {"cmod"}), "fmod", 1);
        m.node("Abs", {"cmod"}, {"cmod_abs"});
        expand("cmod_abs", {3});
        // Comparisons, logic and Where: s0 = 2 < 3 picks s1 (3); not (s0 == 2) or s0 > 3 picks s2 (4).
        m.node("Less", {"s0", "c3"}, {"lt"});
        m.node("Where", {"lt", "s1", "s2"}, {"w1"});
        expand("w1", {3});
        m.node("Equal", {"s0", "i2"}, {"eq"});
        m.node("Not", {"eq"}, {"ne"});
        m.node("Greater", {"s0", "c3"}, {"gt"});
        m.node("Or", {"ne", "gt"}, {"either"});
        m.node("And", {"either", "eq"}, {"both"});
        m.node("Where", {"both", "s1", "s2"}, {"w2"});
        expand("w2", {4});
        // Min / Max of several, ReduceProd of the shape, Div (truncating), Neg.
        m.node("Max", {"s0", "s1", "c1"}, {"max"});
        m.node("Min", {"s3", "s2", "c7"}, {"min"});
        intAttr(m.node("Concat", {"max", "min"}, {"minmax"}), "axis", 0);
        expand("minmax", {3, 4});
        intAttr(m.node("ReduceProd", {"s"}, {"prod"}), "keepdims", 1);
        m.node("Div", {"prod", "c7"}, {"div"}); // 120 / 7 = 17
        expand("div", {17});
        m.node("Neg", {"cm3"}, {"neg"});
        expand("neg", {3});
        // Range, Expand, Tile of integer tensors.
        m.ints("zero_s", {0}, {}).ints("three_s", {3}, {}).ints("one_s", {1}, {});
        m.node("Range", {"zero_s", "three_s", "one_s"}, {"range"}); // [0, 1, 2]
        m.node("Add", {"range", "i2"}, {"range2"});                 // [2, 3, 4]
        expand("range2", {2, 3, 4});
        m.node("Expand", {"i2", "i2"}, {"twos"}); // [2, 2]
        expand("twos", {2, 2});
        m.node("Tile", {"s1", "i2"}, {"tiled"}); // [3, 3]
        expand("tiled", {3, 3});
        // Two-dimensional data: [[2, 3], [4, 5]].
        m.ints("shape22", {2, 2});
        m.node("Reshape", {"s", "shape22"}, {"grid"});
        intAttr(m.node("Gather", {"grid", "i1"}, {"column"}), "axis", 1); // [[3], [5]]
        m.ints("flat", {-1});
        m.node("Reshape", {"column", "flat"}, {"column_flat"});
        expand("column_flat", {3, 5});
        m.ints("axes0", {0});
        m.node("Slice", {"grid", "i1", "i2", "axes0"}, {"row"}); // [[4, 5]]
        m.node("Reshape", {"row", "flat"}, {"row_flat"});
        expand("row_flat", {4, 5});
        m.node("Transpose", {"grid"}, {"grid_t"}); // [[2, 4], [3, 5]]
        m.node("Reshape", {"grid_t", "flat"}, {"grid_t_flat"});
        expand("grid_t_flat", {2, 4, 3, 5});
        m.node("Expand", {"grid", "i2"}, {"grid_e"}); // a shape shorter than the data's rank: [[2, 3], [4, 5]]
        m.node("Reshape", {"grid_e", "flat"}, {"grid_e_flat"});
        expand("grid_e_flat", {2, 3, 4, 5});
        intAttr(m.node("Concat", {"grid", "grid_t"}, {"wide"}), "axis", 1); // [[2, 3, 2, 4], [4, 5, 3, 5]]
        m.node("Reshape", {"wide", "flat"}, {"wide_flat"});
        expand("wide_flat", {2, 3, 2, 4, 4, 5, 3, 5});
        for (const auto& [name, shape] : expected)
            m.output(name);

        const ShapedGraph g = readOnnxShapedGraph(m.bytes(), "folds.onnx", {});
        for (const auto& [name, shape] : expected) {
            const ShapedTensor* t = findTensor(g, name);
            QVERIFY2(t, name.c_str());
            QVERIFY2(t->shape == shape, qPrintable(QString::fromStdString(name)));
        }
        // Only the ReduceSum and the Expands are left: every shape computation folded away.
        QCOMPARE(g.ops.size(), expected.size() + 1);
        CostReport report;
        (void)buildTrainingGraph(g, {}, &report);
        QVERIFY(report.unshapedTensors.empty());
    }

    // Sizes computed through float scales (an upsampling's floor(H * 1.5), a ceil(W / 2)):
    // Cast to float, Mul, Div, Floor, Ceil, Round and the Cast back fold; a float initializer
    // (a weight) is never read as a value.
    void floatScalesOfSizesFold()
    {
        Model m;
        m.input("x", {"1", "3", "10", "13"});
        intAttr(m.node("ReduceSum", {"x"}, {"r"}), "keepdims", 0);
        m.ints("i2", {2}).ints("i3", {3}).ints("i4", {4});
        m.node("Shape", {"x"}, {"s"});
        m.node("Slice", {"s", "i2", "i3"}, {"h"});
        m.node("Slice", {"s", "i3", "i4"}, {"w"});
        intAttr(m.node("Cast", {"h"}, {"hf"}), "to", onnx::TensorProto::FLOAT);
        intAttr(m.node("Cast", {"w"}, {"wf"}), "to", onnx::TensorProto::FLOAT);
        m.constant("scale", 1.5f).constant("two", 2.0f).constant("half", 0.5f);
        m.node("Mul", {"hf", "scale"}, {"h15"});
        m.node("Floor", {"h15"}, {"h_floor"}); // 15
        m.node("Div", {"wf", "two"}, {"w2"});
        m.node("Ceil", {"w2"}, {"w_ceil"}); // 7
        m.node("Add", {"two", "half"}, {"two_half"});
        m.node("Round", {"two_half"}, {"rounded"});            // 2: half to even
        for (const char* f : {"h_floor", "w_ceil", "rounded"}) // back to integers, as exporters do
            intAttr(m.node("Cast", {f}, {std::string(f) + "_i"}), "to", onnx::TensorProto::INT64);
        m.ints("axes0", {0});
        m.node("Unsqueeze", {"rounded_i", "axes0"}, {"rounded_1"}); // a scalar: made 1-D
        intAttr(m.node("Concat", {"h_floor_i", "w_ceil_i", "rounded_1"}, {"sizes"}), "axis", 0);
        m.node("Expand", {"r", "sizes"}, {"out"});
        m.floats("w_init", {1});
        m.node("Mul", {"hf", "w_init"}, {"weighted"}, "weighted"); // a weight: stays an op
        m.output("out").output("weighted");
        const ShapedGraph g = readOnnxShapedGraph(m.bytes(), "scales.onnx", {});
        QCOMPARE(findTensor(g, "out")->shape, (Shape{15, 7, 2}));
        QVERIFY(std::any_of(g.ops.begin(), g.ops.end(), [](const ShapedOp& op) { return op.name == "weighted"; }));
        QVERIFY(!hasOpOfType(g, "Floor") && !hasOpOfType(g, "Ceil") && !hasOpOfType(g, "Round"));
    }

    // Swin's window padding end to end: the pads of a Pad come from Mod arithmetic on the
    // input's shape, so the padded activation (and everything after it) has its shape.
    void paddingFromModArithmeticHasItsShape()
    {
        Model m;
        m.input("x", {"batch", "56", "61", "96"}); // NHWC, W = 61 is not a multiple of 7
        m.ints("i1", {1}).ints("i2", {2}).ints("i3", {3}).ints("c7", {7}).ints("zeros3", {0, 0, 0});
        m.ints("zero1", {0});
        m.node("Shape", {"x"}, {"s"});
        m.node("Slice", {"s", "i2", "i3"}, {"w"});
        m.node("Mod", {"w", "c7"}, {"wmod"});
        m.node("Sub", {"c7", "wmod"}, {"wsub"});
        m.node("Mod", {"wsub", "c7"}, {"pad_r"}); // (7 - 61 % 7) % 7 = 2
        // Begins of the four axes, then ends: only W's end is padded.
        intAttr(m.node("Concat", {"zeros3", "zero1", "zero1", "zero1", "pad_r", "zero1"}, {"pads"}), "axis", 0);
        m.node("Pad", {"x", "pads"}, {"padded"});
        m.node("Relu", {"padded"}, {"y"});
        m.output("y");
        ImportOptions options;
        options.batch = 2;
        const ImportedGraph imported = importOnnxGraph(m.bytes(), "pad.onnx", options);
        QVERIFY(imported.unshapedTensors.empty());
        QVERIFY(imported.unshapedFrom.empty());
        const ShapedGraph g = readOnnxShapedGraph(m.bytes(), "pad.onnx", options);
        QCOMPARE(findTensor(g, "y")->shape, (Shape{2, 56, 63, 96}));
        QCOMPARE(g.ops.size(), std::size_t(2)); // Pad and Relu
    }

    // What shape inference cannot give (an op of an unknown domain) is named with the node
    // that makes it; the CLI refuses to time the graph (tests/cli).
    void unshapedTensorsNameTheirFirstNode()
    {
        Model m;
        m.input("x", {"1", "8"});
        auto* opset = m.proto().add_opset_import();
        opset->set_domain("com.example");
        opset->set_version(1);
        m.node("Relu", {"x"}, {"a"});
        m.node("Mystery", {"a"}, {"b"}, "mystery").set_domain("com.example");
        m.node("Relu", {"b"}, {"c"});
        m.output("c");
        const ImportedGraph imported = importOnnxGraph(m.bytes(), "mystery.onnx", {});
        QCOMPARE(imported.unshapedTensors.size(), std::size_t(2)); // b and c
        QCOMPARE(imported.unshapedFrom, std::string("node 1 'mystery' (Mystery), tensor 'b'"));
    }

    // Weights a model-zoo file generates with ConstantOfShape (and a Transpose of one) are
    // parameters: their bytes count, and no generator op (nor its gradient) is in the step.
    void weightsFromConstantOfShapeAreParameters()
    {
        auto build = [](bool generated) {
            Model m;
            m.input("x", {"batch", "16"});
            if (generated) {
                m.ints("w_shape", {32, 16}).ints("b_shape", {32});
                floatValue(m.node("ConstantOfShape", {"w_shape"}, {"w_t"}), 0.01f);
                intsAttr(m.node("Transpose", {"w_t"}, {"w"}), "perm", {1, 0});
                m.node("ConstantOfShape", {"b_shape"}, {"b"}); // no value: float zeros
            } else {
                m.floats("w", {16, 32}).floats("b", {32});
            }
            m.node("MatMul", {"x", "w"}, {"y"});
            m.node("Add", {"y", "b"}, {"z"});
            m.node("Relu", {"z"}, {"out"});
            m.output("out");
            return m.bytes();
        };
        CostReport made, stored;
        ImportOptions options;
        options.batch = 4;
        const Graph fromGenerators = parseOnnxGraph(build(true), "generated.onnx", options, &made);
        const Graph fromInitializers = parseOnnxGraph(build(false), "stored.onnx", options, &stored);
        QCOMPARE(made.parameterBytes, 4.0 * (16 * 32 + 32));
        QCOMPARE(made.parameterBytes, stored.parameterBytes);
        // MatMul, Add, Relu and their gradients, plus the step's optimizer updates and input copy.
        QCOMPARE(fromGenerators.opCount(), fromInitializers.opCount());
        const auto computeOps = std::count_if(fromGenerators.ops().begin(), fromGenerators.ops().end(), [](const Op& op) {
            return op.type != "ApplyMomentum" && op.type != "MemcpyHtoD";
        });
        QCOMPARE(computeOps, 6);
        for (const Op& op : fromGenerators.ops())
            QVERIFY2(op.type.find("ConstantOfShape") == std::string::npos
                         && op.type.find("Transpose") == std::string::npos,
                     op.name.c_str());
        QCOMPARE(fromGenerators.totalParamBytes(), fromInitializers.totalParamBytes());
        const ShapedGraph g = readOnnxShapedGraph(build(true), "generated.onnx", options);
        QVERIFY(findTensor(g, "w")->isParameter);
        QCOMPARE(findTensor(g, "w")->shape, (Shape{16, 32}));
        QVERIFY(!hasOpOfType(g, "ConstantOfShape"));
    }

    // An integer table computed from constants that is too large to fold (a Range of 100,000)
    // is a constant an op reads, not an op; a Gather of a float initializer (a trainable bias
    // table) stays an op.
    void constantChainsStopAtTrainableWeights()
    {
        Model m;
        m.input("x", {"1", "100000"});
        m.ints("zero", {0}, {}).ints("big", {100000}, {}).ints("one", {1}, {});
        m.node("Range", {"zero", "big", "one"}, {"index"});
        intAttr(m.node("Gather", {"x", "index"}, {"picked"}), "axis", 1);
        m.ints("few", {0, 2, 4}).floats("table", {10, 8});
        m.node("Gather", {"table", "few"}, {"rows"}); // [3, 8], from a trainable table
        intAttr(m.node("ReduceSum", {"rows"}, {"rsum"}), "keepdims", 0);
        m.node("Add", {"picked", "rsum"}, {"y"});
        m.output("y");
        const ShapedGraph g = readOnnxShapedGraph(m.bytes(), "chains.onnx", {});
        QVERIFY(!hasOpOfType(g, "Range"));
        QCOMPARE(g.ops.size(), std::size_t(4)); // the two Gathers, ReduceSum, Add
        const ShapedTensor* index = findTensor(g, "index");
        QVERIFY(index && index->isConstant && !index->isParameter);
        QCOMPARE(index->shape, (Shape{100000}));
        QVERIFY(findTensor(g, "table")->isParameter);
        QVERIFY(findTensor(g, "rows")->isActivation());
        CostReport report;
        (void)buildTrainingGraph(g, {}, &report);
        QVERIFY(report.unshapedTensors.empty());
    }

    // A classifier's Reshape to the constant [1, 2048] fits the exported batch only: given a
    // batch of 32 through --input-shape, it is refused, naming the node.
    void constantReshapeThatNoLongerFitsIsRefused()
    {
        Model m;
        m.input("features", {"1", "2048", "1", "1"});
        m.ints("target", {1, 2048}).floats("fc_w", {2048, 10});
        m.node("Reshape", {"features", "target"}, {"flat"}, "/Reshape");
        m.node("MatMul", {"flat", "fc_w"}, {"logits"});
        m.output("logits");
        QVERIFY(inputErrorOf([&] { (void)readOnnxShapedGraph(m.bytes(), "fixed.onnx", {}); }).isEmpty());
        ImportOptions options;
        options.inputShapes["features"] = {32, 2048, 1, 1};
        const QString error = inputErrorOf([&] { (void)readOnnxShapedGraph(m.bytes(), "fixed.onnx", options); });
        QVERIFY2(error.contains("node 0 '/Reshape' (Reshape)"), qPrintable(error));
        QVERIFY2(error.contains("[32, 2048, 1, 1] (65536 elements) to the constant shape [1, 2048]"), qPrintable(error));
        QVERIFY2(error.contains("dynamic axes"), qPrintable(error));
    }

    // Issue 31: a Tile or Flatten whose inferred shape overflows int64 (it wrapped to a dimension
    // of 0: 0 B and a 0 ms step, exit 0) is refused naming the node; the same ops in range pass.
    void shapesOverflowingInInferenceAreRefused()
    {
        auto tile = [](const std::string& dim, std::int64_t times) {
            Model m;
            m.input("x", {dim});
            m.ints("reps", {times});
            m.node("Tile", {"x", "reps"}, {"y"}, "/Tile");
            m.node("Relu", {"y"}, {"z"});
            m.output("z");
            return m.bytes();
        };
        const std::int64_t two32 = std::int64_t(1) << 32;
        QString error = inputErrorOf([&] { (void)readOnnxShapedGraph(tile("4294967296", two32), "tile.onnx", {}); });
        QVERIFY2(error.startsWith("tile.onnx: node 0 '/Tile' (Tile)"), qPrintable(error));
        QVERIFY2(error.contains("dimension 0 (4294967296) tiled 4294967296 times is more than 2^63 elements"),
                 qPrintable(error));
        error = inputErrorOf([&] { (void)readOnnxShapedGraph(tile("8", -2), "tile.onnx", {}); });
        QVERIFY2(error.contains("'/Tile' (Tile)") && error.contains("repeats[0] is -2"), qPrintable(error));
        QVERIFY2(
            inputErrorOf([&] { (void)readOnnxShapedGraph(tile("2147483648", two32 / 2), "tile.onnx", {}); }).isEmpty(),
            "2^31 tiled 2^31 times (2^62 elements) fits");

        auto flatten = [](const std::vector<std::string>& dims) {
            Model m;
            m.input("x", dims);
            m.node("Flatten", {"x"}, {"y"}, "/Flatten");
            m.node("Relu", {"y"}, {"z"});
            m.output("z");
            return m.bytes();
        };
        error = inputErrorOf([&] {
            (void)readOnnxShapedGraph(flatten({"2", "4294967296", "4294967296"}), "flatten.onnx", {});
        });
        QVERIFY2(error.startsWith("flatten.onnx: node 0 '/Flatten' (Flatten)"), qPrintable(error));
        QVERIFY2(error.contains("more than 2^63 elements"), qPrintable(error));
        QVERIFY(inputErrorOf([&] {
                    (void)readOnnxShapedGraph(flatten({"2", "65536", "65536"}), "flatten.onnx", {});
                }).isEmpty());
    }

    // --batch on an input whose batch the export fixed: refused when nothing takes it, a
    // warning naming the input when another input does.
    void batchOnAFixedBatchIsSaid()
    {
        Model fixed;
        fixed.input("input", {"1", "3", "8", "8"});
        fixed.node("Relu", {"input"}, {"y"});
        fixed.output("y");
        ImportOptions options;
        options.batch = 32;
        const QString error = inputErrorOf([&] { (void)importOnnxGraph(fixed.bytes(), "fixed.onnx", options); });
        QVERIFY2(error.contains("option batch") && error.contains("batch 32 changes nothing")
                     && error.contains("'input' (1)") && error.contains("--input-shape input=32,3,8,8"),
                 qPrintable(error));
        QVERIFY(importOnnxGraph(fixed.bytes(), "fixed.onnx", {}).warnings.empty()); // batch 1: nothing to say

        Model mixed; // with an initializer, so that 'mask' is not taken for a weight
        mixed.input("tokens", {"batch", "16"});
        mixed.input("mask", {"1", "16"});
        mixed.floats("bias", {16});
        mixed.node("Add", {"tokens", "mask"}, {"masked"});
        mixed.node("Add", {"masked", "bias"}, {"y"});
        mixed.output("y");
        const ImportedGraph imported = importOnnxGraph(mixed.bytes(), "mixed.onnx", options);
        QCOMPARE(imported.warnings.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(imported.warnings[0]).contains("'mask' (1)"), imported.warnings[0].c_str());
    }

    // Generic exporter names give way to the file's name; a real one is kept.
    void genericGraphNamesTakeTheFileName()
    {
        for (const char* generic : {"torch_jit", "main_graph", "torch-jit-export", ""}) {
            Model m(generic);
            m.input("x", {"1", "4"});
            m.node("Relu", {"x"}, {"y"});
            m.output("y");
            QCOMPARE(readOnnxShapedGraph(m.bytes(), "/models/resnet50-v1.onnx", {}).name, std::string("resnet50-v1"));
        }
        Model named("tiny_cnn");
        named.input("x", {"1", "4"});
        named.node("Relu", {"x"}, {"y"});
        named.output("y");
        QCOMPARE(readOnnxShapedGraph(named.bytes(), "/models/other.onnx", {}).name, std::string("tiny_cnn"));
    }

    // Batch norm in inference form (or a PyTorch export without any) is noted; in training
    // form (training_mode = 1, the running statistics as outputs) it is not.
    void inferenceExportsAreNoted()
    {
        auto build = [](bool training) {
            Model m;
            m.input("x", {"1", "4", "8", "8"});
            m.floats("scale", {4}).floats("bias", {4}).floats("mean", {4}).floats("var", {4});
            std::vector<std::string> outputs = {"y"};
            if (training)
                outputs = {"y", "running_mean", "running_var"};
            auto& bn = m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, outputs, "bn");
            if (training)
                intAttr(bn, "training_mode", 1);
            m.output("y");
            return m.bytes();
        };
        const ImportedGraph eval = importOnnxGraph(build(false), "eval.onnx", {});
        QCOMPARE(eval.notes.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(eval.notes[0]).contains("inference export")
                     && QString::fromStdString(eval.notes[0]).contains("training=torch.onnx.TrainingMode.TRAINING"),
                 eval.notes[0].c_str());
        QVERIFY(importOnnxGraph(build(true), "train.onnx", {}).notes.empty());
        // A detection model's training step does not export to ONNX: the note says what does.
        Model detector;
        detector.input("x", {"1", "4", "8", "8"});
        detector.floats("scale", {4}).floats("bias", {4}).floats("mean", {4}).floats("var", {4});
        detector.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}, "bn");
        detector.input("boxes", {"1", "10", "4"});
        detector.input("scores", {"1", "1", "10"});
        detector.node("NonMaxSuppression", {"boxes", "scores"}, {"keep"}, "nms");
        detector.output("y");
        const ImportedGraph detected = importOnnxGraph(detector.bytes(), "detector.onnx", {});
        QCOMPARE(detected.notes.size(), std::size_t(1));
        QVERIFY2(detected.notes[0].find("record it as a PyTorch execution trace") != std::string::npos
                     && detected.notes[0].find("TrainingMode.TRAINING") == std::string::npos,
                 detected.notes[0].c_str());
        // Without batch norm or dropout: noted only for a PyTorch export whose convolutions
        // read weights the export computed (onnx::Conv_N: its eval mode folded batch norms
        // into them); one reading its modules' own weights (ConvNeXt, Swin: layer norms, no
        // batch norm to fold) is a training export, and an MLP has nothing to fold.
        for (const bool folded : {false, true}) {
            Model conv;
            const std::string weight = folded ? "onnx::Conv_7" : "features.0.weight";
            conv.input("x", {"1", "4", "8", "8"});
            conv.floats(weight, {4, 4, 3, 3});
            conv.node("Conv", {"x", weight}, {"y"});
            conv.output("y");
            QVERIFY(importOnnxGraph(conv.bytes(), "conv.onnx", {}).notes.empty());
            conv.proto().set_producer_name("pytorch");
            const ImportedGraph imported = importOnnxGraph(conv.bytes(), "conv.onnx", {});
            QCOMPARE(imported.notes.size(), std::size_t(folded ? 1 : 0));
            if (folded)
                QVERIFY2(QString::fromStdString(imported.notes[0]).contains("eval mode folded batch norms"),
                         imported.notes[0].c_str());
        }
        Model mlp;
        mlp.proto().set_producer_name("pytorch");
        mlp.input("x", {"1", "4"});
        mlp.node("Relu", {"x"}, {"y"});
        mlp.output("y");
        QVERIFY(importOnnxGraph(mlp.bytes(), "mlp.onnx", {}).notes.empty());
        // Dropout in training form (training_mode true) is a training export.
        Model dropout;
        dropout.proto().set_producer_name("pytorch");
        dropout.input("x", {"1", "4", "8", "8"});
        dropout.floats("w", {4, 4, 3, 3});
        auto* ratio = dropout.graph().add_initializer();
        ratio->set_name("ratio");
        ratio->set_data_type(onnx::TensorProto::FLOAT);
        ratio->add_float_data(0.1f);
        auto* train = dropout.graph().add_initializer();
        train->set_name("train");
        train->set_data_type(onnx::TensorProto::BOOL);
        train->add_int32_data(1);
        dropout.node("Conv", {"x", "w"}, {"c"});
        dropout.node("Dropout", {"c", "ratio", "train"}, {"y", "mask"});
        dropout.output("y");
        QVERIFY(importOnnxGraph(dropout.bytes(), "dropout.onnx", {}).notes.empty());
        train->clear_int32_data();
        train->add_int32_data(0);
        QCOMPARE(importOnnxGraph(dropout.bytes(), "dropout.onnx", {}).notes.size(), std::size_t(1));
    }
};

QTEST_APPLESS_MAIN(TestOnnxHonest)
#include "test_onnx_honest.moc"
