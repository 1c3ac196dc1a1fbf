#pragma once
#include <stddef.h>

// Guards read-only file mappings against the file shrinking under them (docs/logs.md, "Files
// are mapped"; docs/compiled-fences.md, "Memory"). Touching a page of a mapping past the file's new end raises
// SIGBUS; within a guarded range, the handler maps a page of zeros there instead and marks
// the range, so the reader continues, notices the mark and reports the file as changed.
// A SIGBUS anywhere else goes to the handler that was installed before, or kills the process
// as it would have.

// Guards [start, start + length). Returns the slot to pass to the functions below, or -1
// when every slot is taken or the handler cannot be installed (then the caller reads the
// file instead of mapping it).
int geofence_guard_add(void *start, size_t length);

// Stops guarding a slot (before the range is unmapped).
void geofence_guard_remove(int slot);

// Whether a page of the slot's range was replaced by zeros since it was added.
int geofence_guard_hit(int slot);
