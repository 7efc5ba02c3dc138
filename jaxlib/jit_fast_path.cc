// The cached-call fast path of jit (see jit_fast_path.h).
#include "jaxlib/jit_fast_path.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/vector.h>
#include <structmember.h>

#include <atomic>
#include <complex>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jaxlib/pjrt_objects.h"
#include "jaxlib/pytree.h"
#include "jaxlib/status_casters.h"

namespace nb = nanobind;

namespace jax {

namespace {

// Reads one public attribute of instances of exactly one Python class: at the
// slot's fixed offset when the class declares it in __slots__ (what the member
// descriptor does, without the lookup), else through the ordinary attribute
// protocol (properties).
class AttrReader {
 public:
  AttrReader(nb::handle type, const char* name) : name_(nb::str(name)) {
    if (name[0] == '_') {
      throw nb::value_error("jit fast path: reads public attributes only");
    }
    if (!nb::hasattr(type, name)) {
      throw nb::type_error(("jit fast path: " + std::string(nb::str(type).c_str()) +
                            " has no attribute " + name).c_str());
    }
    nb::object descr = nb::getattr(type, name);
    if (Py_TYPE(descr.ptr()) == &PyMemberDescr_Type) {
      PyMemberDef* member = reinterpret_cast<PyMemberDescrObject*>(descr.ptr())->d_member;
      if (member->type == T_OBJECT_EX || member->type == T_OBJECT) offset_ = member->offset;
    }
  }
  // Null (with no Python error set) when an unset slot; throws the error a
  // property raised.
  nb::object Get(PyObject* obj) const {
    if (offset_ >= 0) {
      PyObject* v = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(obj) + offset_);
      return v == nullptr ? nb::object() : nb::borrow(v);
    }
    PyObject* v = PyObject_GetAttr(obj, name_.ptr());
    if (v == nullptr) throw nb::python_error();
    return nb::steal(v);
  }

 private:
  nb::object name_;
  Py_ssize_t offset_ = -1;
};

// Whether this thread is staging a computation (its dynamic trace is not the
// eval trace). jax's core sets it through `set_thread_staging` whenever the
// thread's dynamic trace changes; like jax's trace state, every thread starts
// eager.
thread_local bool thread_staging = false;
// jax_enable_x64, pushed by jax through `set_x64` whenever the flag changes.
std::atomic<bool> x64_enabled{false};
// jaxlib's XlaRuntimeError class, for errors of a run the fast path started.
PyObject* xla_runtime_error_type = nullptr;

// How a Python scalar argument is passed: JAX's rule gives each of bool, int,
// float and complex one dtype with x64 off and one with it on; all but bool are
// weakly typed.
struct ScalarKind {
  nb::object dtype[2];  // [x64]
  PJRT_Buffer_Type type[2];
  bool weak;
};

// A Python scalar argument converted to its parameter's element type.
struct HostScalar {
  PJRT_Buffer_Type type;
  alignas(16) unsigned char bytes[16];
};

template <typename T>
bool Store(HostScalar& out, T value) {
  static_assert(sizeof(T) <= sizeof(out.bytes));
  std::memcpy(out.bytes, &value, sizeof value);
  return true;
}

// Converts `x` (exactly bool, int, float or complex) to `type`; false when the
// value does not fit (the general path raises JAX's overflow error).
bool ToHostScalar(PyObject* x, PJRT_Buffer_Type type, HostScalar& out) {
  out.type = type;
  switch (type) {
    case PJRT_Buffer_Type_PRED:
      return Store(out, x == Py_True);
    case PJRT_Buffer_Type_S32:
    case PJRT_Buffer_Type_S64: {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
      if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return false;
      }
      if (type == PJRT_Buffer_Type_S64) return Store(out, static_cast<int64_t>(v));
      if (v < INT32_MIN || v > INT32_MAX) return false;
      return Store(out, static_cast<int32_t>(v));
    }
    case PJRT_Buffer_Type_F32:
    case PJRT_Buffer_Type_F64: {
      double v = PyFloat_AS_DOUBLE(x);
      return type == PJRT_Buffer_Type_F64 ? Store(out, v) : Store(out, static_cast<float>(v));
    }
    case PJRT_Buffer_Type_C64:
    case PJRT_Buffer_Type_C128: {
      Py_complex c = PyComplex_AsCComplex(x);
      if (type == PJRT_Buffer_Type_C128) return Store(out, std::complex<double>(c.real, c.imag));
      return Store(out, std::complex<float>(static_cast<float>(c.real), static_cast<float>(c.imag)));
    }
    default:
      return false;
  }
}

