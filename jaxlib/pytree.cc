// Pytrees: the registry, flattening, unflattening and structure checks.
#include "jaxlib/pytree.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <utility>

namespace nb = nanobind;

namespace jax {

namespace {

nb::object Checked(PyObject* p) {
  if (p == nullptr) throw nb::python_error();
  return nb::steal(p);
}

[[noreturn]] void Raise(PyObject* type, nb::handle message) {
  PyErr_SetObject(type, message.ptr());
  throw nb::python_error();
}

nb::object NoneIfNull(const nb::object& o) { return o ? o : nb::none(); }

// What `a == b` says, with `a is b` when the comparison fails or is not a bool
// (aux data holding arrays, for example).
bool DataEqual(nb::handle a, nb::handle b) {
  if (a.ptr() == b.ptr()) return true;
  if (!a.ptr() || !b.ptr()) return false;
  int r = PyObject_RichCompareBool(a.ptr(), b.ptr(), Py_EQ);
  if (r < 0) {
    PyErr_Clear();
    return false;
  }
  return r == 1;
}

nb::object TypeName(nb::handle type) { return nb::getattr(type, "__name__"); }

class RecursionGuard {
 public:
  RecursionGuard() {
    if (Py_EnterRecursiveCall(" while walking a pytree")) throw nb::python_error();
  }
  ~RecursionGuard() { Py_LeaveRecursiveCall(); }
};

// A node taken apart: its children, its node data and, when asked, one key each.
struct Expanded {
  std::vector<nb::object> children;
  nb::object data;
  std::vector<nb::object> keys;
};

void CopyItems(nb::handle seq, std::vector<nb::object>& out) {
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  out.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i) out.push_back(nb::borrow(items[i]));
}

// `result` of a user flatten function, which must be a pair (children, aux_data).
std::pair<nb::object, nb::object> SplitPair(nb::handle result, const PyTreeRegistration& reg,
                                            const char* function) {
  if ((PyTuple_Check(result.ptr()) || PyList_Check(result.ptr())) &&
      PySequence_Fast_GET_SIZE(result.ptr()) == 2) {
    PyObject** items = PySequence_Fast_ITEMS(result.ptr());
    return {nb::borrow(items[0]), nb::borrow(items[1])};
  }
  Raise(PyExc_TypeError,
        Checked(PyUnicode_FromFormat("the %s function of pytree node type %R must return a pair "
                                     "(children, aux_data), got %R",
                                     function, reg.type.ptr(), result.ptr())));
}

void IterateInto(nb::handle iterable, std::vector<nb::object>& out, const PyTreeRegistration& reg) {
  PyObject* it = PyObject_GetIter(iterable.ptr());
  if (it == nullptr) {
    PyErr_Clear();
    Raise(PyExc_TypeError,
          Checked(PyUnicode_FromFormat("the flatten function of pytree node type %R returned "
                                       "children that are not iterable: %R",
                                       reg.type.ptr(), iterable.ptr())));
  }
  nb::object iter = nb::steal(it);
  while (PyObject* item = PyIter_Next(it)) out.push_back(nb::steal(item));
  if (PyErr_Occurred()) throw nb::python_error();
}

void DictValues(nb::handle dict, nb::handle keys, std::vector<nb::object>& out) {
  Py_ssize_t n = PyList_GET_SIZE(keys.ptr());
  out.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = PyDict_GetItemWithError(dict.ptr(), PyList_GET_ITEM(keys.ptr(), i));
    if (v == nullptr) {
      if (!PyErr_Occurred()) {
        Raise(PyExc_RuntimeError, nb::str("a dict changed size while it was being flattened"));
      }
      throw nb::python_error();
    }
    out.push_back(nb::borrow(v));
  }
}

nb::object SortedKeys(nb::handle dict) {
  nb::object keys = Checked(PyDict_Keys(dict.ptr()));
  if (PyList_Sort(keys.ptr()) < 0) throw nb::python_error();
  return keys;
}

