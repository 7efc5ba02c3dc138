#include "xla/backends/cpu/testing/npz.h"

#include <zlib.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace xla::cpu::testing {
namespace {

uint32_t U16(const std::string& s, size_t at) {
  return static_cast<uint8_t>(s[at]) | (static_cast<uint8_t>(s[at + 1]) << 8);
}
uint64_t U32(const std::string& s, size_t at) { return U16(s, at) | (uint64_t{U16(s, at + 2)} << 16); }
uint64_t U64(const std::string& s, size_t at) { return U32(s, at) | (U32(s, at + 4) << 32); }

StatusOr<std::string> Inflate(const std::string& in, size_t out_size) {
  std::string out(out_size, '\0');
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return Internal("inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&zs, Z_FINISH);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return InvalidArgument("corrupt deflate stream in npz");
  return out;
}

}  // namespace

StatusOr<NpyArray> ParseNpy(const std::string& b) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) return InvalidArgument("not an npy file");
  int major = static_cast<uint8_t>(b[6]);
  size_t header_len = major == 1 ? U16(b, 8) : U32(b, 8);
  size_t header_start = major == 1 ? 10 : 12;
  std::string header = b.substr(header_start, header_len);
  NpyArray a;
  size_t d = header.find("'descr':");
  if (d == std::string::npos) return InvalidArgument("npy header without descr");
  size_t q1 = header.find('\'', d + 8), q2 = header.find('\'', q1 + 1);
  a.descr = header.substr(q1 + 1, q2 - q1 - 1);
  if (header.find("'fortran_order': True") != std::string::npos) {
    return Unimplemented("Fortran-order npy arrays");
  }
  size_t s = header.find("'shape':");
  size_t p1 = header.find('(', s), p2 = header.find(')', p1);
  std::stringstream shape(header.substr(p1 + 1, p2 - p1 - 1));
  std::string item;
  while (std::getline(shape, item, ',')) {
    if (item.find_first_of("0123456789") != std::string::npos) a.shape.push_back(std::stoll(item));
  }
  a.data.assign(b.begin() + header_start + header_len, b.end());
  return a;
}

StatusOr<std::map<std::string, NpyArray>> ReadNpz(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound("cannot open " + path);
  std::string z((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // End of central directory: last "PK\5\6".
  size_t eocd = z.rfind(std::string("PK\x05\x06", 4));
  if (eocd == std::string::npos) return InvalidArgument(path + ": not a zip file");
  uint64_t entries = U16(z, eocd + 10);
  uint64_t cd = U32(z, eocd + 16);
  std::map<std::string, NpyArray> out;
  for (uint64_t e = 0; e < entries; ++e) {
    if (U32(z, cd) != 0x02014b50) return InvalidArgument(path + ": bad central directory");
    uint32_t method = U16(z, cd + 10);
    uint64_t csize = U32(z, cd + 20), usize = U32(z, cd + 24);
    size_t name_len = U16(z, cd + 28), extra_len = U16(z, cd + 30), comment_len = U16(z, cd + 32);
    uint64_t local = U32(z, cd + 42);
    std::string name = z.substr(cd + 46, name_len);
    // Zip64: 0xffffffff fields are in extra block 0x0001, in this order.
    size_t x = cd + 46 + name_len, xend = x + extra_len;
    while (x + 4 <= xend) {
      uint32_t id = U16(z, x), len = U16(z, x + 2);
      if (id == 1) {
        size_t at = x + 4;
        if (usize == 0xffffffffu) { usize = U64(z, at); at += 8; }
        if (csize == 0xffffffffu) { csize = U64(z, at); at += 8; }
        if (local == 0xffffffffu) { local = U64(z, at); at += 8; }
      }
      x += 4 + len;
    }
    size_t data = local + 30 + U16(z, local + 26) + U16(z, local + 28);
    std::string member = z.substr(data, csize);
    if (method == 8) {
      ASSIGN_OR_RETURN(member, Inflate(member, usize));
    } else if (method != 0) {
      return Unimplemented(path + ": zip compression method " + std::to_string(method));
    }
    ASSIGN_OR_RETURN(NpyArray a, ParseNpy(member));
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    out[name] = std::move(a);
    cd += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

}  // namespace xla::cpu::testing
