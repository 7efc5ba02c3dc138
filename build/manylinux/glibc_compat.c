/* Our own definitions of the glibc functions newer than the manylinux_2_28
   baseline that our dependencies (the toolchain's libstdc++.a and libgcc_eh.a,
   LLVM's static libraries) call. Linked into every shared object we ship and
   hidden there (-fvisibility=hidden, the version scripts), so that references
   inside the object bind to these at link time and the object needs nothing
   newer than GLIBC_2.28 from the system; nothing outside the object sees them.
   Each one is built only from interfaces glibc 2.28 has. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
   stat and friends: functions since glibc 2.33; before, the headers inlined
   them as calls of the versioned __xstat family (version 1 is the x86-64
   kernel layout, which struct stat and struct stat64 share). */

#define XSTAT_VERSION 1
#define XMKNOD_VERSION 0

extern int __xstat(int version, const char* path, struct stat* buf);
extern int __lxstat(int version, const char* path, struct stat* buf);
extern int __fxstat(int version, int fd, struct stat* buf);
extern int __fxstatat(int version, int dirfd, const char* path, struct stat* buf, int flags);
extern int __xmknod(int version, const char* path, mode_t mode, dev_t* dev);
extern int __xmknodat(int version, int dirfd, const char* path, mode_t mode, dev_t* dev);

int stat(const char* path, struct stat* buf) { return __xstat(XSTAT_VERSION, path, buf); }
int lstat(const char* path, struct stat* buf) { return __lxstat(XSTAT_VERSION, path, buf); }
int fstat(int fd, struct stat* buf) { return __fxstat(XSTAT_VERSION, fd, buf); }
int fstatat(int dirfd, const char* path, struct stat* buf, int flags) {
  return __fxstatat(XSTAT_VERSION, dirfd, path, buf, flags);
}
int stat64(const char* path, struct stat64* buf) {
  return __xstat(XSTAT_VERSION, path, (struct stat*)buf);
}
int lstat64(const char* path, struct stat64* buf) {
  return __lxstat(XSTAT_VERSION, path, (struct stat*)buf);
}
int fstat64(int fd, struct stat64* buf) { return __fxstat(XSTAT_VERSION, fd, (struct stat*)buf); }
int fstatat64(int dirfd, const char* path, struct stat64* buf, int flags) {
  return __fxstatat(XSTAT_VERSION, dirfd, path, (struct stat*)buf, flags);
}
int mknod(const char* path, mode_t mode, dev_t dev) {
  return __xmknod(XMKNOD_VERSION, path, mode, &dev);
}
int mknodat(int dirfd, const char* path, mode_t mode, dev_t dev) {
  return __xmknodat(XMKNOD_VERSION, dirfd, path, mode, &dev);
}

/* ------------------------------------------------------------------------
   mallinfo2 (2.33): the same numbers as mallinfo, whose int fields wrap past
   2 GiB; LLVM reads it only for statistics. */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct mallinfo2 mallinfo2(void) {
  struct mallinfo old = mallinfo();
  struct mallinfo2 info = {
      .arena = (unsigned)old.arena, .ordblks = (unsigned)old.ordblks,
      .smblks = (unsigned)old.smblks, .hblks = (unsigned)old.hblks,
      .hblkhd = (unsigned)old.hblkhd, .usmblks = (unsigned)old.usmblks,
      .fsmblks = (unsigned)old.fsmblks, .uordblks = (unsigned)old.uordblks,
      .fordblks = (unsigned)old.fordblks, .keepcost = (unsigned)old.keepcost,
  };
  return info;
}
#pragma GCC diagnostic pop

/* ------------------------------------------------------------------------
   __libc_single_threaded (2.32): libstdc++ skips atomic reference counting
   while it is nonzero. Zero ("maybe threaded") is always correct. */

char __libc_single_threaded = 0;

/* ------------------------------------------------------------------------
   arc4random (2.36), used by std::random_device: the kernel's generator. */

static void fill_random(void* buf, size_t n) {
  unsigned char* p = buf;
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      abort(); /* arc4random cannot report failure; glibc's aborts too */
    }
    p += got;
    n -= (size_t)got;
  }
}

uint32_t arc4random(void) {
  uint32_t value;
  fill_random(&value, sizeof value);
  return value;
}

void arc4random_buf(void* buf, size_t n) { fill_random(buf, n); }

