#include "xla/backends/cpu/runtime/collectives.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <tuple>

namespace xla::cpu {
namespace {

// A replica that has not arrived after this long is assumed lost.
constexpr auto kRendezvousTimeout = std::chrono::minutes(5);

// memcpy of zero bytes, whose pointers may then be null (an empty vector's
// data(), a zero-size array's buffer): memcpy forbids null even then.
void CopyBytes(void* to, const void* from, size_t bytes) {
  if (bytes > 0) std::memcpy(to, from, bytes);
}

// Replica ids by (process, slot).
std::vector<std::vector<int64_t>> ReplicasByProcess(const CrossProcessPlan& plan) {
  std::vector<std::vector<int64_t>> replicas(plan.num_processes,
                                             std::vector<int64_t>(plan.replicas_per_process));
  for (size_t r = 0; r < plan.process_of.size(); ++r) {
    replicas[plan.process_of[r]][plan.slot_of[r]] = static_cast<int64_t>(r);
  }
  return replicas;
}

}  // namespace

CollectiveContext::CollectiveContext(int64_t num_replicas, const CrossProcessPlan* plan)
    : plan_(plan), num_replicas_(num_replicas), occurrences_(num_replicas) {}

void CollectiveContext::Abort(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_.empty()) aborted_ = why.empty() ? "a replica failed" : why;
  cv_.notify_all();
}

// Waits (holding `lock` on mu_) until `ready()` or an abort, within the rendezvous timeout.
Status CollectiveContext::WaitLocked(std::unique_lock<std::mutex>& lock,
                                     const std::function<bool()>& ready) {
  if (!cv_.wait_for(lock, kRendezvousTimeout, [&] { return !aborted_.empty() || ready(); })) {
    return Internal("collective rendezvous timed out waiting for the other replicas");
  }
  if (!aborted_.empty()) return Internal("collective aborted: " + aborted_);
  return OkStatus();
}

Status CollectiveContext::Rendezvous(
    const void* key, int64_t replica, const std::vector<int64_t>& group,
    const std::vector<const void*>& inputs, const std::vector<size_t>& input_bytes,
    const std::function<void(const std::vector<std::vector<const void*>>&)>& fn) {
  if (plan_ != nullptr) {
    return RendezvousAcrossProcesses(key, replica, group, inputs, input_bytes, fn);
  }
  auto rank_it = std::find(group.begin(), group.end(), replica);
  if (replica < 0 || replica >= num_replicas_ || rank_it == group.end()) {
    return InvalidArgument("replica " + std::to_string(replica) + " is not in its replica group");
  }
  const int64_t rank = rank_it - group.begin();
  const int64_t size = static_cast<int64_t>(group.size());
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t occurrence = occurrences_[replica][key]++;
  const auto id = std::make_tuple(key, occurrence, group.front());
  Meeting& m = meetings_[id];
  if (m.inputs.empty()) m.inputs.resize(size);
  m.inputs[rank] = inputs;
  ++m.arrived;
  cv_.notify_all();
  auto wait_for = [&](const std::function<bool()>& ready) { return WaitLocked(lock, ready); };
  RETURN_IF_ERROR(wait_for([&] { return m.arrived == size; }));
  // Everyone has published; read outside the lock (inputs are read-only).
  std::vector<std::vector<const void*>> all = m.inputs;
  lock.unlock();
  fn(all);
  lock.lock();
  ++m.done;
  cv_.notify_all();
  RETURN_IF_ERROR(wait_for([&] { return m.done >= size; }));
  // The last to leave forgets the meeting. `done` counts up past size as
  // members leave so exactly one member erases it.
  if (++m.done == 2 * size) meetings_.erase(id);
  return OkStatus();
}

