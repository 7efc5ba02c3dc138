#include "xla/backends/cpu/runtime/collectives.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <tuple>

namespace xla::cpu {
namespace {

// A replica that has not arrived after this long is assumed lost.
constexpr auto kRendezvousTimeout = std::chrono::minutes(5);

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

Status CollectiveContext::RendezvousAcrossProcesses(
    const void* key, int64_t replica, const std::vector<int64_t>& group,
    const std::vector<const void*>& inputs, const std::vector<size_t>& input_bytes,
    const std::function<void(const std::vector<std::vector<const void*>>&)>& fn) {
  const CrossProcessPlan& plan = *plan_;
  if (replica < 0 || replica >= num_replicas_) {
    return InvalidArgument("replica " + std::to_string(replica) + " is not in this run");
  }
  for (int64_t member : group) {
    if (member < 0 || member >= num_replicas_) {
      return InvalidArgument("replica group names replica " + std::to_string(member) +
                             " of a run of " + std::to_string(num_replicas_));
    }
  }
  const int64_t local = plan.replicas_per_process;
  const int64_t slot = plan.slot_of[replica];
  std::vector<size_t> offsets;
  size_t per_replica = 0;
  for (size_t b : input_bytes) {
    offsets.push_back(per_replica);
    per_replica += b;
  }
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t occurrence = occurrences_[replica][key]++;
  // Every local replica meets at every collective (groups are resolved after the
  // exchange), so the key needs no group.
  const auto id = std::make_tuple(key, occurrence, int64_t{-1});
  Meeting& m = meetings_[id];
  if (m.inputs.empty()) m.inputs.resize(local);
  m.inputs[slot] = inputs;
  ++m.arrived;
  cv_.notify_all();
  auto wait_for = [&](const std::function<bool()>& ready) { return WaitLocked(lock, ready); };
  RETURN_IF_ERROR(wait_for([&] { return m.arrived == local; }));
  if (slot == 0) {
    std::vector<uint8_t> mine(local * per_replica);
    for (int64_t s = 0; s < local; ++s) {
      for (size_t k = 0; k < input_bytes.size(); ++k) {
        std::memcpy(mine.data() + s * per_replica + offsets[k], m.inputs[s][k], input_bytes[k]);
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
  RETURN_IF_ERROR(wait_for([&] { return m.exchanged; }));
  Status result = m.exchange;
  if (result.ok()) {
    std::vector<std::vector<const void*>> all(group.size());
    for (size_t rank = 0; rank < group.size(); ++rank) {
      const int64_t r = group[rank];
      const uint8_t* base = m.gathered.data() +
                            (plan.process_of[r] * local + plan.slot_of[r]) * per_replica;
      for (size_t k = 0; k < input_bytes.size(); ++k) all[rank].push_back(base + offsets[k]);
    }
    lock.unlock();
    fn(all);
    lock.lock();
  }
  ++m.done;
  cv_.notify_all();
  // The gathered data lives in the meeting: wait until every local replica read it.
  Status left = wait_for([&] { return m.done >= local; });
  if (++m.done == 2 * local) meetings_.erase(id);
  RETURN_IF_ERROR(result);
  return left;
}

}  // namespace xla::cpu
