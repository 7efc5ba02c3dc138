// Pytrees: a registry of container types and the treedefs that flattening makes.
//
// A treedef is the structure of a pytree stored as its nodes in post-order (children
// before their parent), each with its kind, arity and node data (dict keys, the
// namedtuple class, custom aux data). Flattening walks a Python object once and
// emits leaves in left-to-right order; unflattening rebuilds with a stack.
//
// Everything here runs with the GIL held: registrations may change between calls,
// so no borrowed reference is kept across a call into Python.
#ifndef JAXLIB_PYTREE_H_
#define JAXLIB_PYTREE_H_

#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace jax {

enum class PyTreeKind : int {
  kLeaf = 0,
  kNone,
  kTuple,
  kNamedTuple,
  kList,
  kDict,
  kOrderedDict,
  kDefaultDict,
  kCustom,     // Python flatten/unflatten functions
  kDataclass,  // data fields are children, meta fields are the node data
  kStatic,     // no children; the object itself is the node data
};

// How one registered type is taken apart and put back together.
struct PyTreeRegistration {
  PyTreeKind kind = PyTreeKind::kLeaf;
  nanobind::object type;
  nanobind::object to_iterable;    // kCustom: x -> (children, aux)
  nanobind::object from_iterable;  // kCustom: (aux, children) -> x
  nanobind::object to_keyed;       // kCustom, optional: x -> (((key, child), ...), aux)
  std::vector<nanobind::str> data_fields;  // kDataclass
  std::vector<nanobind::str> meta_fields;  // kDataclass
};

class PyTreeDef;
struct FlattenState;
struct UpToFrame;

// The node types known to pytree functions. Built-ins are registered at creation;
// the key-path entry classes (SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey)
// are given by the caller so that they can stay plain Python classes.
class PyTreeRegistry {
 public:
  PyTreeRegistry(nanobind::object sequence_key, nanobind::object dict_key,
                 nanobind::object getattr_key, nanobind::object flattened_index_key);
  PyTreeRegistry(const PyTreeRegistry&) = delete;
  PyTreeRegistry& operator=(const PyTreeRegistry&) = delete;

  void RegisterNode(nanobind::object type, nanobind::object to_iterable,
                    nanobind::object from_iterable, nanobind::object to_keyed);
  void RegisterDataclass(nanobind::object type, std::vector<nanobind::str> data_fields,
                         std::vector<nanobind::str> meta_fields);
  void RegisterStatic(nanobind::object type);

  // The kind of `x` as a node; sets `*reg` for registered custom kinds.
  PyTreeKind Classify(nanobind::handle x, const PyTreeRegistration** reg) const;

  const PyTreeRegistration* Lookup(nanobind::handle type) const;

  // Garbage collection: registrations reference functions whose globals may
  // reference the registry. Clearing drops every Python reference; registrations
  // stay allocated (treedefs point at them) but can no longer be used.
  int Traverse(visitproc visit, void* arg) const;
  void Clear();
  // Raises RuntimeError after Clear().
  void CheckUsable() const;

  nanobind::object sequence_key, dict_key, getattr_key, flattened_index_key;

 private:
  void Add(std::unique_ptr<PyTreeRegistration> r);
  // Keyed by the type object, which the registration owns (until Clear()).
  std::unordered_map<PyObject*, std::unique_ptr<PyTreeRegistration>> registrations_;
  bool cleared_ = false;
};

struct PyTreeNode {
  PyTreeKind kind = PyTreeKind::kLeaf;
  int arity = 0;
  nanobind::object data;  // null for leaves, None, tuples and lists
  const PyTreeRegistration* reg = nullptr;  // kCustom, kDataclass, kStatic
  int num_leaves = 0;
  int num_nodes = 0;
};

class PyTreeDef {
 public:
  // `registry` must be the Python object owning `*registry_ptr`; the treedef keeps it
  // alive so registrations its nodes point to outlive it.
  PyTreeDef(nanobind::object registry, const PyTreeRegistry* registry_ptr)
      : registry_(std::move(registry)), reg_(registry_ptr) {}

  // Flattens `tree`, appending its leaves to `leaves` (a list). With `paths` (a list),
  // appends (key path tuple, leaf) pairs there instead, using keyed children.
  static PyTreeDef Flatten(nanobind::object registry, nanobind::handle tree,
                           nanobind::handle is_leaf, nanobind::handle leaves,
                           nanobind::handle paths = nanobind::handle());

  nanobind::object Unflatten(nanobind::handle leaves) const;
  // Unflattens from exactly num_leaves() owned references.
  nanobind::object UnflattenFrom(std::vector<nanobind::object>& leaves) const;
  nanobind::list FlattenUpTo(nanobind::handle tree, const std::string& name) const;
  nanobind::object FromIterableTree(nanobind::handle xs) const;
  std::vector<PyTreeDef> Children() const;
  nanobind::object NodeData() const;
  static PyTreeDef Tuple(nanobind::object registry, const std::vector<PyTreeDef>& defs);

  int num_leaves() const { return nodes_.empty() ? 0 : nodes_.back().num_leaves; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  bool IsLeaf() const { return nodes_.size() == 1 && nodes_[0].kind == PyTreeKind::kLeaf; }

  bool operator==(const PyTreeDef& other) const;
  size_t Hash() const;
  std::string Repr() const;

  nanobind::object GetState() const;
  static PyTreeDef FromState(nanobind::object registry, nanobind::handle state);

  int Traverse(visitproc visit, void* arg) const;
  const nanobind::object& registry_object() const { return registry_; }
  const PyTreeRegistry* registry() const { return reg_; }

 private:
  void FlattenImpl(nanobind::handle x, FlattenState& state);
  void FlattenUpToImpl(int index, nanobind::handle tree, const std::string& name,
                       std::vector<UpToFrame>& frames, nanobind::list& out) const;
  nanobind::object FromIterableTreeImpl(int index, nanobind::handle xs) const;
  std::vector<int> ChildRoots(int index) const;
  std::string ReprImpl(int index) const;
  nanobind::object KeyOfChild(const UpToFrame& frame) const;
  PyTreeDef Subtree(int index) const;
  void CheckState() const;

  nanobind::object registry_;
  const PyTreeRegistry* reg_;
  std::vector<PyTreeNode> nodes_;  // post-order
  mutable size_t hash_ = 0;
  mutable bool hash_valid_ = false;
};

// Builds the node of kind `node` from its children (the inverse of taking it apart).
nanobind::object MakeNode(const PyTreeNode& node, nanobind::object* children);

void RegisterPyTree(nanobind::module_& m);

}  // namespace jax

#endif  // JAXLIB_PYTREE_H_