StatusOr<CollectiveContext::Meeting*> CollectiveContext::MeetLocally(
    std::unique_lock<std::mutex>& lock, const void* key, int64_t replica,
    const std::vector<const void*>& inputs, const std::vector<void*>& outputs) {
  if (replica < 0 || replica >= num_replicas_) {
    return InvalidArgument("replica " + std::to_string(replica) + " is not in this run");
  }
  const int64_t local = plan_->replicas_per_process;
  const int64_t slot = plan_->slot_of[replica];
  const int64_t occurrence = occurrences_[replica][key]++;
  // Every local replica meets at every collective (groups are resolved after the
  // exchange), so the key needs no group.
  Meeting& m = meetings_[std::make_tuple(key, occurrence, int64_t{-1})];
  if (m.inputs.empty()) {
    m.inputs.resize(local);
    m.outputs.resize(local);
  }
  m.inputs[slot] = inputs;
  m.outputs[slot] = outputs;
  ++m.arrived;
  cv_.notify_all();
  RETURN_IF_ERROR(WaitLocked(lock, [&] { return m.arrived == local; }));
  return &m;
}

Status CollectiveContext::FinishLocally(std::unique_lock<std::mutex>& lock, Meeting& m,
                                        const std::function<void()>& fn) {
  const int64_t local = plan_->replicas_per_process;
  RETURN_IF_ERROR(WaitLocked(lock, [&] { return m.exchanged; }));
  Status result = m.exchange;
  if (result.ok() && fn) {
    lock.unlock();
    fn();
    lock.lock();
  }
  ++m.done;
  cv_.notify_all();
  // The exchanged data lives in the meeting: wait until every local replica read it.
  Status left = WaitLocked(lock, [&] { return m.done >= local; });
  if (++m.done == 2 * local) {
    for (auto it = meetings_.begin(); it != meetings_.end(); ++it) {
      if (&it->second == &m) {
        meetings_.erase(it);
        break;
      }
    }
  }
  RETURN_IF_ERROR(result);
  return left;
}

Status CollectiveContext::RendezvousAcrossProcesses(
    const void* key, int64_t replica, const std::vector<int64_t>& group,
    const std::vector<const void*>& inputs, const std::vector<size_t>& input_bytes,
    const std::function<void(const std::vector<std::vector<const void*>>&)>& fn) {
  const CrossProcessPlan& plan = *plan_;
  for (int64_t member : group) {
    if (member < 0 || member >= num_replicas_) {
      return InvalidArgument("replica group names replica " + std::to_string(member) +
                             " of a run of " + std::to_string(num_replicas_));
    }
  }
  const int64_t local = plan.replicas_per_process;
  std::vector<size_t> offsets;
  size_t per_replica = 0;
  for (size_t b : input_bytes) {
    offsets.push_back(per_replica);
    per_replica += b;
  }
  std::unique_lock<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Meeting* met, MeetLocally(lock, key, replica, inputs, {}));
  Meeting& m = *met;
  if (plan.slot_of[replica] == 0) {
    std::vector<uint8_t> mine(local * per_replica);
    for (int64_t s = 0; s < local; ++s) {
      for (size_t k = 0; k < input_bytes.size(); ++k) {
        CopyBytes(mine.data() + s * per_replica + offsets[k], m.inputs[s][k], input_bytes[k]);
      }
    }
    m.gathered.resize(plan.num_processes * mine.size());
    lock.unlock();
    Status exchanged = plan.all_gather(mine.data(), mine.size(), m.gathered.data());
    lock.lock();
    m.exchange = exchanged;
    m.exchanged = true;
    cv_.notify_all();
  }
  return FinishLocally(lock, m, [&] {
    std::vector<std::vector<const void*>> all(group.size());
    for (size_t rank = 0; rank < group.size(); ++rank) {
      const int64_t r = group[rank];
      const uint8_t* base = m.gathered.data() +
                            (plan.process_of[r] * local + plan.slot_of[r]) * per_replica;
      for (size_t k = 0; k < input_bytes.size(); ++k) all[rank].push_back(base + offsets[k]);
    }
    fn(all);
  });
}

namespace {

// Which elements of each operand process p reduces: [begin, end), near-equal shares.
struct Shares {
  std::vector<int64_t> counts, widths;
  int64_t processes;
  int64_t begin(size_t k, int64_t p) const { return counts[k] * p / processes; }
  int64_t size(size_t k, int64_t p) const { return begin(k, p + 1) - begin(k, p); }
  // Bytes of one replica's values (all operands) that process p reduces.
  size_t bytes(int64_t p) const {
    size_t b = 0;
    for (size_t k = 0; k < counts.size(); ++k) b += size(k, p) * widths[k];
    return b;
  }
  // The largest share in bytes: the padded block each process contributes per group.
  size_t max_bytes() const {
    size_t b = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      b += (counts[k] + processes - 1) / processes * widths[k];
    }
    return b;
  }
};