void Expand(const PyTreeRegistry& registry, nb::handle x, PyTreeKind kind,
            const PyTreeRegistration* reg, bool want_keys, Expanded& e) {
  switch (kind) {
    case PyTreeKind::kLeaf:
    case PyTreeKind::kNone:
      return;
    case PyTreeKind::kTuple:
    case PyTreeKind::kList:
    case PyTreeKind::kNamedTuple:
      CopyItems(x, e.children);
      if (kind == PyTreeKind::kNamedTuple) e.data = nb::borrow(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())));
      if (want_keys) {
        if (kind == PyTreeKind::kNamedTuple) {
          nb::object fields = nb::getattr(e.data, "_fields");
          for (size_t i = 0; i < e.children.size(); ++i) {
            e.keys.push_back(registry.getattr_key(fields[nb::int_(i)]));
          }
        } else {
          for (size_t i = 0; i < e.children.size(); ++i) {
            e.keys.push_back(registry.sequence_key(nb::int_(i)));
          }
        }
      }
      return;
    case PyTreeKind::kDict:
    case PyTreeKind::kDefaultDict:
    case PyTreeKind::kOrderedDict: {
      nb::object keys = kind == PyTreeKind::kOrderedDict ? Checked(PySequence_List(x.ptr()))
                                                         : SortedKeys(x);
      if (kind == PyTreeKind::kOrderedDict) {
        Py_ssize_t n = PyList_GET_SIZE(keys.ptr());
        for (Py_ssize_t i = 0; i < n; ++i) {
          e.children.push_back(Checked(PyObject_GetItem(x.ptr(), PyList_GET_ITEM(keys.ptr(), i))));
        }
      } else {
        DictValues(x, keys, e.children);
      }
      nb::object key_tuple = Checked(PyList_AsTuple(keys.ptr()));
      e.data = kind == PyTreeKind::kDefaultDict
                   ? nb::make_tuple(nb::getattr(x, "default_factory"), key_tuple)
                   : key_tuple;
      if (want_keys) {
        Py_ssize_t n = PyList_GET_SIZE(keys.ptr());
        for (Py_ssize_t i = 0; i < n; ++i) {
          e.keys.push_back(registry.dict_key(nb::handle(PyList_GET_ITEM(keys.ptr(), i))));
        }
      }
      return;
    }
    case PyTreeKind::kCustom: {
      if (want_keys && reg->to_keyed.is_valid() && !reg->to_keyed.is_none()) {
        nb::object result = reg->to_keyed(x);
        auto [pairs, aux] = SplitPair(result, *reg, "flatten_with_keys");
        std::vector<nb::object> items;
        IterateInto(pairs, items, *reg);
        for (nb::object& item : items) {
          if (!(PyTuple_Check(item.ptr()) || PyList_Check(item.ptr())) ||
              PySequence_Fast_GET_SIZE(item.ptr()) != 2) {
            Raise(PyExc_TypeError,
                  Checked(PyUnicode_FromFormat("the flatten_with_keys function of pytree node type "
                                               "%R must give (key, child) pairs, got %R",
                                               reg->type.ptr(), item.ptr())));
          }
          PyObject** kv = PySequence_Fast_ITEMS(item.ptr());
          e.keys.push_back(nb::borrow(kv[0]));
          e.children.push_back(nb::borrow(kv[1]));
        }
        e.data = aux;
        return;
      }
      nb::object result = reg->to_iterable(x);
      auto [children, aux] = SplitPair(result, *reg, "flatten");
      IterateInto(children, e.children, *reg);
      e.data = aux;
      if (want_keys) {
        for (size_t i = 0; i < e.children.size(); ++i) {
          e.keys.push_back(registry.flattened_index_key(nb::int_(i)));
        }
      }
      return;
    }
    case PyTreeKind::kDataclass: {
      for (const nb::str& f : reg->data_fields) {
        e.children.push_back(nb::getattr(x, f));
        if (want_keys) e.keys.push_back(registry.getattr_key(f));
      }
      nb::object meta = Checked(PyTuple_New(reg->meta_fields.size()));
      for (size_t i = 0; i < reg->meta_fields.size(); ++i) {
        PyTuple_SET_ITEM(meta.ptr(), i, nb::getattr(x, reg->meta_fields[i]).release().ptr());
      }
      e.data = meta;
      return;
    }
    case PyTreeKind::kStatic:
      e.data = nb::borrow(x);
      return;
  }
}

}  // namespace

// ----------------------------------------------------------------------------- registry

PyTreeRegistry::PyTreeRegistry(nb::object sequence_key_, nb::object dict_key_,
                               nb::object getattr_key_, nb::object flattened_index_key_)
    : sequence_key(std::move(sequence_key_)),
      dict_key(std::move(dict_key_)),
      getattr_key(std::move(getattr_key_)),
      flattened_index_key(std::move(flattened_index_key_)) {
  nb::module_ collections = nb::module_::import_("collections");
  auto builtin = [this](PyTreeKind kind, nb::handle type) {
    auto r = std::make_unique<PyTreeRegistration>();
    r->kind = kind;
    r->type = nb::borrow(type);
    Add(std::move(r));
  };
  builtin(PyTreeKind::kNone, reinterpret_cast<PyObject*>(Py_TYPE(Py_None)));
  builtin(PyTreeKind::kTuple, reinterpret_cast<PyObject*>(&PyTuple_Type));
  builtin(PyTreeKind::kList, reinterpret_cast<PyObject*>(&PyList_Type));
  builtin(PyTreeKind::kDict, reinterpret_cast<PyObject*>(&PyDict_Type));
  builtin(PyTreeKind::kOrderedDict, collections.attr("OrderedDict"));
  builtin(PyTreeKind::kDefaultDict, collections.attr("defaultdict"));
}

void PyTreeRegistry::Add(std::unique_ptr<PyTreeRegistration> r) {
  if (!PyType_Check(r->type.ptr())) {
    Raise(PyExc_TypeError,
          Checked(PyUnicode_FromFormat("pytree node types must be classes, got %R", r->type.ptr())));
  }
  PyObject* key = r->type.ptr();
  if (registrations_.count(key)) {
    Raise(PyExc_ValueError,
          Checked(PyUnicode_FromFormat("Duplicate custom PyTreeDef type registration for %S.", key)));
  }
  registrations_.emplace(key, std::move(r));
}

