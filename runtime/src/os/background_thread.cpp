#include "os/background_thread.hpp"

#include <pthread.h>

#include <exception>

#include "os/demangle.hpp"

namespace fiber {

AsyncSignalsBlocked::AsyncSignalsBlocked() {
  sigset_t all;
  sigfillset(&all);
  // A fault is delivered to the thread that made it; blocked, it would kill
  // the process without its handler (a crash reporter's).
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) sigdelset(&all, fault);
  pthread_sigmask(SIG_BLOCK, &all, &previous_);
}

AsyncSignalsBlocked::~AsyncSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

void ReportEscaped(const std::function<void(const std::string& what)>& on_error) noexcept {
  try {
    std::string what = CurrentExceptionType();
    try {
      throw;
    } catch (const std::exception& e) {
      what += std::string(": ") + e.what();
    } catch (...) {
    }
    on_error(what);
  } catch (...) {
  }
}

void UnblockSignalsOnSpawn(posix_spawnattr_t* attr) {
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(attr, &none);
  posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK);
}

}  // namespace fiber