// The all-reduce exchange of one process (run by one of its replicas for all of
// them): `inputs`/`outputs` by local slot, `group_of` by replica id.
Status ReduceInShares(const CrossProcessPlan& plan, const Shares& shares,
                      const std::vector<std::vector<int64_t>>& groups,
                      const std::vector<int64_t>& group_of,
                      const std::vector<std::vector<const void*>>& inputs,
                      const std::vector<std::vector<void*>>& outputs,
                      const CollectiveContext::Combine& combine) {
  const int64_t local = plan.replicas_per_process, processes = plan.num_processes;
  const int64_t me = plan.self;
  std::vector<int64_t> group_of_slot(local, 0);
  for (size_t r = 0; r < plan.process_of.size(); ++r) {
    if (plan.process_of[r] == me) group_of_slot[plan.slot_of[r]] = group_of[r];
  }
  const size_t operands = shares.counts.size();
  // 1. Every process receives every replica's values of the elements it reduces.
  std::vector<size_t> send(processes), recv(processes);
  for (int64_t p = 0; p < processes; ++p) {
    send[p] = local * shares.bytes(p);
    recv[p] = local * shares.bytes(me);
  }
  std::vector<uint8_t> sending, received(processes * recv[0]);
  sending.reserve(std::accumulate(send.begin(), send.end(), size_t{0}));
  for (int64_t p = 0; p < processes; ++p) {
    for (int64_t s = 0; s < local; ++s) {
      for (size_t k = 0; k < operands; ++k) {
        const auto* in = static_cast<const uint8_t*>(inputs[s][k]);
        sending.insert(sending.end(), in + shares.begin(k, p) * shares.widths[k],
                       in + (shares.begin(k, p) + shares.size(k, p)) * shares.widths[k]);
      }
    }
  }
  RETURN_IF_ERROR(plan.all_to_all(sending.data(), send, received.data(), recv));
  // 2. Each group's members folded in rank order over this process's share.
  const size_t block = shares.max_bytes();
  std::vector<uint8_t> reduced(groups.size() * block);
  std::vector<size_t> operand_at(operands);
  for (size_t k = 0, at = 0; k < operands; ++k) {
    operand_at[k] = at;
    at += shares.size(k, me) * shares.widths[k];
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t k = 0; k < operands; ++k) {
      const int64_t n = shares.size(k, me);
      uint8_t* acc = reduced.data() + g * block + operand_at[k];
      for (size_t rank = 0; rank < groups[g].size(); ++rank) {
        const int64_t r = groups[g][rank];
        const uint8_t* value = received.data() + plan.process_of[r] * recv[0] +
                               plan.slot_of[r] * shares.bytes(me) + operand_at[k];
        if (rank == 0) {
          CopyBytes(acc, value, n * shares.widths[k]);
        } else if (n > 0) {
          combine(k, acc, value, n);
        }
      }
    }
  }
  // 3. The reduced shares to every process (padded to one size), into each local
  // replica's outputs.
  std::vector<uint8_t> everyone(processes * reduced.size());
  RETURN_IF_ERROR(plan.all_gather(reduced.data(), reduced.size(), everyone.data()));
  for (int64_t s = 0; s < local; ++s) {
    const int64_t g = group_of_slot[s];
    for (int64_t p = 0; p < processes; ++p) {
      size_t at = p * reduced.size() + g * block;
      for (size_t k = 0; k < operands; ++k) {
        const size_t bytes = shares.size(k, p) * shares.widths[k];
        CopyBytes(static_cast<uint8_t*>(outputs[s][k]) + shares.begin(k, p) * shares.widths[k],
                  everyone.data() + at, bytes);
        at += bytes;
      }
    }
  }
  return OkStatus();
}

}  // namespace

