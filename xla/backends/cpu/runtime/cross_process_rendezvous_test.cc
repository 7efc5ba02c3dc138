// CollectiveContext across processes without sockets: two "processes" in one
// test, each with its own context over its two local replicas, joined by an
// in-memory all-gather. Checks that every replica sees the inputs of its whole
// group, in rank order, whichever process holds them; that the processes'
// exchanges line up collective by collective; and that a failed exchange fails
// every local replica instead of hanging.
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "xla/backends/cpu/runtime/collectives.h"
#include "xla/hlo/testing/check.h"

namespace xla::cpu {
namespace {

constexpr int kProcesses = 2, kLocal = 2, kReplicas = kProcesses * kLocal;

// An all-gather between the test's processes: each contributes once per round.
class FakeNetwork {
 public:
  Status AllGather(int process, const void* in, size_t bytes, void* out) {
    std::unique_lock<std::mutex> lock(mu_);
    if (fail_) return Unavailable("peer lost");
    const int64_t round = rounds_[process]++;
    auto& slot = data_[round];
    slot.resize(kProcesses * bytes);
    std::memcpy(slot.data() + process * bytes, in, bytes);
    ++arrived_[round];
    cv_.notify_all();
    cv_.wait(lock, [&] { return arrived_[round] == kProcesses; });
    std::memcpy(out, slot.data(), slot.size());
    return OkStatus();
  }
  void Fail() { fail_ = true; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool fail_ = false;
  int64_t rounds_[kProcesses] = {0, 0};
  std::map<int64_t, std::vector<uint8_t>> data_;
  std::map<int64_t, int> arrived_;
};

CrossProcessPlan PlanFor(int process, FakeNetwork* net) {
  CrossProcessPlan plan;
  plan.num_processes = kProcesses;
  plan.replicas_per_process = kLocal;
  for (int r = 0; r < kReplicas; ++r) {
    plan.process_of.push_back(r / kLocal);
    plan.slot_of.push_back(r % kLocal);
  }
  plan.all_gather = [process, net](const void* in, size_t bytes, void* out) {
    return net->AllGather(process, in, bytes, out);
  };
  return plan;
}

// Replica r contributes {r, 10r} and {100r}; returns what each replica saw.
std::vector<std::vector<float>> RunOnce(FakeNetwork* net, const std::vector<int64_t>& (*group_of)(int64_t),
                                        int repeats, std::vector<Status>* statuses) {
  static int key_object;
  std::vector<std::vector<float>> seen(kReplicas);
  statuses->assign(kReplicas, OkStatus());
  CrossProcessPlan plans[kProcesses] = {PlanFor(0, net), PlanFor(1, net)};
  CollectiveContext contexts[kProcesses] = {CollectiveContext(kReplicas, &plans[0]),
                                            CollectiveContext(kReplicas, &plans[1])};
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      float a[2] = {float(r), 10.0f * r}, b[1] = {100.0f * r};
      for (int k = 0; k < repeats; ++k) {
        Status s = contexts[r / kLocal].Rendezvous(
            &key_object, r, group_of(r), {a, b}, {sizeof(a), sizeof(b)},
            [&](const std::vector<std::vector<const void*>>& all) {
              for (const auto& member : all) {
                const float* x = static_cast<const float*>(member[0]);
                const float* y = static_cast<const float*>(member[1]);
                seen[r].insert(seen[r].end(), {x[0], x[1], y[0]});
              }
            });
        if (!s.ok()) (*statuses)[r] = s;
      }
    });
  }
  for (auto& t : threads) t.join();
  return seen;
}

const std::vector<int64_t>& Everyone(int64_t) {
  static const std::vector<int64_t> all = {0, 1, 2, 3};
  return all;
}

// Groups that cut across processes: {0, 2} and {3, 1} (rank order 3 then 1).
const std::vector<int64_t>& Across(int64_t r) {
  static const std::vector<int64_t> even = {0, 2}, odd = {3, 1};
  return r % 2 == 0 ? even : odd;
}

TEST(EveryReplicaSeesTheWholeGroupInRankOrder) {
  FakeNetwork net;
  std::vector<Status> statuses;
  auto seen = RunOnce(&net, Everyone, 1, &statuses);
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_TRUE(statuses[r].ok());
    std::vector<float> expect;
    for (int m = 0; m < kReplicas; ++m) expect.insert(expect.end(), {float(m), 10.0f * m, 100.0f * m});
    EXPECT_TRUE(seen[r] == expect);
  }
}

TEST(GroupsAcrossProcessesAndRepeatedCollectivesLineUp) {
  FakeNetwork net;
  std::vector<Status> statuses;
  auto seen = RunOnce(&net, Across, 3, &statuses);
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_TRUE(statuses[r].ok());
    std::vector<float> once;
    for (int64_t m : Across(r)) once.insert(once.end(), {float(m), 10.0f * m, 100.0f * m});
    std::vector<float> expect;
    for (int k = 0; k < 3; ++k) expect.insert(expect.end(), once.begin(), once.end());
    EXPECT_TRUE(seen[r] == expect);
  }
}

TEST(AFailedExchangeFailsEveryLocalReplica) {
  FakeNetwork net;
  net.Fail();
  std::vector<Status> statuses;
  auto seen = RunOnce(&net, Everyone, 1, &statuses);
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_TRUE(!statuses[r].ok());
    EXPECT_TRUE(statuses[r].message().find("peer lost") != std::string::npos);
    EXPECT_TRUE(seen[r].empty());
  }
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