// What jax tells the fast path about its Python classes, once.
struct FastPathConfig {
  nb::object array_type;         // jax's array class (exact type only)
  nb::object shaped_array_type;  // the class of its `aval`
  AttrReader aval, single_device_buffer, is_host_backed;  // array attributes
  AttrReader shape, dtype, weak_type;     // aval attributes
  nb::object empty_shape = nb::tuple();
  // One per Python scalar type jax passes: bool, int, float, complex.
  std::vector<std::pair<PyTypeObject*, ScalarKind>> scalar_kinds;

  const ScalarKind* ScalarKindOf(PyObject* x) const {
    for (const auto& [type, kind] : scalar_kinds) {
      if (Py_TYPE(x) == type) return &kind;
    }
    return nullptr;
  }

  FastPathConfig(nb::object array, nb::object shaped)
      : array_type(array), shaped_array_type(shaped), aval(array, "aval"),
        single_device_buffer(array, "single_device_buffer"),
        is_host_backed(array, "is_host_backed"), shape(shaped, "shape"),
        dtype(shaped, "dtype"), weak_type(shaped, "weak_type") {}
};

// Never freed: it holds Python objects that must not be released after the
// interpreter has finalized.
FastPathConfig* fast_path_config = nullptr;

struct LeafSignature {
  nb::object dtype;
  nb::object shape;
  bool weak_type;
};

struct CallSignature {
  PyTreeDef tree;
  std::vector<LeafSignature> leaves;
  bool x64 = false;

  size_t Hash() const {
    size_t h = tree.Hash() ^ (x64 ? 0x5bd1e995 : 0);
    for (const LeafSignature& l : leaves) {
      Py_hash_t s = PyObject_Hash(l.shape.ptr());  // tuples of ints: never fails
      h = h * 1000003 ^ static_cast<size_t>(s) ^ (l.weak_type ? 1 : 0);
    }
    return h;
  }
  bool operator==(const CallSignature& o) const {
    if (x64 != o.x64 || leaves.size() != o.leaves.size()) return false;
    for (size_t i = 0; i < leaves.size(); ++i) {
      const LeafSignature& a = leaves[i];
      const LeafSignature& b = o.leaves[i];
      if (a.weak_type != b.weak_type) return false;
      if (PyObject_RichCompareBool(a.shape.ptr(), b.shape.ptr(), Py_EQ) != 1 ||
          PyObject_RichCompareBool(a.dtype.ptr(), b.dtype.ptr(), Py_EQ) != 1) {
        PyErr_Clear();
        return false;
      }
    }
    return tree == o.tree;
  }
};

struct SignatureHash {
  size_t operator()(const CallSignature& s) const { return s.Hash(); }
};

struct CacheEntry {
  nb::object executable;
  std::shared_ptr<PyLoadedExecutable> loaded;
  PJRT_Device* device;
  std::vector<nb::object> out_avals;
  PyTreeDef out_tree;
  // Argument leaves the executable declares as donors: their arrays are deleted
  // after each run (through the array's own `delete`).
  std::vector<int64_t> donated;
  // Buffers passed before the argument leaves (the computation's large constants),
  // held by their Python objects; `param_donated` is `donated` shifted past them.
  std::vector<nb::object> consts;
  std::vector<PyBuffer*> const_buffers;
  std::vector<int64_t> param_donated;
};

