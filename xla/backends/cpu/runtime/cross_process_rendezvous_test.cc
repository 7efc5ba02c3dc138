// CollectiveContext across processes without sockets: two "processes" in one
// test, each with its own context over its two local replicas, joined by an
// in-memory all-gather. Checks that every replica sees the inputs of its whole
// group, in rank order, whichever process holds them; that the processes'
// exchanges line up collective by collective; and that a failed exchange fails
// every local replica instead of hanging.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
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
  // Personalised exchange: process p's block q goes to process q.
  Status AllToAll(int process, const void* in, const std::vector<size_t>& send, void* out,
                  const std::vector<size_t>& recv) {
    std::vector<uint8_t> mine(static_cast<const uint8_t*>(in),
                              static_cast<const uint8_t*>(in) +
                                  std::accumulate(send.begin(), send.end(), size_t{0}));
    // Every process's whole send buffer, then each picks its blocks.
    std::vector<uint8_t> sizes(sizeof(size_t) * kProcesses);
    std::memcpy(sizes.data(), send.data(), sizes.size());
    std::vector<uint8_t> header_all(kProcesses * sizes.size());
    RETURN_IF_ERROR(AllGather(process, sizes.data(), sizes.size(), header_all.data()));
    size_t longest = 0;
    std::vector<std::vector<size_t>> sends(kProcesses, std::vector<size_t>(kProcesses));
    for (int p = 0; p < kProcesses; ++p) {
      std::memcpy(sends[p].data(), header_all.data() + p * sizes.size(), sizes.size());
      longest = std::max(longest, std::accumulate(sends[p].begin(), sends[p].end(), size_t{0}));
    }
    mine.resize(longest);
    std::vector<uint8_t> buffers(kProcesses * longest);
    RETURN_IF_ERROR(AllGather(process, mine.data(), longest, buffers.data()));
    auto* o = static_cast<uint8_t*>(out);
    for (int p = 0; p < kProcesses; ++p) {
      size_t at = 0;
      for (int q = 0; q < process; ++q) at += sends[p][q];
      if (sends[p][process] != recv[p]) return Internal("all-to-all sizes disagree");
      std::memcpy(o, buffers.data() + p * longest + at, recv[p]);
      o += recv[p];
    }
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
  plan.self = process;
  plan.replicas_per_process = kLocal;
  for (int r = 0; r < kReplicas; ++r) {
    plan.process_of.push_back(r / kLocal);
    plan.slot_of.push_back(r % kLocal);
  }
  plan.all_gather = [process, net](const void* in, size_t bytes, void* out) {
    return net->AllGather(process, in, bytes, out);
  };
  plan.all_to_all = [process, net](const void* in, const std::vector<size_t>& send, void* out,
                                   const std::vector<size_t>& recv) {
    return net->AllToAll(process, in, send, out, recv);
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

// All-reduce of `count` floats (and a second operand of 3 ints) over `groups`:
// replica r's float j is values[r] * (j + 1), its ints are r, 2r, 3r.
std::vector<std::vector<float>> AllReduce(FakeNetwork* net,
                                          const std::vector<std::vector<int64_t>>& groups,
                                          const std::vector<float>& values, int64_t count,
                                          std::vector<std::vector<int32_t>>* ints,
                                          std::vector<Status>* statuses) {
  static int key_object;
  std::vector<std::vector<float>> out(kReplicas, std::vector<float>(count));
  ints->assign(kReplicas, std::vector<int32_t>(3));
  statuses->assign(kReplicas, OkStatus());
  CrossProcessPlan plans[kProcesses] = {PlanFor(0, net), PlanFor(1, net)};
  CollectiveContext contexts[kProcesses] = {CollectiveContext(kReplicas, &plans[0]),
                                            CollectiveContext(kReplicas, &plans[1])};
  auto combine = [](size_t k, void* acc, const void* in, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      if (k == 0) {
        static_cast<float*>(acc)[i] += static_cast<const float*>(in)[i];
      } else {
        static_cast<int32_t*>(acc)[i] += static_cast<const int32_t*>(in)[i];
      }
    }
  };
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      std::vector<float> x(count);
      for (int64_t j = 0; j < count; ++j) x[j] = values[r] * float(j + 1);
      int32_t y[3] = {int32_t(r), int32_t(2 * r), int32_t(3 * r)};
      (*statuses)[r] = contexts[r / kLocal].AllReduceAcrossProcesses(
          &key_object, r, groups, {x.data(), y}, {out[r].data(), (*ints)[r].data()},
          {count, 3}, {4, 4}, combine);
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

TEST(AllReduceFoldsInRankOrderWithTheOneProcessBits) {
  // 1e8 + 1 rounds back to 1e8 in float: the fold order shows in the result.
  const std::vector<float> values = {1e8f, 1.0f, -1e8f, 1.0f};
  for (int64_t count : {1, 5, 8}) {  // fewer elements than processes, uneven, even
    FakeNetwork net;
    std::vector<Status> statuses;
    std::vector<std::vector<int32_t>> ints;
    auto out = AllReduce(&net, {{0, 1, 2, 3}}, values, count, &ints, &statuses);
    for (int r = 0; r < kReplicas; ++r) {
      EXPECT_TRUE(statuses[r].ok());
      for (int64_t j = 0; j < count; ++j) {
        float acc = values[0] * float(j + 1);
        for (int m = 1; m < kReplicas; ++m) acc += values[m] * float(j + 1);
        EXPECT_TRUE(out[r][j] == acc);
      }
      EXPECT_TRUE(ints[r] == (std::vector<int32_t>{6, 12, 18}));
    }
    EXPECT_TRUE(out[0][0] == 1.0f);  // ((1e8 + 1) - 1e8) + 1 in float
  }
}

TEST(AllReduceGroupsAcrossProcesses) {
  // {0, 2} and {3, 1}: each in its own rank order.
  const std::vector<float> values = {1e8f, 1.0f, -1e8f, 3.0f};
  FakeNetwork net;
  std::vector<Status> statuses;
  std::vector<std::vector<int32_t>> ints;
  auto out = AllReduce(&net, {{0, 2}, {3, 1}}, values, 7, &ints, &statuses);
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_TRUE(statuses[r].ok());
    const std::vector<int64_t>& g = Across(r);
    for (int64_t j = 0; j < 7; ++j) {
      EXPECT_TRUE(out[r][j] == values[g[0]] * float(j + 1) + values[g[1]] * float(j + 1));
    }
    EXPECT_TRUE(ints[r] == (r % 2 == 0 ? std::vector<int32_t>{2, 4, 6}
                                       : std::vector<int32_t>{4, 8, 12}));
  }
  std::vector<Status> bad;
  AllReduce(&net, {{0, 1}, {1, 2, 3}}, values, 2, &ints, &bad);
  EXPECT_TRUE(!bad[0].ok() && bad[0].message().find("each of the run's 4 replicas once") !=
                                  std::string::npos);
}

TEST(AFailedAllReduceExchangeFailsEveryLocalReplica) {
  FakeNetwork net;
  net.Fail();
  std::vector<Status> statuses;
  std::vector<std::vector<int32_t>> ints;
  AllReduce(&net, {{0, 1, 2, 3}}, {1, 2, 3, 4}, 4, &ints, &statuses);
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_TRUE(!statuses[r].ok() && statuses[r].message().find("peer lost") != std::string::npos);
  }
}

