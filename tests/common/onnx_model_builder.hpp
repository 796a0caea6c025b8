// Small ONNX models built in C++ with the onnx protobuf API, for tests of the importer and of
// mlvm-onnx: graph inputs/outputs with shapes, initializers, nodes with attributes.
//
//   OnnxModelBuilder m(13);
//   m.input("x", onnx::TensorProto::FLOAT, {2, 3});
//   m.initializer("w", {2, 3}, std::vector<float>{...});
//   m.node("Add", {"x", "w"}, {"y"});
//   m.output("y", onnx::TensorProto::FLOAT, {2, 3});
//   std::string bytes = m.bytes();
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mlvm::testing {

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int opset, const std::string& domain = "") {
    model_.set_ir_version(8);
    auto* o = model_.add_opset_import();
    o->set_domain(domain);
    o->set_version(opset);
    model_.mutable_graph()->set_name("test_graph");
  }

  // dims: a negative entry is a symbolic (dynamic) dim named "N<k>".
  void input(const std::string& name, int32_t elem, const std::vector<int64_t>& dims) {
    value_info(model_.mutable_graph()->add_input(), name, elem, dims);
  }
  void output(const std::string& name, int32_t elem, const std::vector<int64_t>& dims) {
    value_info(model_.mutable_graph()->add_output(), name, elem, dims);
  }
  void initializer(const std::string& name, const std::vector<int64_t>& dims,
                   const std::vector<float>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
  }
  void initializer_i64(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "",
                        const std::string& domain = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    if (!domain.empty()) n->set_domain(domain);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  static void attr_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void attr_float(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr_floats(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float x : v) a->add_floats(x);
  }
  static void attr_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  static void attr_graph(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g;
  }
  // A value_info for subgraph inputs/outputs (dims as for input()).
  static void value_info(onnx::ValueInfoProto* v, const std::string& name, int32_t elem,
                         const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (std::size_t k = 0; k < dims.size(); ++k) {
      auto* d = shape->add_dim();
      if (dims[k] >= 0) d->set_dim_value(dims[k]);
      else d->set_dim_param("N" + std::to_string(k));
    }
  }

  onnx::ModelProto& proto() { return model_; }
  std::string bytes() const { return model_.SerializeAsString(); }

 private:
  onnx::ModelProto model_;
};

}  // namespace mlvm::testing