// The arguments of one call taken apart: signature, leaves and their buffers.
struct FlatCall {
  CallSignature signature;
  nb::list leaves;
  // Null for a Python scalar leaf until `scalars` are transferred.
  std::vector<PyBuffer*> buffers;
  // Owners of `buffers`: an array's buffer list may be replaced by another thread
  // while the executable runs without the GIL.
  std::vector<nb::object> buffer_objects;
  std::vector<std::pair<size_t, HostScalar>> scalars;  // (leaf index, value)
  std::vector<std::shared_ptr<PyBuffer>> scalar_buffers;
};

class JitFunction {
 public:
  JitFunction(nb::object registry, bool fast_enabled)
      : registry_(std::move(registry)), enabled_(fast_enabled) {
    if (!nb::isinstance<PyTreeRegistry>(registry_)) {
      throw nb::type_error("JitFunction: registry must be a PyTreeRegistry");
    }
  }

  // The result of the call if the fast path could make it; null (without a Python
  // error set) if the general path must. The general path only gets calls the
  // fast path has not started: once the executable runs (and may have consumed
  // donated arguments), its errors are the call's errors.
  nb::object TryCall(PyObject* args) {
    if (!enabled_ || fast_path_config == nullptr || thread_staging || cache_.empty()) {
      return nb::object();
    }
    std::unique_ptr<FlatCall> call = Flatten(args);
    if (!call) return nb::object();
    auto it = cache_.find(call->signature);
    if (it == cache_.end()) return nb::object();
    // Held here: another thread may clear the cache while the GIL is released.
    std::shared_ptr<const CacheEntry> entry = it->second;
    for (PyBuffer* b : call->buffers) {
      if (b != nullptr && b->device()->c_device() != entry->device) return nb::object();
    }
    try {
      TransferScalars(*call, *entry);
    } catch (const XlaRuntimeError&) {
      // Nothing was consumed: the general path makes the same transfer and
      // reports its error.
      return nb::object();
    }
    std::vector<std::vector<std::shared_ptr<PyBuffer>>> outs;
    {
      std::vector<std::vector<PyBuffer*>> per_device(1);
      per_device[0].reserve(entry->const_buffers.size() + call->buffers.size());
      per_device[0].insert(per_device[0].end(), entry->const_buffers.begin(),
                           entry->const_buffers.end());
      per_device[0].insert(per_device[0].end(), call->buffers.begin(), call->buffers.end());
      nb::gil_scoped_release release;
      outs = entry->loaded->Execute(per_device, entry->param_donated);
    }
    for (int64_t i : entry->donated) {
      nb::handle leaf(PyList_GET_ITEM(call->leaves.ptr(), i));
      if (Py_TYPE(leaf.ptr()) == reinterpret_cast<PyTypeObject*>(fast_path_config->array_type.ptr())) {
        leaf.attr("delete")();
      }
    }
    const std::vector<nb::object>& out_avals = entry->out_avals;
    if (outs.size() != 1 || outs[0].size() != out_avals.size()) {
      throw XlaRuntimeError("INTERNAL: a cached executable returned " +
                            std::to_string(outs.empty() ? 0 : outs[0].size()) +
                            " outputs, its entry expects " + std::to_string(out_avals.size()));
    }
    std::vector<nb::object> arrays;
    arrays.reserve(out_avals.size());
    for (size_t i = 0; i < out_avals.size(); ++i) {
      nb::list bufs;
      bufs.append(nb::cast(std::move(outs[0][i])));
      arrays.push_back(fast_path_config->array_type(out_avals[i], bufs));
    }
    return entry->out_tree.UnflattenFrom(arrays);
  }