// Replica r sends {r + 1, 10(r + 1)} and {100(r + 1)}; returns what each received.
std::vector<std::vector<float>> Permute(FakeNetwork* net,
                                        const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                        std::vector<Status>* statuses) {
  static int key_object;
  std::vector<std::vector<float>> got(kReplicas, std::vector<float>(3, -1.0f));
  statuses->assign(kReplicas, OkStatus());
  CrossProcessPlan plans[kProcesses] = {PlanFor(0, net), PlanFor(1, net)};
  CollectiveContext contexts[kProcesses] = {CollectiveContext(kReplicas, &plans[0]),
                                            CollectiveContext(kReplicas, &plans[1])};
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      float a[2] = {float(r + 1), 10.0f * (r + 1)}, b[1] = {100.0f * (r + 1)};
      (*statuses)[r] = contexts[r / kLocal].PermuteAcrossProcesses(
          &key_object, r, pairs, {a, b}, {got[r].data(), got[r].data() + 2},
          {sizeof(a), sizeof(b)});
    });
  }
  for (auto& t : threads) t.join();
  return got;
}

TEST(PermuteSendsEachSourceToItsTargetOnly) {
  FakeNetwork net;
  std::vector<Status> statuses;
  // 0 -> 3 and 3 -> 1 cross processes, 1 -> 0 stays in process 0; nobody sends to 2.
  auto got = Permute(&net, {{0, 3}, {3, 1}, {1, 0}}, &statuses);
  for (int r = 0; r < kReplicas; ++r) EXPECT_TRUE(statuses[r].ok());
  EXPECT_TRUE(got[3] == (std::vector<float>{1, 10, 100}));
  EXPECT_TRUE(got[1] == (std::vector<float>{4, 40, 400}));
  EXPECT_TRUE(got[0] == (std::vector<float>{2, 20, 200}));
  EXPECT_TRUE(got[2] == (std::vector<float>{0, 0, 0}));
  std::vector<Status> bad;
  Permute(&net, {{0, 3}, {1, 3}}, &bad);
  EXPECT_TRUE(!bad[0].ok() && bad[0].message().find("at most once") != std::string::npos);
}