void PyTreeRegistry::RegisterNode(nb::object type, nb::object to_iterable,
                                  nb::object from_iterable, nb::object to_keyed) {
  if (!PyCallable_Check(to_iterable.ptr()) || !PyCallable_Check(from_iterable.ptr()) ||
      (!to_keyed.is_none() && !PyCallable_Check(to_keyed.ptr()))) {
    Raise(PyExc_TypeError,
          Checked(PyUnicode_FromFormat("register_node: the flatten and unflatten functions of %R "
                                       "must be callable",
                                       type.ptr())));
  }
  auto r = std::make_unique<PyTreeRegistration>();
  r->kind = PyTreeKind::kCustom;
  r->type = std::move(type);
  r->to_iterable = std::move(to_iterable);
  r->from_iterable = std::move(from_iterable);
  r->to_keyed = std::move(to_keyed);
  Add(std::move(r));
}

void PyTreeRegistry::RegisterDataclass(nb::object type, std::vector<nb::str> data_fields,
                                       std::vector<nb::str> meta_fields) {
  auto r = std::make_unique<PyTreeRegistration>();
  r->kind = PyTreeKind::kDataclass;
  r->type = std::move(type);
  r->data_fields = std::move(data_fields);
  r->meta_fields = std::move(meta_fields);
  Add(std::move(r));
}

void PyTreeRegistry::RegisterStatic(nb::object type) {
  auto r = std::make_unique<PyTreeRegistration>();
  r->kind = PyTreeKind::kStatic;
  r->type = std::move(type);
  Add(std::move(r));
}

const PyTreeRegistration* PyTreeRegistry::Lookup(nb::handle type) const {
  auto it = registrations_.find(type.ptr());
  return it == registrations_.end() ? nullptr : it->second.get();
}

int PyTreeRegistry::Traverse(visitproc visit, void* arg) const {
  for (const nb::object* o : {&sequence_key, &dict_key, &getattr_key, &flattened_index_key}) {
    Py_VISIT(o->ptr());
  }
  for (const auto& [type, r] : registrations_) {
    for (const nb::object* o : {&r->type, &r->to_iterable, &r->from_iterable, &r->to_keyed}) {
      Py_VISIT(o->ptr());
    }
  }
  return 0;
}

void PyTreeRegistry::Clear() {
  for (nb::object* o : {&sequence_key, &dict_key, &getattr_key, &flattened_index_key}) o->reset();
  for (auto& [type, r] : registrations_) {
    r->to_iterable.reset();
    r->from_iterable.reset();
    r->to_keyed.reset();
    r->type.reset();
  }
  cleared_ = true;
}

void PyTreeRegistry::CheckUsable() const {
  if (cleared_) {
    Raise(PyExc_RuntimeError, nb::str("this pytree registry was cleared by the garbage collector"));
  }
}

PyTreeKind PyTreeRegistry::Classify(nb::handle x, const PyTreeRegistration** reg) const {
  CheckUsable();
  auto it = registrations_.find(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())));
  if (it != registrations_.end()) {
    *reg = it->second.get();
    return it->second->kind;
  }
  *reg = nullptr;
  if (PyTuple_Check(x.ptr()) &&
      PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(x.ptr())), "_fields")) {
    return PyTreeKind::kNamedTuple;
  }
  return PyTreeKind::kLeaf;
}

// ----------------------------------------------------------------------------- building nodes

nb::object MakeNode(const PyTreeNode& node, nb::object* children) {
  const int n = node.arity;
  switch (node.kind) {
    case PyTreeKind::kLeaf:
      return children[0];
    case PyTreeKind::kNone:
      return nb::none();
    case PyTreeKind::kTuple:
    case PyTreeKind::kNamedTuple: {
      nb::object t = Checked(PyTuple_New(n));
      for (int i = 0; i < n; ++i) PyTuple_SET_ITEM(t.ptr(), i, children[i].inc_ref().ptr());
      if (node.kind == PyTreeKind::kTuple) return t;
      return Checked(PyObject_CallObject(node.data.ptr(), t.ptr()));
    }
    case PyTreeKind::kList: {
      nb::object l = Checked(PyList_New(n));
      for (int i = 0; i < n; ++i) PyList_SET_ITEM(l.ptr(), i, children[i].inc_ref().ptr());
      return l;
    }
    case PyTreeKind::kDict:
    case PyTreeKind::kOrderedDict:
    case PyTreeKind::kDefaultDict: {
      nb::object keys = node.data;
      nb::object d;
      if (node.kind == PyTreeKind::kDict) {
        d = Checked(PyDict_New());
      } else if (node.kind == PyTreeKind::kOrderedDict) {
        d = node.reg->type();
      } else {
        d = node.reg->type(node.data[0]);
        keys = node.data[1];
      }
      for (int i = 0; i < n; ++i) {
        if (PyObject_SetItem(d.ptr(), PyTuple_GET_ITEM(keys.ptr(), i), children[i].ptr()) < 0) {
          throw nb::python_error();
        }
      }
      return d;
    }
    case PyTreeKind::kCustom: {
      nb::object l = Checked(PyList_New(n));
      for (int i = 0; i < n; ++i) PyList_SET_ITEM(l.ptr(), i, children[i].inc_ref().ptr());
      return node.reg->from_iterable(NoneIfNull(node.data), l);
    }
    case PyTreeKind::kDataclass: {
      nb::dict kwargs;
      const auto& meta = node.reg->meta_fields;
      for (size_t i = 0; i < meta.size(); ++i) kwargs[meta[i]] = node.data[nb::int_(i)];
      for (int i = 0; i < n; ++i) kwargs[node.reg->data_fields[i]] = children[i];
      return Checked(PyObject_Call(node.reg->type.ptr(), nb::tuple().ptr(), kwargs.ptr()));
    }
    case PyTreeKind::kStatic:
      return node.data;
  }
  return nb::none();
}

