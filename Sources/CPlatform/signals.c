// Signal forwarding for the command-line programs' cleanup (JSONAPICommandSupport/Cleanup).
//
// The handler only writes the signal's number, one byte, to a pipe: write(2) is
// async-signal-safe, and everything else (removing temporary files and directories, then
// dying of the same signal) happens on an ordinary thread that reads the pipe.
#include "cplatform.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t forward_fd = -1;

/// The signals that stop a run (and have its temporary files removed first).
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void forward(int sig) {
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    int fd = forward_fd;
    if (fd >= 0) {
        ssize_t ignored = write(fd, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int jsonapi_forward_signals(int fd) {
    forward_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        if (sigaction(stop_signals[i], &action, NULL) != 0) return -1;
    }
    // A parent may hand its blocked mask down through exec (a test runner's worker thread
    // does): then the signals would stay pending for ever. The calling thread takes them.
    return jsonapi_unblock_stop_signals();
}

int jsonapi_unblock_stop_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) sigaddset(&set, stop_signals[i]);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL) == 0 ? 0 : -1;
}

void jsonapi_die_of_signal(int sig) {
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}
