/*
 * wfile: the one way to write a whole file from memory.
 *
 *   write_file(path, data, len, WF_ATOMIC | WF_SYNC)
 *
 * WF_ATOMIC: written to a temporary file beside path and renamed over it,
 * so a reader (another runner, the next job) sees the old file or the new
 * one, never half of it, and a link at path is replaced, never followed.
 * WF_SYNC: the data (and with WF_ATOMIC the rename) reach the disk before
 * the call returns: for files whose presence later runs trust (a base's
 * version, which says the base was extracted whole).
 * Without WF_ATOMIC the file is truncated and written in place
 * (O_NOFOLLOW).  0, or -1 with errno set and no temporary file left.
 */
#ifndef BB_WFILE_H
#define BB_WFILE_H

#include <stddef.h>

enum { WF_ATOMIC = 1, WF_SYNC = 2 };

int write_file(const char *path, const void *data, size_t len, int flags);

#endif
