#include "xla/backends/cpu/runtime/collective_thunks.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "xla/backends/cpu/runtime/collectives.h"

namespace xla::cpu {
namespace {

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) p *= dims[i];
  return p;
}

// Copies chunk `from_chunk` of `src` (split into `chunks` along `dim`) into
// chunk `to_chunk` of `dst` (split into `dst_chunks` along `dim`).
void CopyChunk(const uint8_t* src, const std::vector<int64_t>& src_dims, int64_t chunks,
               int64_t from_chunk, uint8_t* dst, const std::vector<int64_t>& dst_dims,
               int64_t dst_chunks, int64_t to_chunk, int64_t dim, int64_t width) {
  const int64_t outer = Product(src_dims, 0, dim);
  const int64_t inner = Product(src_dims, dim + 1, src_dims.size()) * width;
  const int64_t src_row = src_dims[dim] * inner, dst_row = dst_dims[dim] * inner;
  const int64_t bytes = src_dims[dim] / chunks * inner;
  (void)dst_chunks;
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + o * dst_row + to_chunk * bytes, src + o * src_row + from_chunk * bytes,
                bytes);
  }
}

}  // namespace

Status CollectiveThunk::Run(const ThunkParams& params) const {
  const ExecutionContext& ctx = *params.context;
  const int64_t me = ctx.replica_id;
  if (p_.kind == Kind::kReplicaId || p_.kind == Kind::kPartitionId) {
    const uint32_t id = p_.kind == Kind::kReplicaId ? static_cast<uint32_t>(me) : 0;
    std::memcpy(params.buffers[p_.output_slots[0]], &id, sizeof(id));
    return OkStatus();
  }
  // This replica's group, in rank order.
  std::vector<int64_t> group;
  if (p_.kind == Kind::kCollectivePermute) {
    group.resize(ctx.num_replicas);
    std::iota(group.begin(), group.end(), 0);
  } else {
    for (const auto& g : p_.replica_groups) {
      if (std::find(g.begin(), g.end(), me) != g.end()) group = g;
    }
    if (group.empty()) {
      if (!p_.replica_groups.empty() && !p_.replica_groups[0].empty()) {
        return InvalidArgument("replica " + std::to_string(me) + " is in no replica group");
      }
      group.resize(ctx.num_replicas);
      std::iota(group.begin(), group.end(), 0);
    }
  }
  const int64_t size = static_cast<int64_t>(group.size());
  const int64_t rank = std::find(group.begin(), group.end(), me) - group.begin();
  std::vector<const void*> inputs;
  std::vector<size_t> input_bytes;
  for (size_t k = 0; k < p_.input_slots.size(); ++k) {
    inputs.push_back(params.buffers[p_.input_slots[k]]);
    input_bytes.push_back(static_cast<size_t>(
        Product(p_.input_dims[k], 0, p_.input_dims[k].size()) * ByteWidth(p_.types[k])));
  }
  auto combine = reinterpret_cast<CollectiveCombiner>(params.function);
  if ((p_.kind == Kind::kAllReduce || p_.kind == Kind::kReduceScatter) && combine == nullptr) {
    return Internal("collective reducer was not compiled");
  }

  auto compute = [&](const std::vector<std::vector<const void*>>& all) {
    for (size_t k = 0; k < p_.input_slots.size(); ++k) {
      const int64_t width = ByteWidth(p_.types[k]);
      auto* out = static_cast<uint8_t*>(params.buffers[p_.output_slots[k]]);
      const std::vector<int64_t>& in_dims = p_.input_dims[k];
      const std::vector<int64_t>& out_dims = p_.output_dims[k];
      const int64_t in_count = Product(in_dims, 0, in_dims.size());
      auto in = [&](int64_t r) { return static_cast<const uint8_t*>(all[r][k]); };
      switch (p_.kind) {
        case Kind::kAllReduce:
          std::memcpy(out, in(0), in_count * width);
          for (int64_t r = 1; r < size; ++r) combine(out, in(r), in_count);
          break;
        case Kind::kReduceScatter: {
          // Reduce only this rank's chunk along `dimension`.
          std::vector<uint8_t> piece(Product(out_dims, 0, out_dims.size()) * width);
          for (int64_t r = 0; r < size; ++r) {
            uint8_t* target = r == 0 ? out : piece.data();
            CopyChunk(in(r), in_dims, size, rank, target, out_dims, 1, 0, p_.dimension, width);
            if (r > 0) combine(out, piece.data(), Product(out_dims, 0, out_dims.size()));
          }
          break;
        }
        case Kind::kAllGather:
          for (int64_t r = 0; r < size; ++r) {
            CopyChunk(in(r), in_dims, 1, 0, out, out_dims, size, r, p_.dimension, width);
          }
          break;
        case Kind::kAllToAll:
          // Chunk r of the output is chunk `rank` of member r's input.
          for (int64_t r = 0; r < size; ++r) {
            CopyChunk(in(r), in_dims, size, rank, out, out_dims, size, r, p_.dimension, width);
          }
          break;
        case Kind::kCollectivePermute: {
          int64_t source = -1;
          for (const auto& [s, t] : p_.source_target_pairs) {
            if (t == me) source = s;
          }
          if (source < 0 || source >= size) {
            std::memset(out, 0, in_count * width);
          } else {
            std::memcpy(out, in(source), in_count * width);
          }
          break;
        }
        default:
          break;
      }
    }
  };
  if (ctx.collectives == nullptr) {
    if (size != 1 && p_.kind != Kind::kCollectivePermute) {
      return FailedPrecondition("collective over " + std::to_string(size) +
                                " replicas in a single-replica run (compile with num_replicas)");
    }
    compute({inputs});
    return OkStatus();
  }
  if ((p_.kind == Kind::kAllReduce || p_.kind == Kind::kReduceScatter) &&
      ctx.collectives->spans_processes()) {
    return ReduceAcrossProcesses(params, combine, rank, size);
  }
  if (p_.kind == Kind::kAllToAll && ctx.collectives->spans_processes()) {
    return AllToAllAcrossProcesses(params, size);
  }
  if (p_.kind == Kind::kCollectivePermute && ctx.collectives->spans_processes()) {
    std::vector<void*> outputs;
    for (int slot : p_.output_slots) outputs.push_back(params.buffers[slot]);
    return ctx.collectives->PermuteAcrossProcesses(this, me, p_.source_target_pairs, inputs,
                                                   outputs, input_bytes);
  }
  return ctx.collectives->Rendezvous(this, me, group, inputs, input_bytes, compute);
}

