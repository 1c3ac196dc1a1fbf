#include "map_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOTS 64

// A slot is free when its end is 0. Written by the reader threads (add, remove), read by the
// handler on whichever thread faults.
static _Atomic uintptr_t starts[SLOTS];
static _Atomic uintptr_t ends[SLOTS];
static _Atomic int hits[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int installed = 0;
static uintptr_t page_size = 4096;
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *info, void *context) {
    uintptr_t a = (uintptr_t)info->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t s = atomic_load(&starts[i]), e = atomic_load(&ends[i]);
        if (e != 0 && s <= a && a < e) {
            void *page = (void *)(a & ~(page_size - 1));
            // The faulting load runs again on return, and reads zeros.
            if (mmap(page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                atomic_store(&hits[i], 1);
                return;
            }
        }
    }
    // Not a guarded mapping: what would have happened without this handler.
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(sig, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
    } else {
        // The default action, taken when the faulting instruction runs again.
        struct sigaction d;
        memset(&d, 0, sizeof d);
        d.sa_handler = SIG_DFL;
        sigemptyset(&d.sa_mask);
        sigaction(SIGBUS, &d, NULL);
    }
}

int geofence_guard_add(void *start, size_t length) {
    pthread_mutex_lock(&lock);
    if (!installed) {
        long p = sysconf(_SC_PAGESIZE);
        if (p > 0) page_size = (uintptr_t)p;
        struct sigaction a;
        memset(&a, 0, sizeof a);
        a.sa_sigaction = on_sigbus;
        a.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&a.sa_mask);
        if (sigaction(SIGBUS, &a, &previous) != 0) {
            pthread_mutex_unlock(&lock);
            return -1;
        }
        installed = 1;
    }
    int slot = -1;
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&ends[i]) == 0) {
            atomic_store(&hits[i], 0);
            atomic_store(&starts[i], (uintptr_t)start);
            atomic_store(&ends[i], (uintptr_t)start + length);
            slot = i;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return slot;
}

void geofence_guard_remove(int slot) {
    if (slot < 0 || slot >= SLOTS) return;
    pthread_mutex_lock(&lock);
    atomic_store(&ends[slot], 0);
    atomic_store(&starts[slot], 0);
    pthread_mutex_unlock(&lock);
}

int geofence_guard_hit(int slot) {
    if (slot < 0 || slot >= SLOTS) return 0;
    return atomic_load(&hits[slot]);
}
