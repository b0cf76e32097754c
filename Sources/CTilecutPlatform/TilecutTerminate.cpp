#include "TilecutPlatform.h"

#include <exception>
#include <new>

namespace {

/* std::terminate's handler: an exception nothing caught, almost always poppler's
 * std::bad_alloc unwinding into C frames. libstdc++ calls it with the exception
 * still current, so `throw;` names it without allocating anything. */
[[noreturn]] void stopped() {
  if (std::current_exception()) {
    try {
      throw;
    } catch (const std::bad_alloc &) {
      tc_library_stopped(TC_STOP_BAD_ALLOC, nullptr);
    } catch (const std::exception &e) {
      tc_library_stopped(TC_STOP_EXCEPTION, e.what());
    } catch (...) {
      tc_library_stopped(TC_STOP_EXCEPTION, nullptr);
    }
  }
  /* std::terminate called with no exception under way (a joinable std::thread
   * destroyed, a pure virtual call): an abort in a library */
  tc_library_stopped(TC_STOP_ABORT, nullptr);
}

} // namespace

extern "C" void tc_install_terminate_handler(void) { (void)std::set_terminate(stopped); }
