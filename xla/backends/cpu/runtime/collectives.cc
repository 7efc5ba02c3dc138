#include "xla/backends/cpu/runtime/collectives.h"

#include <algorithm>
#include <chrono>
#include <tuple>

namespace xla::cpu {
namespace {

// A replica that has not arrived after this long is assumed lost.
constexpr auto kRendezvousTimeout = std::chrono::minutes(5);

}  // namespace

CollectiveContext::CollectiveContext(int64_t num_replicas)
    : num_replicas_(num_replicas), occurrences_(num_replicas) {}

void CollectiveContext::Abort(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_.empty()) aborted_ = why.empty() ? "a replica failed" : why;
  cv_.notify_all();
}

Status CollectiveContext::Rendezvous(
    const void* key, int64_t replica, const std::vector<int64_t>& group,
    const std::vector<const void*>& inputs,
    const std::function<void(const std::vector<std::vector<const void*>>&)>& fn) {
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
  auto wait_for = [&](const std::function<bool()>& ready) -> Status {
    if (!cv_.wait_for(lock, kRendezvousTimeout, [&] { return !aborted_.empty() || ready(); })) {
      return Internal("collective rendezvous timed out waiting for the other replicas");
    }
    if (!aborted_.empty()) return Internal("collective aborted: " + aborted_);
    return OkStatus();
  };
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

}  // namespace xla::cpu