// ----------------------------------------------------------------------------- flatten

struct FlattenState {
  nb::handle is_leaf;
  nb::handle leaves;
  nb::handle paths;  // set for flatten_with_path
  std::vector<nb::object> path;
  int leaf_count = 0;
};

PyTreeDef PyTreeDef::Flatten(nb::object registry, nb::handle tree, nb::handle is_leaf,
                             nb::handle leaves, nb::handle paths) {
  PyTreeDef def(registry, nb::inst_ptr<PyTreeRegistry>(registry));
  FlattenState state;
  state.is_leaf = is_leaf.is_none() ? nb::handle() : is_leaf;
  state.leaves = leaves;
  state.paths = paths;
  def.FlattenImpl(tree, state);
  return def;
}

void PyTreeDef::FlattenImpl(nb::handle x, FlattenState& state) {
  RecursionGuard guard;
  const PyTreeRegistration* reg = nullptr;
  PyTreeKind kind = PyTreeKind::kLeaf;
  bool forced_leaf = false;
  if (state.is_leaf.is_valid()) {
    nb::object r = state.is_leaf(x);
    int truth = PyObject_IsTrue(r.ptr());
    if (truth < 0) throw nb::python_error();
    forced_leaf = truth == 1;
  }
  if (!forced_leaf) kind = reg_->Classify(x, &reg);
  if (kind == PyTreeKind::kLeaf) {
    if (state.paths.is_valid()) {
      nb::object path = Checked(PyTuple_New(state.path.size()));
      for (size_t i = 0; i < state.path.size(); ++i) {
        PyTuple_SET_ITEM(path.ptr(), i, state.path[i].inc_ref().ptr());
      }
      if (PyList_Append(state.paths.ptr(), nb::make_tuple(path, x).ptr()) < 0) throw nb::python_error();
    } else if (PyList_Append(state.leaves.ptr(), x.ptr()) < 0) {
      throw nb::python_error();
    }
    PyTreeNode leaf;
    leaf.num_leaves = leaf.num_nodes = 1;
    nodes_.push_back(std::move(leaf));
    ++state.leaf_count;
    return;
  }
  Expanded e;
  Expand(*reg_, x, kind, reg, state.paths.is_valid(), e);
  const size_t first_node = nodes_.size();
  const int first_leaf = state.leaf_count;
  for (size_t i = 0; i < e.children.size(); ++i) {
    if (state.paths.is_valid()) state.path.push_back(e.keys[i]);
    FlattenImpl(e.children[i], state);
    if (state.paths.is_valid()) state.path.pop_back();
  }
  PyTreeNode node;
  node.kind = kind;
  node.arity = static_cast<int>(e.children.size());
  node.data = std::move(e.data);
  node.reg = reg;
  node.num_leaves = state.leaf_count - first_leaf;
  node.num_nodes = static_cast<int>(nodes_.size() - first_node) + 1;
  nodes_.push_back(std::move(node));
}

// ----------------------------------------------------------------------------- unflatten

nb::object PyTreeDef::Unflatten(nb::handle leaves) const {
  nb::object seq = Checked(PySequence_Fast(leaves.ptr(), "unflatten: leaves must be iterable"));
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  if (n != num_leaves()) {
    Raise(PyExc_ValueError,
          Checked(PyUnicode_FromFormat("Too %s leaves for PyTreeDef; expected %d, got %zd",
                                       n < num_leaves() ? "few" : "many", num_leaves(), n)));
  }
  std::vector<nb::object> items;
  CopyItems(seq, items);
  return UnflattenFrom(items);
}

nb::object PyTreeDef::UnflattenFrom(std::vector<nb::object>& leaves) const {
  reg_->CheckUsable();
  std::vector<nb::object> stack;
  stack.reserve(nodes_.size());
  size_t next_leaf = 0;
  for (const PyTreeNode& node : nodes_) {
    if (node.kind == PyTreeKind::kLeaf) {
      stack.push_back(std::move(leaves[next_leaf++]));
      continue;
    }
    size_t start = stack.size() - node.arity;
    nb::object built = MakeNode(node, stack.data() + start);
    stack.resize(start);
    stack.push_back(std::move(built));
  }
  return stack.back();
}

// ----------------------------------------------------------------------------- flatten_up_to

struct UpToFrame {
  int index;  // the treedef node
  int child;  // which of its children the walk went into
  nb::handle tree;  // the matching subtree, alive while the walk is below it
};

std::vector<int> PyTreeDef::ChildRoots(int index) const {
  std::vector<int> roots(nodes_[index].arity);
  int c = index - 1;
  for (int k = nodes_[index].arity - 1; k >= 0; --k) {
    roots[k] = c;
    c -= nodes_[c].num_nodes;
  }
  return roots;
}