std::vector<std::vector<int64_t>> CollectiveThunk::AllGroups(int64_t num_replicas) const {
  std::vector<std::vector<int64_t>> groups;
  for (const auto& g : p_.replica_groups) {
    if (!g.empty()) groups.push_back(g);
  }
  if (groups.empty()) {  // no groups: every replica in one
    groups.emplace_back(num_replicas);
    std::iota(groups[0].begin(), groups[0].end(), 0);
  }
  return groups;
}

Status CollectiveThunk::AllToAllAcrossProcesses(const ThunkParams& params, int64_t size) const {
  const ExecutionContext& ctx = *params.context;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  std::vector<size_t> chunk_bytes;
  std::vector<std::vector<int64_t>> chunk_dims;
  for (size_t k = 0; k < p_.input_slots.size(); ++k) {
    inputs.push_back(params.buffers[p_.input_slots[k]]);
    outputs.push_back(params.buffers[p_.output_slots[k]]);
    chunk_dims.push_back(p_.input_dims[k]);
    chunk_dims.back()[p_.dimension] /= size;
    chunk_bytes.push_back(static_cast<size_t>(Product(chunk_dims[k], 0, chunk_dims[k].size()) *
                                              ByteWidth(p_.types[k])));
  }
  auto take = [&](size_t k, int64_t chunk, const void* input, void* dst) {
    CopyChunk(static_cast<const uint8_t*>(input), p_.input_dims[k], size, chunk,
              static_cast<uint8_t*>(dst), chunk_dims[k], 1, 0, p_.dimension,
              ByteWidth(p_.types[k]));
  };
  auto put = [&](size_t k, int64_t chunk, const void* src, void* output) {
    CopyChunk(static_cast<const uint8_t*>(src), chunk_dims[k], 1, 0,
              static_cast<uint8_t*>(output), p_.output_dims[k], size, chunk, p_.dimension,
              ByteWidth(p_.types[k]));
  };
  return ctx.collectives->AllToAllAcrossProcesses(this, ctx.replica_id, AllGroups(ctx.num_replicas),
                                                  inputs, outputs, chunk_bytes, take, put);
}

Status CollectiveThunk::ReduceAcrossProcesses(const ThunkParams& params,
                                              CollectiveCombiner combine, int64_t rank,
                                              int64_t size) const {
  const ExecutionContext& ctx = *params.context;
  const bool scatter = p_.kind == Kind::kReduceScatter;
  const std::vector<std::vector<int64_t>> groups = AllGroups(ctx.num_replicas);
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  std::vector<int64_t> counts, widths;
  // A reduce-scatter reduces whole operands (as an all-reduce does, each element once,
  // in rank order), then keeps this rank's chunk.
  std::vector<std::vector<uint8_t>> whole(scatter ? p_.input_slots.size() : 0);
  for (size_t k = 0; k < p_.input_slots.size(); ++k) {
    const int64_t count = Product(p_.input_dims[k], 0, p_.input_dims[k].size());
    const int64_t width = ByteWidth(p_.types[k]);
    inputs.push_back(params.buffers[p_.input_slots[k]]);
    if (scatter) {
      whole[k].resize(count * width);
      outputs.push_back(whole[k].data());
    } else {
      outputs.push_back(params.buffers[p_.output_slots[k]]);
    }
    counts.push_back(count);
    widths.push_back(width);
  }
  RETURN_IF_ERROR(ctx.collectives->AllReduceAcrossProcesses(
      this, ctx.replica_id, groups, inputs, outputs, counts, widths,
      [combine](size_t, void* acc, const void* in, int64_t count) { combine(acc, in, count); }));
  for (size_t k = 0; k < whole.size(); ++k) {
    CopyChunk(whole[k].data(), p_.input_dims[k], size, rank,
              static_cast<uint8_t*>(params.buffers[p_.output_slots[k]]), p_.output_dims[k], 1,
              0, p_.dimension, widths[k]);
  }
  return OkStatus();
}

}  // namespace xla::cpu
