#include "cli/interrupt.h"

namespace seqflow::cli {
namespace {

std::atomic<bool> interrupted{false};

void OnSignal(int) { interrupted = true; }

}  // namespace

InterruptGuard::InterruptGuard() {
  interrupted = false;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  action.sa_flags = SA_RESETHAND;  // the second signal takes its default course: the process ends
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &old_int_);
  ::sigaction(SIGTERM, &action, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

const std::atomic<bool>* InterruptGuard::flag() { return &interrupted; }

}  // namespace seqflow::cli