nb::object PyTreeDef::KeyOfChild(const UpToFrame& frame) const {
  const PyTreeNode& node = nodes_[frame.index];
  nb::int_ i(frame.child);
  switch (node.kind) {
    case PyTreeKind::kTuple:
    case PyTreeKind::kList:
      return reg_->sequence_key(i);
    case PyTreeKind::kNamedTuple:
      return reg_->getattr_key(nb::getattr(node.data, "_fields")[i]);
    case PyTreeKind::kDict:
    case PyTreeKind::kOrderedDict:
      return reg_->dict_key(node.data[i]);
    case PyTreeKind::kDefaultDict:
      return reg_->dict_key(nb::object(node.data[1])[i]);
    case PyTreeKind::kDataclass:
      return reg_->getattr_key(node.reg->data_fields[frame.child]);
    case PyTreeKind::kCustom:
      if (!node.reg->to_keyed.is_none()) {
        Expanded e;
        Expand(*reg_, frame.tree, node.kind, node.reg, true, e);
        return e.keys.at(frame.child);
      }
      return reg_->flattened_index_key(i);
    default:
      return reg_->flattened_index_key(i);
  }
}

namespace {

[[noreturn]] void RaiseStructureError(const std::string& name, nb::handle where, nb::handle what,
                                      nb::handle detail) {
  Raise(PyExc_ValueError,
        Checked(PyUnicode_FromFormat("pytree structure error: %U at key path\n    %s%U\nAt that "
                                     "key path, the prefix pytree %s %U",
                                     what.ptr(), name.c_str(), where.ptr(), name.c_str(),
                                     detail.ptr())));
}

nb::object MetadataDiff(nb::handle expected, nb::handle got) {
  nb::object ndiff = nb::module_::import_("difflib").attr("ndiff");
  nb::list a, b;
  a.append(nb::repr(expected));
  b.append(nb::repr(got));
  return nb::str("\n").attr("join")(ndiff(a, b));
}

}  // namespace

nb::list PyTreeDef::FlattenUpTo(nb::handle tree, const std::string& name) const {
  nb::list out;
  std::vector<UpToFrame> frames;
  FlattenUpToImpl(static_cast<int>(nodes_.size()) - 1, tree, name, frames, out);
  return out;
}

void PyTreeDef::FlattenUpToImpl(int index, nb::handle tree, const std::string& name,
                                std::vector<UpToFrame>& frames, nb::list& out) const {
  RecursionGuard guard;
  const PyTreeNode& node = nodes_[index];
  if (node.kind == PyTreeKind::kLeaf) {
    out.append(tree);
    return;
  }
  auto where = [&]() {
    std::string s;
    for (const UpToFrame& f : frames) s += nb::str(KeyOfChild(f)).c_str();
    return nb::str(s.c_str());
  };
  const PyTreeRegistration* reg = nullptr;
  PyTreeKind kind = reg_->Classify(tree, &reg);
  nb::handle tree_type(reinterpret_cast<PyObject*>(Py_TYPE(tree.ptr())));
  bool same_type = kind == node.kind && (kind == PyTreeKind::kNamedTuple
                                             ? tree_type.ptr() == node.data.ptr()
                                             : reg == node.reg);
  if (!same_type) {
    nb::handle expected = node.kind == PyTreeKind::kNamedTuple ? node.data : node.reg->type;
    RaiseStructureError(
        name, where(), nb::str("different types"),
        Checked(PyUnicode_FromFormat("has a subtree of type\n    %R\nbut at the same key path the "
                                     "full pytree has a subtree of different type\n    %R.",
                                     expected.ptr(), tree_type.ptr())));
  }
  Expanded e;
  Expand(*reg_, tree, kind, reg, false, e);
  if (static_cast<int>(e.children.size()) != node.arity) {
    nb::object type_name = TypeName(tree_type);
    RaiseStructureError(
        name, where(), Checked(PyUnicode_FromFormat("different lengths of %S", type_name.ptr())),
        Checked(PyUnicode_FromFormat("has a subtree of type %S of length %d, but the full pytree "
                                     "has a subtree of the same type but of length %zd.",
                                     type_name.ptr(), node.arity, e.children.size())));
  }
  if (kind != PyTreeKind::kNamedTuple && !DataEqual(e.data, node.data)) {
    nb::object expected = NoneIfNull(node.data), got = NoneIfNull(e.data);
    RaiseStructureError(
        name, where(), nb::str("different pytree metadata"),
        Checked(PyUnicode_FromFormat(
            "has a subtree of type\n    %R\nwith metadata\n    %R\nbut at the same key path the "
            "full pytree has a subtree of the same type but with metadata\n    %R\nso the diff in "
            "the metadata at these pytree nodes is\n%U",
            tree_type.ptr(), expected.ptr(), got.ptr(), MetadataDiff(expected, got).ptr())));
  }
  std::vector<int> roots = ChildRoots(index);
  for (int k = 0; k < node.arity; ++k) {
    frames.push_back(UpToFrame{index, k, tree});
    FlattenUpToImpl(roots[k], e.children[k], name, frames, out);
    frames.pop_back();
  }
}

// ----------------------------------------------------------------------------- structure

PyTreeDef PyTreeDef::Subtree(int index) const {
  PyTreeDef sub(registry_, reg_);
  int first = index - nodes_[index].num_nodes + 1;
  sub.nodes_.assign(nodes_.begin() + first, nodes_.begin() + index + 1);
  return sub;
}

std::vector<PyTreeDef> PyTreeDef::Children() const {
  std::vector<PyTreeDef> out;
  for (int root : ChildRoots(static_cast<int>(nodes_.size()) - 1)) out.push_back(Subtree(root));
  return out;
}

