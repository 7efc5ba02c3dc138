#include "xla/backends/cpu/codegen/buffer_assignment.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "xla/backends/cpu/runtime/cpu_buffer.h"

namespace xla::cpu {
namespace {

int64_t RoundUp(int64_t bytes) {
  const int64_t a = static_cast<int64_t>(kBufferAlignment);
  return (std::max<int64_t>(bytes, 1) + a - 1) / a * a;
}

}  // namespace

void AssignBuffers(Program& program) {
  const size_t num_slots = program.slots.size();
  const int64_t never = -1;
  std::vector<int64_t> first(num_slots, never), last(num_slots, never), last_read(num_slots, never),
      first_write(num_slots, never);
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step& step = program.steps[s];
    const int64_t at = static_cast<int64_t>(s);
    auto touch = [&](int slot) {
      if (first[slot] == never) first[slot] = at;
      last[slot] = at;
    };
    for (int slot : step.reads) {
      touch(slot);
      last_read[slot] = at;
    }
    for (int slot : step.writes) {
      touch(slot);
      if (first_write[slot] == never) first_write[slot] = at;
    }
  }

  // Temporaries in order of first use; each takes the first region whose
  // previous occupant died before it starts (growing the region if needed),
  // else a new region at the end of the arena.
  struct Region {
    int64_t offset, size, busy_until;
  };
  std::vector<Region> regions;
  std::vector<size_t> temps;
  for (size_t s = 0; s < num_slots; ++s) {
    if (program.slots[s].kind == Slot::Kind::kTemp) temps.push_back(s);
  }
  std::stable_sort(temps.begin(), temps.end(), [&](size_t a, size_t b) { return first[a] < first[b]; });
  int64_t arena = 0;
  for (size_t s : temps) {
    Slot& slot = program.slots[s];
    const int64_t size = RoundUp(slot.size);
    Region* chosen = nullptr;
    if (first[s] != never) {
      for (Region& r : regions) {
        // Only the last region can grow without moving its neighbours.
        const bool fits = r.size >= size || r.offset + r.size == arena;
        if (r.busy_until < first[s] && fits && (chosen == nullptr || r.size < chosen->size)) {
          chosen = &r;
        }
      }
    }
    if (chosen == nullptr) {
      regions.push_back({arena, size, never});
      chosen = &regions.back();
      arena += size;
    } else if (chosen->size < size) {
      arena += size - chosen->size;
      chosen->size = size;
    }
    slot.offset = chosen->offset;
    // A slot no step touches keeps its region to itself.
    chosen->busy_until = first[s] == never ? INT64_MAX : last[s];
  }
  program.temp_bytes = arena;

  program.may_alias.clear();
  for (size_t p = 0; p < num_slots; ++p) {
    const Slot& param = program.slots[p];
    if (param.kind != Slot::Kind::kParameter) continue;
    for (size_t o = 0; o < num_slots; ++o) {
      const Slot& out = program.slots[o];
      if (out.kind != Slot::Kind::kOutput || first_write[o] == never) continue;
      const int64_t w = first_write[o];
      bool safe = last_read[p] < w;
      if (last_read[p] == w) {
        const Step& step = program.steps[w];
        if (step.kind == Step::Kind::kKernel) {
          safe = std::find(step.shifted_reads.begin(), step.shifted_reads.end(),
                           static_cast<int>(p)) == step.shifted_reads.end();
        } else {
          safe = step.same_index_only && step.kind != Step::Kind::kThunk;
        }
      }
      if (safe) program.may_alias.push_back({param.index, out.index});
    }
  }
}

}  // namespace xla::cpu