  bool Insert(nb::handle args, nb::object executable, nb::handle out_avals, nb::handle out_tree,
              std::vector<int64_t> donated, nb::handle consts) {
    if (!enabled_ || fast_path_config == nullptr || !PyTuple_Check(args.ptr())) return false;
    std::unique_ptr<FlatCall> call = Flatten(args.ptr());
    if (!call) return false;
    auto loaded = nb::cast<std::shared_ptr<PyLoadedExecutable>>(executable);
    if (loaded->devices().size() != 1) return false;
    for (int64_t i : donated) {
      if (i < 0 || i >= static_cast<int64_t>(call->buffers.size())) {
        throw nb::value_error("_fast_insert: a donated index is not an argument leaf");
      }
    }
    auto entry = std::make_shared<CacheEntry>(CacheEntry{executable, loaded,
                                                         loaded->devices()[0]->c_device(), {},
                                                         nb::cast<PyTreeDef>(out_tree),
                                                         std::move(donated)});
    for (nb::handle c : consts) {
      PyBuffer* buffer = nullptr;
      if (!nb::try_cast<PyBuffer*>(c, buffer) || buffer == nullptr ||
          buffer->device()->c_device() != entry->device) {
        throw nb::value_error("_fast_insert: a constant is not a buffer on the executable's device");
      }
      entry->consts.push_back(nb::borrow(c));
      entry->const_buffers.push_back(buffer);
    }
    for (int64_t i : entry->donated) {
      entry->param_donated.push_back(i + static_cast<int64_t>(entry->const_buffers.size()));
    }
    for (nb::handle a : out_avals) entry->out_avals.push_back(nb::borrow(a));
    if (static_cast<int>(entry->out_avals.size()) != entry->out_tree.num_leaves() ||
        entry->out_avals.size() != loaded->num_outputs()) {
      throw nb::value_error("_fast_insert: the output avals, tree and executable disagree");
    }
    cache_.erase(call->signature);
    cache_.emplace(std::move(call->signature), std::move(entry));
    return true;
  }

  nb::list Entries() const {
    nb::list out;
    for (const auto& [sig, entry] : cache_) {
      nb::list leaves;
      for (const LeafSignature& l : sig.leaves) {
        leaves.append(nb::make_tuple(l.dtype, l.shape, l.weak_type));
      }
      out.append(nb::make_tuple(sig.tree, nb::tuple(leaves), sig.x64));
    }
    return out;
  }

  void Clear() { cache_.clear(); }

  int Traverse(visitproc visit, void* arg) const {
    Py_VISIT(registry_.ptr());
    for (const auto& [sig, entry] : cache_) {
      if (int r = sig.tree.Traverse(visit, arg)) return r;
      if (int r = entry->out_tree.Traverse(visit, arg)) return r;
      Py_VISIT(entry->executable.ptr());
      for (const nb::object& c : entry->consts) Py_VISIT(c.ptr());
      for (const nb::object& a : entry->out_avals) Py_VISIT(a.ptr());
    }
    return 0;
  }

  void ClearForGc() {
    cache_.clear();
    enabled_ = false;
  }

  bool enabled() const { return enabled_; }

 private:
  // Python scalar arguments become buffers on the executable's device, as the
  // general path would make them.
  static void TransferScalars(FlatCall& call, const CacheEntry& entry) {
    if (call.scalars.empty()) return;
    const std::shared_ptr<PyClient>& client = entry.loaded->client();
    for (auto& [index, scalar] : call.scalars) {
      call.scalar_buffers.push_back(
          client->BufferFromHostBuffer(scalar.bytes, scalar.type, nullptr, 0, entry.device));
      call.buffers[index] = call.scalar_buffers.back().get();
    }
  }