Status CollectiveContext::AllReduceAcrossProcesses(
    const void* key, int64_t replica, const std::vector<std::vector<int64_t>>& groups,
    const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
    const std::vector<int64_t>& counts, const std::vector<int64_t>& widths,
    const Combine& combine) {
  const CrossProcessPlan& plan = *plan_;
  ASSIGN_OR_RETURN(auto groups_and_ranks, GroupsAndRanks(groups, "all-reduce"));
  const std::vector<int64_t>& group_of = groups_and_ranks.first;
  const Shares shares{counts, widths, plan.num_processes};
  std::unique_lock<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Meeting* met, MeetLocally(lock, key, replica, inputs, outputs));
  Meeting& m = *met;
  if (plan.slot_of[replica] == 0) {
    lock.unlock();
    Status done = ReduceInShares(plan, shares, groups, group_of, m.inputs, m.outputs, combine);
    lock.lock();
    m.exchange = done;
    m.exchanged = true;
    cv_.notify_all();
  }
  return FinishLocally(lock, m, nullptr);
}

StatusOr<std::pair<std::vector<int64_t>, std::vector<int64_t>>> CollectiveContext::GroupsAndRanks(
    const std::vector<std::vector<int64_t>>& groups, const char* what) const {
  std::vector<int64_t> group_of(num_replicas_, -1), rank_of(num_replicas_, -1);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t rank = 0; rank < groups[g].size(); ++rank) {
      const int64_t member = groups[g][rank];
      if (member < 0 || member >= num_replicas_ || group_of[member] != -1) {
        return InvalidArgument(std::string(what) + " replica groups must hold each of the "
                               "run's " + std::to_string(num_replicas_) + " replicas once");
      }
      group_of[member] = static_cast<int64_t>(g);
      rank_of[member] = static_cast<int64_t>(rank);
    }
  }
  if (std::find(group_of.begin(), group_of.end(), -1) != group_of.end()) {
    return InvalidArgument(std::string(what) + " replica groups must hold each of the run's " +
                           std::to_string(num_replicas_) + " replicas once");
  }
  return std::make_pair(std::move(group_of), std::move(rank_of));
}

Status CollectiveContext::AllToAllAcrossProcesses(
    const void* key, int64_t replica, const std::vector<std::vector<int64_t>>& groups,
    const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
    const std::vector<size_t>& chunk_bytes, const TakeChunk& take, const PutChunk& put) {
  const CrossProcessPlan& plan = *plan_;
  ASSIGN_OR_RETURN(auto groups_and_ranks, GroupsAndRanks(groups, "all-to-all"));
  const std::vector<int64_t>& group_of = groups_and_ranks.first;
  const std::vector<int64_t>& rank_of = groups_and_ranks.second;
  const size_t per_chunk = std::accumulate(chunk_bytes.begin(), chunk_bytes.end(), size_t{0});
  std::unique_lock<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Meeting* met, MeetLocally(lock, key, replica, inputs, outputs));
  Meeting& m = *met;
  if (plan.slot_of[replica] == 0) {
    lock.unlock();
    Status done = [&]() -> Status {
      const int64_t processes = plan.num_processes;
      const std::vector<std::vector<int64_t>> replicas = ReplicasByProcess(plan);
      // The readers (ranks in its group) on process p of replica r's chunks.
      auto readers_on = [&](int64_t r, int64_t p) {
        std::vector<int64_t> ranks;
        const std::vector<int64_t>& g = groups[group_of[r]];
        for (size_t j = 0; j < g.size(); ++j) {
          if (plan.process_of[g[j]] == p) ranks.push_back(static_cast<int64_t>(j));
        }
        return ranks;
      };
      std::vector<size_t> send(processes, 0), recv(processes, 0);
      for (int64_t p = 0; p < processes; ++p) {
        for (int64_t r : replicas[plan.self]) send[p] += readers_on(r, p).size() * per_chunk;
        for (int64_t r : replicas[p]) recv[p] += readers_on(r, plan.self).size() * per_chunk;
      }
      std::vector<uint8_t> sending(std::accumulate(send.begin(), send.end(), size_t{0}));
      std::vector<uint8_t> received(std::accumulate(recv.begin(), recv.end(), size_t{0}));
      uint8_t* at = sending.data();
      for (int64_t p = 0; p < processes; ++p) {
        for (int64_t r : replicas[plan.self]) {
          for (int64_t j : readers_on(r, p)) {
            for (size_t k = 0; k < chunk_bytes.size(); ++k) {
              take(k, j, m.inputs[plan.slot_of[r]][k], at);
              at += chunk_bytes[k];
            }
          }
        }
      }
      RETURN_IF_ERROR(plan.all_to_all(sending.data(), send, received.data(), recv));
      const uint8_t* from = received.data();
      for (int64_t p = 0; p < processes; ++p) {
        for (int64_t r : replicas[p]) {
          for (int64_t j : readers_on(r, plan.self)) {
            const int64_t reader = groups[group_of[r]][j];
            for (size_t k = 0; k < chunk_bytes.size(); ++k) {
              put(k, rank_of[r], from, m.outputs[plan.slot_of[reader]][k]);
              from += chunk_bytes[k];
            }
          }
        }
      }
      return OkStatus();
    }();
    lock.lock();
    m.exchange = done;
    m.exchanged = true;
    cv_.notify_all();
  }
  return FinishLocally(lock, m, nullptr);
}