// All-to-all of one operand: replica r's chunk j (one float) is 10r + j.
std::vector<std::vector<float>> AllToAll(FakeNetwork* net,
                                         const std::vector<std::vector<int64_t>>& groups,
                                         std::vector<Status>* statuses) {
  static int key_object;
  const size_t size = groups[0].size();
  std::vector<std::vector<float>> got(kReplicas, std::vector<float>(size, -1.0f));
  statuses->assign(kReplicas, OkStatus());
  CrossProcessPlan plans[kProcesses] = {PlanFor(0, net), PlanFor(1, net)};
  CollectiveContext contexts[kProcesses] = {CollectiveContext(kReplicas, &plans[0]),
                                            CollectiveContext(kReplicas, &plans[1])};
  auto take = [](size_t, int64_t chunk, const void* input, void* dst) {
    std::memcpy(dst, static_cast<const float*>(input) + chunk, sizeof(float));
  };
  auto put = [](size_t, int64_t chunk, const void* src, void* output) {
    std::memcpy(static_cast<float*>(output) + chunk, src, sizeof(float));
  };
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      std::vector<float> x(size);
      for (size_t j = 0; j < size; ++j) x[j] = 10.0f * r + j;
      (*statuses)[r] = contexts[r / kLocal].AllToAllAcrossProcesses(
          &key_object, r, groups, {x.data()}, {got[r].data()}, {sizeof(float)}, take, put);
    });
  }
  for (auto& t : threads) t.join();
  return got;
}

TEST(AllToAllDeliversEachChunkToItsReader) {
  for (const std::vector<std::vector<int64_t>>& groups :
       {std::vector<std::vector<int64_t>>{{0, 1, 2, 3}},
        std::vector<std::vector<int64_t>>{{0, 2}, {3, 1}}}) {
    FakeNetwork net;
    std::vector<Status> statuses;
    auto got = AllToAll(&net, groups, &statuses);
    for (const auto& g : groups) {
      for (size_t reader = 0; reader < g.size(); ++reader) {
        EXPECT_TRUE(statuses[g[reader]].ok());
        std::vector<float> expect;
        for (int64_t member : g) expect.push_back(10.0f * member + reader);
        EXPECT_TRUE(got[g[reader]] == expect);
      }
    }
  }
}

}  // namespace
}  // namespace xla::cpu

TEST_MAIN()