  // Null when a leaf is neither a plain single-buffer array nor a Python scalar
  // that fits its dtype (the general path decides).
  std::unique_ptr<FlatCall> Flatten(PyObject* args) {
    const FastPathConfig& c = *fast_path_config;
    nb::list leaves;
    PyTreeDef tree = PyTreeDef::Flatten(registry_, args, nb::none(), leaves);
    auto call = std::make_unique<FlatCall>(
        FlatCall{CallSignature{std::move(tree), {}, false}, std::move(leaves), {}, {}});
    call->signature.x64 = x64_enabled.load(std::memory_order_relaxed);
    const Py_ssize_t n = PyList_GET_SIZE(call->leaves.ptr());
    call->signature.leaves.reserve(n);
    call->buffers.reserve(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* x = PyList_GET_ITEM(call->leaves.ptr(), i);
      if (Py_TYPE(x) != reinterpret_cast<PyTypeObject*>(c.array_type.ptr())) {
        const ScalarKind* kind = c.ScalarKindOf(x);
        if (kind == nullptr) return nullptr;
        const int x64 = call->signature.x64 ? 1 : 0;
        HostScalar value;
        if (!ToHostScalar(x, kind->type[x64], value)) return nullptr;
        call->signature.leaves.push_back(LeafSignature{kind->dtype[x64], c.empty_shape, kind->weak});
        call->scalars.emplace_back(static_cast<size_t>(i), value);
        call->buffers.push_back(nullptr);
        continue;
      }
      nb::object aval = c.aval.Get(x);
      if (!aval.is_valid() ||
          Py_TYPE(aval.ptr()) != reinterpret_cast<PyTypeObject*>(c.shaped_array_type.ptr())) {
        return nullptr;
      }
      nb::object dtype = c.dtype.Get(aval.ptr());
      nb::object shape = c.shape.Get(aval.ptr());
      nb::object weak = c.weak_type.Get(aval.ptr());
      if (!dtype.is_valid() || !shape.is_valid() || !weak.is_valid() || !PyTuple_Check(shape.ptr())) {
        return nullptr;
      }
      call->signature.leaves.push_back(
          LeafSignature{std::move(dtype), std::move(shape), weak.ptr() == Py_True});
      nb::object buffer_object = c.single_device_buffer.Get(x);
      if (buffer_object.is_valid() && buffer_object.is_none() &&
          c.is_host_backed.Get(x).ptr() == Py_True) {
        nb::handle(x).attr("device_buffers")();  // placed on the default device, once
        buffer_object = c.single_device_buffer.Get(x);
      }
      PyBuffer* buffer = nullptr;
      if (!buffer_object.is_valid() || !nb::try_cast<PyBuffer*>(buffer_object, buffer) ||
          buffer == nullptr) {
        return nullptr;
      }
      call->buffers.push_back(buffer);
      call->buffer_objects.push_back(std::move(buffer_object));
    }
    return call;
  }

  nb::object registry_;
  bool enabled_;
  std::unordered_map<CallSignature, std::shared_ptr<const CacheEntry>, SignatureHash> cache_;
};

PyObject* JitFunctionCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  JitFunction* f = nb::inst_ptr<JitFunction>(self);
  if (kwargs == nullptr || PyDict_GET_SIZE(kwargs) == 0) {
    try {
      nb::object out = f->TryCall(args);
      if (out.is_valid()) return out.release().ptr();
    } catch (nb::python_error& e) {
      e.restore();
      return nullptr;
    } catch (const XlaRuntimeError& e) {
      PyErr_SetString(xla_runtime_error_type, e.what());
      return nullptr;
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      return nullptr;
    }
  }
  PyObject* general = PyObject_GetAttrString(self, "_call_python");
  if (general == nullptr) return nullptr;
  nb::object kw = kwargs ? nb::borrow(kwargs) : nb::steal(PyDict_New());
  PyObject* out = PyObject_CallFunctionObjArgs(general, args, kw.ptr(), nullptr);
  Py_DECREF(general);
  return out;
}

int JitFunctionTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<JitFunction>(self)->Traverse(visit, arg);
}

int JitFunctionClear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<JitFunction>(self)->ClearForGc();
  return 0;
}

PyType_Slot jit_function_slots[] = {
    {Py_tp_call, reinterpret_cast<void*>(JitFunctionCall)},
    {Py_tp_traverse, reinterpret_cast<void*>(JitFunctionTraverse)},
    {Py_tp_clear, reinterpret_cast<void*>(JitFunctionClear)},
    {0, nullptr}};

}  // namespace