uint32_t arc4random_uniform(uint32_t bound) {
  if (bound < 2) return 0;
  /* Reject the values below 2^32 mod bound so every result is equally likely. */
  uint32_t floor = (uint32_t)(-bound) % bound;
  for (;;) {
    uint32_t r = arc4random();
    if (r >= floor) return r % bound;
  }
}

/* ------------------------------------------------------------------------
   _dl_find_object (2.35): libgcc's unwinder asks it for the .eh_frame_hdr of
   the object holding a return address, and without an answer a C++ exception
   terminates the process. The same answer from dl_iterate_phdr (2.2.4). */

struct find_request {
  uintptr_t pc;
  struct dl_find_object* result;
  int found;
};

static int find_in_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct find_request* request = data;
  uintptr_t lowest = UINTPTR_MAX, highest = 0;
  int contains = 0;
  const void* eh_frame = NULL;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* phdr = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + phdr->p_vaddr;
    if (phdr->p_type == PT_GNU_EH_FRAME) eh_frame = (const void*)start;
    if (phdr->p_type != PT_LOAD) continue;
    uintptr_t end = start + phdr->p_memsz;
    if (start < lowest) lowest = start;
    if (end > highest) highest = end;
    if (request->pc >= start && request->pc < end) contains = 1;
  }
  if (!contains) return 0;
  struct dl_find_object* result = request->result;
  result->dlfo_flags = 0;
  result->dlfo_map_start = (void*)lowest;
  result->dlfo_map_end = (void*)highest;
  result->dlfo_eh_frame = (void*)eh_frame;
  result->dlfo_link_map = NULL;
  Dl_info symbol;
  void* map = NULL;
  if (dladdr1((void*)request->pc, &symbol, &map, RTLD_DL_LINKMAP) != 0) {
    result->dlfo_link_map = map;
  }
  request->found = 1;
  return 1;
}

int _dl_find_object(void* pc, struct dl_find_object* result) {
  struct find_request request = {(uintptr_t)pc, result, 0};
  dl_iterate_phdr(find_in_object, &request);
  return request.found ? 0 : -1;
}

/* ------------------------------------------------------------------------
   The clock-selecting waits (2.30), used by std::condition_variable,
   std::timed_mutex and std::shared_timed_mutex with steady_clock: the
   deadline is moved onto CLOCK_REALTIME, which the older calls take. */

static int realtime_deadline(clockid_t clock, const struct timespec* deadline,
                             struct timespec* out) {
  if (clock == CLOCK_REALTIME) {
    *out = *deadline;
    return 0;
  }
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  struct timespec now_clock, now_real;
  clock_gettime(clock, &now_clock);
  clock_gettime(CLOCK_REALTIME, &now_real);
  int64_t left = (int64_t)(deadline->tv_sec - now_clock.tv_sec) * 1000000000 +
                 (deadline->tv_nsec - now_clock.tv_nsec);
  int64_t target = (int64_t)now_real.tv_sec * 1000000000 + now_real.tv_nsec + left;
  out->tv_sec = target / 1000000000;
  out->tv_nsec = target % 1000000000;
  if (out->tv_nsec < 0) {
    out->tv_nsec += 1000000000;
    out->tv_sec -= 1;
  }
  return 0;
}

int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                           const struct timespec* deadline) {
  struct timespec real;
  int error = realtime_deadline(clock, deadline, &real);
  return error ? error : pthread_cond_timedwait(cond, mutex, &real);
}

int pthread_mutex_clocklock(pthread_mutex_t* mutex, clockid_t clock,
                            const struct timespec* deadline) {
  struct timespec real;
  int error = realtime_deadline(clock, deadline, &real);
  return error ? error : pthread_mutex_timedlock(mutex, &real);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t* lock, clockid_t clock,
                               const struct timespec* deadline) {
  struct timespec real;
  int error = realtime_deadline(clock, deadline, &real);
  return error ? error : pthread_rwlock_timedrdlock(lock, &real);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t* lock, clockid_t clock,
                               const struct timespec* deadline) {
  struct timespec real;
  int error = realtime_deadline(clock, deadline, &real);
  return error ? error : pthread_rwlock_timedwrlock(lock, &real);
}

int sem_clockwait(sem_t* sem, clockid_t clock, const struct timespec* deadline) {
  struct timespec real;
  int error = realtime_deadline(clock, deadline, &real);
  if (error) {
    errno = error;
    return -1;
  }
  return sem_timedwait(sem, &real);
}