nb::object PyTreeDef::NodeData() const {
  reg_->CheckUsable();
  const PyTreeNode& root = nodes_.back();
  if (root.kind == PyTreeKind::kLeaf) return nb::none();
  if (root.kind == PyTreeKind::kNamedTuple) return nb::make_tuple(root.data, root.data);
  return nb::make_tuple(root.reg->type, NoneIfNull(root.data));
}

PyTreeDef PyTreeDef::Tuple(nb::object registry, const std::vector<PyTreeDef>& defs) {
  PyTreeDef out(registry, nb::inst_ptr<PyTreeRegistry>(registry));
  PyTreeNode node;
  node.kind = PyTreeKind::kTuple;
  node.reg = out.reg_->Lookup(reinterpret_cast<PyObject*>(&PyTuple_Type));
  node.arity = static_cast<int>(defs.size());
  for (const PyTreeDef& d : defs) {
    out.nodes_.insert(out.nodes_.end(), d.nodes_.begin(), d.nodes_.end());
    node.num_leaves += d.num_leaves();
  }
  node.num_nodes = static_cast<int>(out.nodes_.size()) + 1;
  out.nodes_.push_back(std::move(node));
  return out;
}

nb::object PyTreeDef::FromIterableTree(nb::handle xs) const {
  reg_->CheckUsable();
  return FromIterableTreeImpl(static_cast<int>(nodes_.size()) - 1, xs);
}

nb::object PyTreeDef::FromIterableTreeImpl(int index, nb::handle xs) const {
  RecursionGuard guard;
  const PyTreeNode& node = nodes_[index];
  if (node.kind == PyTreeKind::kLeaf) return nb::borrow(xs);
  nb::object seq = Checked(PySequence_Fast(xs.ptr(), "build_tree: expected an iterable of children"));
  if (PySequence_Fast_GET_SIZE(seq.ptr()) != node.arity) {
    Raise(PyExc_ValueError,
          Checked(PyUnicode_FromFormat("build_tree: a node with %d children was given %zd",
                                       node.arity, PySequence_Fast_GET_SIZE(seq.ptr()))));
  }
  std::vector<nb::object> items;
  CopyItems(seq, items);
  std::vector<int> roots = ChildRoots(index);
  std::vector<nb::object> children;
  for (int k = 0; k < node.arity; ++k) children.push_back(FromIterableTreeImpl(roots[k], items[k]));
  return MakeNode(node, children.data());
}

bool PyTreeDef::operator==(const PyTreeDef& other) const {
  if (nodes_.size() != other.nodes_.size()) return false;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const PyTreeNode& a = nodes_[i];
    const PyTreeNode& b = other.nodes_[i];
    if (a.kind != b.kind || a.arity != b.arity || a.reg != b.reg || !DataEqual(a.data, b.data)) {
      return false;
    }
  }
  return true;
}

size_t PyTreeDef::Hash() const {
  if (hash_valid_) return hash_;
  size_t h = nodes_.size();
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const PyTreeNode& n : nodes_) {
    mix(static_cast<size_t>(n.kind));
    mix(static_cast<size_t>(n.arity));
    if (n.data) {
      Py_hash_t d = PyObject_Hash(n.data.ptr());
      if (d == -1) {
        PyErr_Clear();  // unhashable aux data: equal treedefs still hash equal
      } else {
        mix(static_cast<size_t>(d));
      }
    }
  }
  hash_ = h;
  hash_valid_ = true;
  return h;
}

std::string PyTreeDef::Repr() const {
  reg_->CheckUsable();
  return "PyTreeDef(" + ReprImpl(nodes_.size() - 1) + ")";
}

int PyTreeDef::Traverse(visitproc visit, void* arg) const {
  Py_VISIT(registry_.ptr());
  for (const PyTreeNode& n : nodes_) Py_VISIT(n.data.ptr());
  return 0;
}

std::string PyTreeDef::ReprImpl(int index) const {
  const PyTreeNode& node = nodes_[index];
  if (node.kind == PyTreeKind::kLeaf) return "*";
  if (node.kind == PyTreeKind::kNone) return "None";
  std::vector<int> roots = ChildRoots(index);
  std::string inner;
  for (int k = 0; k < node.arity; ++k) {
    if (k) inner += ", ";
    if (node.kind == PyTreeKind::kDict) {
      inner += nb::repr(node.data[nb::int_(k)]).c_str();
      inner += ": ";
    }
    inner += ReprImpl(roots[k]);
  }
  switch (node.kind) {
    case PyTreeKind::kTuple:
      return "(" + inner + (node.arity == 1 ? ",)" : ")");
    case PyTreeKind::kList:
      return "[" + inner + "]";
    case PyTreeKind::kDict:
      return "{" + inner + "}";
    case PyTreeKind::kNamedTuple:
      return std::string("CustomNode(namedtuple[") + nb::str(TypeName(node.data)).c_str() + "], [" +
             inner + "])";
    default:
      return std::string("CustomNode(") + nb::str(TypeName(node.reg->type)).c_str() + "[" +
             nb::repr(NoneIfNull(node.data)).c_str() + "], [" + inner + "])";
  }
}

// ----------------------------------------------------------------------------- pickling