void RegisterJitFastPath(nb::module_& parent) {
  // Registered by the module before the binding units; kept for the process.
  xla_runtime_error_type = nb::getattr(parent, "XlaRuntimeError").release().ptr();
  nb::module_ m = parent.def_submodule("jit", "The cached-call fast path of jit.");

  m.def("configure",
        [](nb::object array_type, nb::object shaped_array_type, nb::dict scalar_dtypes) {
          if (!PyType_Check(array_type.ptr()) || !PyType_Check(shaped_array_type.ptr())) {
            throw nb::type_error("jit.configure: array_type and shaped_array_type are classes");
          }
          auto* c = new FastPathConfig(array_type, shaped_array_type);
          for (auto [key, value] : scalar_dtypes) {
            auto* type = reinterpret_cast<PyTypeObject*>(key.ptr());
            if (type != &PyBool_Type && type != &PyLong_Type && type != &PyFloat_Type &&
                type != &PyComplex_Type) {
              throw nb::type_error("jit.configure: scalar_dtypes keys are bool, int, float, complex");
            }
            // ((x32 dtype, element type), (x64 dtype, element type))
            auto [x32, x64] = nb::cast<std::pair<nb::tuple, nb::tuple>>(value);
            c->scalar_kinds.push_back(
                {type, ScalarKind{{x32[0], x64[0]},
                                  {static_cast<PJRT_Buffer_Type>(nb::cast<int>(x32[1])),
                                   static_cast<PJRT_Buffer_Type>(nb::cast<int>(x64[1]))},
                                  type != &PyBool_Type}});
          }
          // Configured once per process; a second call (a reloaded jax) replaces the first,
          // whose objects are kept: executing calls may still be reading them.
          fast_path_config = c;
        },
        nb::arg("array_type"), nb::arg("shaped_array_type"), nb::arg("scalar_dtypes"),
        "Tells the fast path jax's array class and how Python scalar arguments are passed.\n\n"
        "The fast path takes leaves of exactly `array_type` and reads only these public "
        "attributes: `aval`, an instance of exactly `shaped_array_type` with `shape` (a "
        "tuple), `dtype` and `weak_type`; `single_device_buffer`, the array's one "
        "buffer when it is an unsharded array on a single device, else None; and, when "
        "that is None, `is_host_backed`: if true, the fast path calls `device_buffers()` "
        "(which places the value on the default device) and reads `single_device_buffer` "
        "again. Attributes declared in __slots__ are read at their slot. "
        "`scalar_dtypes`: {type: ((x32 dtype, element type), (x64 dtype, element type))} "
        "for bool, int, float and complex. Trace and x64 state come from set_thread_staging "
        "and set_x64.");
  m.def("set_thread_staging", [](bool staging) { thread_staging = staging; },
        nb::arg("staging"),
        "Whether the calling thread is staging a computation (jax's dynamic trace is not "
        "the eval trace); while it is, the thread's calls take the general path. jax's core "
        "calls this whenever the thread's dynamic trace changes; new threads start eager.");
  m.def("thread_staging", []() { return thread_staging; },
        "The calling thread's flag set by set_thread_staging.");
  m.def("set_x64", [](bool enabled) { x64_enabled.store(enabled, std::memory_order_relaxed); },
        nb::arg("enabled"),
        "The process-wide jax_enable_x64 value: part of every call's signature and the "
        "dtype of Python scalar arguments. jax calls this whenever the flag changes.");
  m.def("x64", []() { return x64_enabled.load(std::memory_order_relaxed); },
        "The value set by set_x64.");
  m.def("is_configured", []() { return fast_path_config != nullptr; });

  nb::class_<JitFunction>(m, "JitFunction",
                          "Base class of jitted functions: calling one runs a cached executable "
                          "directly when it can, else the subclass's _call_python(args, kwargs).",
                          nb::type_slots(jit_function_slots))
      .def(nb::init<nb::object, bool>(), nb::arg("registry"), nb::arg("fast_enabled"))
      .def("_fast_insert", &JitFunction::Insert, nb::arg("args"), nb::arg("executable"),
           nb::arg("out_avals"), nb::arg("out_tree"),
           nb::arg("donated") = std::vector<int64_t>{}, nb::arg("consts") = nb::tuple(),
           "Caches `executable` for calls whose positional arguments look like `args`; False "
           "if they are not plain arrays. `donated`: argument leaves each run gives up; "
           "`consts`: buffers on the executable's device passed before the leaves.")
      .def("_fast_entries", &JitFunction::Entries,
           "One (treedef, ((dtype, shape, weak_type), ...), x64) per cached signature.")
      .def("_fast_clear", &JitFunction::Clear)
      .def_prop_ro("_fast_enabled", &JitFunction::enabled);
}

}  // namespace jax
