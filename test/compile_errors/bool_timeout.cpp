// expect: fiber::Lock::acquire(bool)
// A bool is no number of seconds: multiprocessing's acquire(True) waits for
// ever, so acquire(true) must not read as a wait of 1 s.
#include <fiber/lock.hpp>

void f(fiber::Lock& lock) { (void)lock.acquire(true); }
