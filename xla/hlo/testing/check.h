// A tiny test helper (no gtest in this repo): EXPECT_* record failures and
// keep going, CHECK_* stop the current test; TestMain runs the registered
// tests and returns non-zero if any failed.
#ifndef XLA_HLO_TESTING_CHECK_H_
#define XLA_HLO_TESTING_CHECK_H_

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "xla/status.h"

namespace xla::testing {

inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const StatusOr<T>& s) { return s.status(); }

struct TestCase {
  const char* name;
  void (*fn)();
};
inline std::vector<TestCase>& Registry() {
  static std::vector<TestCase> tests;
  return tests;
}
inline int& FailureCount() {
  static int failures = 0;
  return failures;
}
struct Registrar {
  Registrar(const char* name, void (*fn)()) { Registry().push_back({name, fn}); }
};
struct TestAbort {};

inline void ReportFailure(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what.c_str());
  ++FailureCount();
}

// Runs every test (or those whose name contains argv[1]).
inline int TestMain(int argc, char** argv) {
  int failed_tests = 0;
  for (const TestCase& t : Registry()) {
    if (argc > 1 && std::string(t.name).find(argv[1]) == std::string::npos) continue;
    int before = FailureCount();
    try {
      t.fn();
    } catch (const TestAbort&) {
    }
    bool ok = FailureCount() == before;
    if (!ok) ++failed_tests;
    std::fprintf(stderr, "[%s] %s\n", ok ? "  OK  " : "FAILED", t.name);
  }
  std::fprintf(stderr, "%d test(s) failed\n", failed_tests);
  return failed_tests == 0 ? 0 : 1;
}

template <typename A, typename B>
std::string Describe(const char* a_expr, const char* b_expr, const A& a, const B& b) {
  std::ostringstream os;
  os << a_expr << " == " << b_expr << "\n  left:  " << a << "\n  right: " << b;
  return os.str();
}

}  // namespace xla::testing

#define TEST(name)                                                         \
  static void name();                                                      \
  static ::xla::testing::Registrar name##_registrar(#name, &name);         \
  static void name()

#define EXPECT_TRUE(cond)                                                  \
  do {                                                                     \
    if (!(cond)) ::xla::testing::ReportFailure(__FILE__, __LINE__, #cond); \
  } while (0)

#define EXPECT_EQ(a, b)                                                                  \
  do {                                                                                   \
    auto&& _a = (a);                                                                     \
    auto&& _b = (b);                                                                     \
    if (!(_a == _b))                                                                     \
      ::xla::testing::ReportFailure(__FILE__, __LINE__,                                  \
                                    ::xla::testing::Describe(#a, #b, _a, _b));           \
  } while (0)

#define CHECK_TRUE(cond)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      ::xla::testing::ReportFailure(__FILE__, __LINE__, #cond);            \
      throw ::xla::testing::TestAbort();                                   \
    }                                                                      \
  } while (0)

// Stops the test if a Status/StatusOr is not ok, printing its message.
#define CHECK_OK(expr)                                                             \
  do {                                                                             \
    auto&& _s = (expr);                                                            \
    if (!_s.ok()) {                                                                \
      ::xla::testing::ReportFailure(__FILE__, __LINE__,                            \
                                    std::string(#expr) + ": " + ::xla::testing::GetStatus(_s).ToString()); \
      throw ::xla::testing::TestAbort();                                           \
    }                                                                              \
  } while (0)

#define TEST_MAIN() \
  int main(int argc, char** argv) { return ::xla::testing::TestMain(argc, argv); }

#endif  // XLA_HLO_TESTING_CHECK_H_
