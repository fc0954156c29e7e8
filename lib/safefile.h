/*
 * safefile: the one way to open a file in a tree that untrusted code has
 * had its hands on (a job's tree after a sandboxed step: apply, configure,
 * build, gcov, the guest's output; and the logs beside it).
 *
 * root is a directory we made and trust (a job dir, a log dir); rel a path
 * below it.  The opener refuses
 *   - a symbolic link at ANY component of rel (ELOOP), and a rel that
 *     climbs out of root ("..", an absolute path: EXDEV): openat2 with
 *     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS relative to root, or, where the
 *     kernel has no openat2, the same walk one O_NOFOLLOW component at a time;
 *   - anything but a regular file (a FIFO, a device, a socket: ENXIO),
 *     looked at with O_PATH before a read opens it, and opened O_NONBLOCK
 *     before a write, so that a FIFO never blocks us;
 *   - for a write, a file with other hard links (EMLINK): writing it would
 *     write them;
 *   - for a read, a file larger than the caller's cap (EFBIG).
 * Every function returns -1 with errno set; safe_strerror() words it.
 */
#ifndef BB_SAFEFILE_H
#define BB_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "buf.h"

enum safe_how {
	SAFE_READ,		/* O_RDONLY */
	SAFE_WRITE,		/* O_WRONLY | O_CREAT, truncated once it is known to be safe */
	SAFE_APPEND,		/* O_WRONLY | O_CREAT | O_APPEND */
};

/* An fd for root/rel (close it), or -1 and errno. */
int safe_open(const char *root, const char *rel, enum safe_how how);
/* The whole of root/rel appended to out, if it is at most max bytes. */
int safe_read(const char *root, const char *rel, size_t max, struct buf *out);
/* root/rel made to hold exactly data (created 0644 if missing). */
int safe_write(const char *root, const char *rel, const void *data, size_t len);
/*
 * root/rel's access and modification times set as utimensat(2)'s times
 * (NULL: now), on the regular file reached without a link (futimens on
 * the fd safe_open gives): never a file outside the tree.
 */
int safe_utimens(const char *root, const char *rel, const struct timespec times[2]);
/* Copy what is left of in to out, at most max bytes (EFBIG past it). */
int safe_copy_fd(int in, int out, size_t max);
/* safe_* on an absolute path: its directory is the root (only its last component is the tree's). */
int safe_open_path(const char *path, enum safe_how how);
int safe_read_path(const char *path, size_t max, struct buf *out);
/* path with root and the '/' after it removed; NULL when path is not below root. */
const char *safe_rel(const char *root, const char *path);
/* Words for an errno of the functions above ("a symbolic link is on its path", ...). */
const char *safe_strerror(int err);
/* Tests: take the component-by-component walk even where openat2 works. */
void safe_force_walk(bool on);

#endif