Status CollectiveContext::PermuteAcrossProcesses(
    const void* key, int64_t replica, const std::vector<std::pair<int64_t, int64_t>>& pairs,
    const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
    const std::vector<size_t>& bytes) {
  const CrossProcessPlan& plan = *plan_;
  std::vector<int64_t> target_of(num_replicas_, -1), source_of(num_replicas_, -1);
  for (const auto& [source, target] : pairs) {
    if (source < 0 || source >= num_replicas_ || target < 0 || target >= num_replicas_ ||
        target_of[source] != -1 || source_of[target] != -1) {
      return InvalidArgument("collective-permute pairs must name replicas of the run of " +
                             std::to_string(num_replicas_) +
                             ", each as a source and as a target at most once");
    }
    target_of[source] = target;
    source_of[target] = source;
  }
  const size_t per_replica = std::accumulate(bytes.begin(), bytes.end(), size_t{0});
  std::unique_lock<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(Meeting* met, MeetLocally(lock, key, replica, inputs, outputs));
  Meeting& m = *met;
  if (plan.slot_of[replica] == 0) {
    lock.unlock();
    Status done = [&]() -> Status {
      const int64_t processes = plan.num_processes;
      // Blocks list the sources in slot order.
      const std::vector<std::vector<int64_t>> replicas = ReplicasByProcess(plan);
      auto sends_to = [&](int64_t r, int64_t p) {
        return target_of[r] >= 0 && plan.process_of[target_of[r]] == p;
      };
      std::vector<size_t> send(processes, 0), recv(processes, 0);
      std::vector<uint8_t> sending;
      for (int64_t p = 0; p < processes; ++p) {
        for (int64_t r : replicas[plan.self]) {
          if (!sends_to(r, p)) continue;
          send[p] += per_replica;
          for (size_t k = 0; k < bytes.size(); ++k) {
            const auto* in = static_cast<const uint8_t*>(m.inputs[plan.slot_of[r]][k]);
            sending.insert(sending.end(), in, in + bytes[k]);
          }
        }
        for (int64_t r : replicas[p]) recv[p] += sends_to(r, plan.self) ? per_replica : 0;
      }
      std::vector<uint8_t> received(std::accumulate(recv.begin(), recv.end(), size_t{0}));
      RETURN_IF_ERROR(plan.all_to_all(sending.data(), send, received.data(), recv));
      // Each local target's operands, from its source's place in what arrived.
      std::vector<const uint8_t*> arrived(num_replicas_, nullptr);
      const uint8_t* at = received.data();
      for (int64_t p = 0; p < processes; ++p) {
        for (int64_t r : replicas[p]) {
          if (!sends_to(r, plan.self)) continue;
          arrived[r] = at;
          at += per_replica;
        }
      }
      for (int64_t t : replicas[plan.self]) {
        const uint8_t* from = source_of[t] >= 0 ? arrived[source_of[t]] : nullptr;
        for (size_t k = 0; k < bytes.size(); ++k) {
          auto* out = static_cast<uint8_t*>(m.outputs[plan.slot_of[t]][k]);
          if (from == nullptr) {
            if (bytes[k] > 0) std::memset(out, 0, bytes[k]);
          } else {
            CopyBytes(out, from, bytes[k]);
            from += bytes[k];
          }
        }
      }
      return OkStatus();
    }();
    lock.lock();
    m.exchange = done;
    m.exchanged = true;
    cv_.notify_all();
  }
  return FinishLocally(lock, m, nullptr);
}

}  // namespace xla::cpu
