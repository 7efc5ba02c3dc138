// See serialized_executable.h. Layout: the magic line, a u32 format version,
// the fields as little-endian u64 lengths/counts followed by bytes, and a
// 64-bit FNV-1a checksum of everything before it.
#include "xla/backends/cpu/serialized_executable.h"

#include <cstring>
#include <set>

namespace xla::cpu {
namespace {

constexpr std::string_view kMagic = "XLA CPU executable\n";
constexpr uint32_t kFormatVersion = 1;

uint64_t Fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

class Writer {
 public:
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void Bytes(std::string_view s) {
    U64(s.size());
    out_.append(s.data(), s.size());
  }
  void List(const std::vector<std::string>& items) {
    U64(items.size());
    for (const std::string& s : items) Bytes(s);
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  StatusOr<uint64_t> U64(const char* what) {
    if (in_.size() - pos_ < 8) return Truncated(what);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(in_[pos_ + i])} << (8 * i);
    pos_ += 8;
    return v;
  }
  StatusOr<std::string> Bytes(const char* what) {
    ASSIGN_OR_RETURN(uint64_t n, U64(what));
    if (in_.size() - pos_ < n) return Truncated(what);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  StatusOr<std::vector<std::string>> List(const char* what) {
    ASSIGN_OR_RETURN(uint64_t n, U64(what));
    // Each item takes at least its 8-byte length.
    if (n > (in_.size() - pos_) / 8) return Truncated(what);
    std::vector<std::string> items;
    for (uint64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(std::string s, Bytes(what));
      items.push_back(std::move(s));
    }
    return items;
  }
  bool AtEnd() const { return pos_ == in_.size(); }

 private:
  Status Truncated(const char* what) const {
    return InvalidArgument(std::string("serialized CPU executable is truncated (reading ") + what +
                           " at byte " + std::to_string(pos_) + " of " +
                           std::to_string(in_.size()) + ")");
  }
  std::string_view in_;
  size_t pos_ = 0;
};

// The "+name" entries of a comma-separated LLVM feature string.
std::set<std::string> EnabledFeatures(const std::string& features) {
  std::set<std::string> enabled;
  size_t start = 0;
  while (start < features.size()) {
    size_t end = features.find(',', start);
    if (end == std::string::npos) end = features.size();
    if (features[start] == '+') enabled.insert(features.substr(start + 1, end - start - 1));
    start = end + 1;
  }
  return enabled;
}

}  // namespace

std::string EncodeExecutable(const SerializedExecutable& e) {
  Writer w;
  w.out().append(kMagic);
  w.out().append(reinterpret_cast<const char*>(&kFormatVersion), 4);
  w.Bytes(e.plugin_version);
  w.U64(static_cast<uint64_t>(e.num_replicas));
  w.Bytes(e.hlo_text);
  w.Bytes(e.triple);
  w.Bytes(e.cpu_name);
  w.Bytes(e.cpu_features);
  w.List(e.kernel_symbols);
  w.List(e.objects);
  w.U64(Fnv1a(w.out()));
  return std::move(w.out());
}

StatusOr<SerializedExecutable> DecodeExecutable(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return InvalidArgument("not a serialized CPU executable (the bytes do not start with the "
                           "CPU executable header)");
  }
  if (bytes.size() < kMagic.size() + 4 + 8) {
    return InvalidArgument("serialized CPU executable is truncated (" +
                           std::to_string(bytes.size()) + " bytes)");
  }
  uint32_t version;
  std::memcpy(&version, bytes.data() + kMagic.size(), 4);
  if (version != kFormatVersion) {
    return InvalidArgument("serialized CPU executable has format version " +
                           std::to_string(version) + "; this plugin reads version " +
                           std::to_string(kFormatVersion) + ". Recompile it with this plugin.");
  }
  std::string_view payload = bytes.substr(0, bytes.size() - 8);
  Reader checksum(bytes.substr(bytes.size() - 8));
  ASSIGN_OR_RETURN(uint64_t stored, checksum.U64("checksum"));
  if (stored != Fnv1a(payload)) {
    return InvalidArgument("serialized CPU executable is corrupted (checksum mismatch)");
  }
  Reader r(payload.substr(kMagic.size() + 4));
  SerializedExecutable e;
  ASSIGN_OR_RETURN(e.plugin_version, r.Bytes("plugin version"));
  ASSIGN_OR_RETURN(uint64_t replicas, r.U64("replica count"));
  e.num_replicas = static_cast<int64_t>(replicas);
  ASSIGN_OR_RETURN(e.hlo_text, r.Bytes("HLO module"));
  ASSIGN_OR_RETURN(e.triple, r.Bytes("target triple"));
  ASSIGN_OR_RETURN(e.cpu_name, r.Bytes("CPU name"));
  ASSIGN_OR_RETURN(e.cpu_features, r.Bytes("CPU features"));
  ASSIGN_OR_RETURN(e.kernel_symbols, r.List("kernel symbols"));
  ASSIGN_OR_RETURN(e.objects, r.List("object files"));
  if (!r.AtEnd()) return InvalidArgument("serialized CPU executable has trailing bytes");
  if (e.num_replicas < 1) return InvalidArgument("serialized CPU executable has no replicas");
  return e;
}

Status CheckLoadable(const SerializedExecutable& e, const std::string& plugin_version,
                     const std::string& host_triple, const std::string& host_features) {
  if (e.plugin_version != plugin_version) {
    return FailedPrecondition("the executable was serialized by the CPU plugin " +
                              e.plugin_version + " and this is " + plugin_version +
                              "; recompile it with this plugin");
  }
  if (e.objects.empty()) return OkStatus();
  if (e.triple != host_triple) {
    return FailedPrecondition("the executable was compiled for " + e.triple +
                              " and this host is " + host_triple);
  }
  std::set<std::string> host = EnabledFeatures(host_features);
  std::string missing;
  for (const std::string& f : EnabledFeatures(e.cpu_features)) {
    if (host.count(f) == 0) missing += (missing.empty() ? "" : ", ") + f;
  }
  if (!missing.empty()) {
    return FailedPrecondition("the executable was compiled for a " + e.cpu_name +
                              " CPU and uses instruction-set features this CPU lacks (" +
                              missing + "); recompile it on this machine");
  }
  return OkStatus();
}

}  // namespace xla::cpu