nb::object PyTreeDef::GetState() const {
  reg_->CheckUsable();
  nb::list nodes;
  for (const PyTreeNode& n : nodes_) {
    nodes.append(nb::make_tuple(static_cast<int>(n.kind), n.arity, NoneIfNull(n.data),
                                n.reg ? n.reg->type : nb::none(), n.num_leaves, n.num_nodes));
  }
  return nb::tuple(nodes);
}

PyTreeDef PyTreeDef::FromState(nb::object registry, nb::handle state) {
  PyTreeDef out(registry, nb::inst_ptr<PyTreeRegistry>(registry));
  for (nb::handle item : state) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    if (t.size() != 6) throw nb::value_error("PyTreeDef state: malformed node");
    PyTreeNode n;
    int kind = nb::cast<int>(t[0]);
    if (kind < 0 || kind > static_cast<int>(PyTreeKind::kStatic)) {
      throw nb::value_error("PyTreeDef state: unknown node kind");
    }
    n.kind = static_cast<PyTreeKind>(kind);
    n.arity = nb::cast<int>(t[1]);
    // Leaves, None, tuples and lists have no node data; other kinds may have None.
    bool has_data = n.kind != PyTreeKind::kLeaf && n.kind != PyTreeKind::kNone &&
                    n.kind != PyTreeKind::kTuple && n.kind != PyTreeKind::kList;
    if (has_data) n.data = nb::borrow(t[2]);
    if (!t[3].is_none()) {
      n.reg = out.reg_->Lookup(t[3]);
      if (n.reg == nullptr || n.reg->kind != n.kind) {
        Raise(PyExc_ValueError,
              Checked(PyUnicode_FromFormat("unpickling a PyTreeDef: %R is not registered as a "
                                           "pytree node of the same kind",
                                           t[3].ptr())));
      }
    }
    n.num_leaves = nb::cast<int>(t[4]);
    n.num_nodes = nb::cast<int>(t[5]);
    out.nodes_.push_back(std::move(n));
  }
  if (out.nodes_.empty()) throw nb::value_error("PyTreeDef state: no nodes");
  out.CheckState();
  return out;
}

// A state from pickle is untrusted: check that it describes a well-formed tree
// before any traversal relies on the counts.
void PyTreeDef::CheckState() const {
  auto bad = [](const char* what) {
    throw nb::value_error((std::string("PyTreeDef state: ") + what).c_str());
  };
  std::vector<const PyTreeNode*> stack;
  for (const PyTreeNode& n : nodes_) {
    if (n.arity < 0 || static_cast<size_t>(n.arity) > stack.size()) bad("a node has too many children");
    int leaves = n.kind == PyTreeKind::kLeaf ? 1 : 0, count = 1;
    for (int k = 0; k < n.arity; ++k) {
      leaves += stack.back()->num_leaves;
      count += stack.back()->num_nodes;
      stack.pop_back();
    }
    if (leaves != n.num_leaves || count != n.num_nodes) bad("inconsistent node counts");
    switch (n.kind) {
      case PyTreeKind::kLeaf:
      case PyTreeKind::kNone:
      case PyTreeKind::kStatic:
        if (n.arity != 0) bad("a leaf, None or static node with children");
        break;
      case PyTreeKind::kNamedTuple:
        if (!n.data.is_valid() || !PyType_Check(n.data.ptr())) bad("a namedtuple without its class");
        break;
      case PyTreeKind::kDict:
      case PyTreeKind::kOrderedDict:
        if (!PyTuple_Check(n.data.ptr()) || PyTuple_GET_SIZE(n.data.ptr()) != n.arity) {
          bad("dict keys do not match the children");
        }
        break;
      case PyTreeKind::kDefaultDict:
        if (!PyTuple_Check(n.data.ptr()) || PyTuple_GET_SIZE(n.data.ptr()) != 2 ||
            !PyTuple_Check(PyTuple_GET_ITEM(n.data.ptr(), 1)) ||
            PyTuple_GET_SIZE(PyTuple_GET_ITEM(n.data.ptr(), 1)) != n.arity) {
          bad("defaultdict data do not match the children");
        }
        break;
      case PyTreeKind::kDataclass:
        if (!PyTuple_Check(n.data.ptr()) ||
            PyTuple_GET_SIZE(n.data.ptr()) != static_cast<Py_ssize_t>(n.reg->meta_fields.size()) ||
            static_cast<size_t>(n.arity) != n.reg->data_fields.size()) {
          bad("dataclass fields do not match");
        }
        break;
      default:
        break;
    }
    if (n.kind != PyTreeKind::kLeaf && n.kind != PyTreeKind::kNamedTuple && n.reg == nullptr) {
      bad("a node without its registered type");
    }
    stack.push_back(&n);
  }
  if (stack.size() != 1) bad("not a single tree");
}

// ----------------------------------------------------------------------------- bindings

namespace {

int RegistryTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<PyTreeRegistry>(self)->Traverse(visit, arg);
}

int RegistryClear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<PyTreeRegistry>(self)->Clear();
  return 0;
}

int TreeDefTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<PyTreeDef>(self)->Traverse(visit, arg);
}

// Treedefs are immutable, so they only report their references; cycles through
// them are broken by clearing the registry.
PyType_Slot registry_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(RegistryTraverse)},
                                {Py_tp_clear, reinterpret_cast<void*>(RegistryClear)},
                                {0, nullptr}};
PyType_Slot treedef_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(TreeDefTraverse)},
                               {0, nullptr}};

}  // namespace

void RegisterPyTree(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("pytree", "Pytrees: a node-type registry and treedefs.");

  nb::class_<PyTreeRegistry>(m, "PyTreeRegistry",
                             "Node types and how to take them apart; flattens pytrees.",
                             nb::type_slots(registry_slots))
      .def(nb::init<nb::object, nb::object, nb::object, nb::object>(), nb::arg("sequence_key"),
           nb::arg("dict_key"), nb::arg("getattr_key"), nb::arg("flattened_index_key"))
      .def("register_node", &PyTreeRegistry::RegisterNode, nb::arg("type"),
           nb::arg("to_iterable"), nb::arg("from_iterable"), nb::arg("to_keyed").none() = nb::none(),
           "to_iterable(x) -> (children, aux); from_iterable(aux, children) -> x; optional "
           "to_keyed(x) -> (((key, child), ...), aux).")
      .def("register_dataclass_node", &PyTreeRegistry::RegisterDataclass, nb::arg("type"),
           nb::arg("data_fields"), nb::arg("meta_fields"))
      .def("register_static_node", &PyTreeRegistry::RegisterStatic, nb::arg("type"))
      .def("flatten",
           [](nb::handle self, nb::handle tree, nb::handle is_leaf) {
             nb::list leaves;
             PyTreeDef def = PyTreeDef::Flatten(nb::borrow(self), tree, is_leaf, leaves);
             return nb::make_tuple(leaves, std::move(def));
           },
           nb::arg("tree").none(), nb::arg("is_leaf").none() = nb::none(),
           "(leaves, treedef) of `tree`; `is_leaf(x)` true stops the walk at x.")
      .def("flatten_with_path",
           [](nb::handle self, nb::handle tree, nb::handle is_leaf) {
             nb::list pairs;
             PyTreeDef def = PyTreeDef::Flatten(nb::borrow(self), tree, is_leaf, nb::handle(), pairs);
             return nb::make_tuple(pairs, std::move(def));
           },
           nb::arg("tree").none(), nb::arg("is_leaf").none() = nb::none(),
           "([(key_path, leaf), ...], treedef) of `tree`.")
      .def("is_leaf",
           [](const PyTreeRegistry& r, nb::handle x) {
             const PyTreeRegistration* reg;
             return r.Classify(x, &reg) == PyTreeKind::kLeaf;
           },
           nb::arg("x").none(), "Whether `x` is a leaf (not a registered node type).")
      .def("treedef_tuple",
           [](nb::handle self, const std::vector<PyTreeDef>& defs) {
             return PyTreeDef::Tuple(nb::borrow(self), defs);
           },
           nb::arg("treedefs"), "The treedef of a tuple whose children have the given treedefs.");

  nb::class_<PyTreeDef>(m, "PyTreeDef", "The structure of a pytree.", nb::type_slots(treedef_slots))
      .def("unflatten", &PyTreeDef::Unflatten, nb::arg("leaves"),
           "The pytree of this structure with the given leaves.")
      .def("flatten_up_to", &PyTreeDef::FlattenUpTo, nb::arg("tree").none(), nb::arg("name") = "tree",
           "The subtrees of `tree` at this treedef's leaves; `name` names `tree` in errors.")
      .def("from_iterable_tree", &PyTreeDef::FromIterableTree, nb::arg("xs").none(),
           "Builds nodes of this structure from nested iterables of children.")
      .def("children", &PyTreeDef::Children)
      .def("node_data", &PyTreeDef::NodeData,
           "(node type, aux data) of the root, or None for a leaf.")
      .def("is_leaf", &PyTreeDef::IsLeaf)
      .def_prop_ro("num_leaves", &PyTreeDef::num_leaves)
      .def_prop_ro("num_nodes", &PyTreeDef::num_nodes)
      .def("__eq__",
           [](const PyTreeDef& a, nb::handle b) {
             PyTreeDef* other = nullptr;
             return nb::try_cast<PyTreeDef*>(b, other) && other != nullptr && a == *other;
           }, nb::arg("other").none())
      .def("__hash__", [](const PyTreeDef& t) { return static_cast<Py_hash_t>(t.Hash() >> 1); })
      .def("__repr__", &PyTreeDef::Repr)
      .def("__getstate__", &PyTreeDef::GetState)
      .def("__setstate__", [](PyTreeDef& self, nb::handle state) {
        // The default registry is a module attribute, so that it is released with the module.
        nb::object registry = nb::module_::import_("jaxlib._jax.pytree").attr("_default_registry");
        if (registry.is_none()) {
          throw nb::value_error("unpickling a PyTreeDef needs the default pytree registry");
        }
        new (&self) PyTreeDef(PyTreeDef::FromState(registry, state));
      });

  m.attr("_default_registry") = nb::none();
  m.def("set_default_registry", [](nb::object r) {
    if (!nb::isinstance<PyTreeRegistry>(r)) throw nb::type_error("expected a PyTreeRegistry");
    nb::module_::import_("jaxlib._jax.pytree").attr("_default_registry") = r;
  }, nb::arg("registry"), "The registry unpickled treedefs use.");
}

}  // namespace jax
