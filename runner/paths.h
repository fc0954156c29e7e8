/*
 * paths: where the runner's things live (the cache dir, kernel-patches) and
 * the few file-system helpers every stage uses.
 */
#ifndef BB_PATHS_H
#define BB_PATHS_H

#include <stdbool.h>
#include "buf.h"
#include "safefile.h"

/* The cache dir (lib/cachedir.h), created if missing. */
int runner_cache_dir(struct buf *out);
/*
 * The kernel-patches directory: [runner] patches_dir, else
 * $BUGBRIDGE_DATADIR/kernel-patches, else the source tree the binary was built
 * in (the directory above its build dir holding kernel-patches/), else
 * BB_DATADIR/kernel-patches.  -1 (logged) when it does not exist.
 */
int runner_patches_dir(struct buf *out);
/* Where runner_patches_dir looks, whether or not it exists. */
void runner_patches_path(struct buf *out);
/* mkdir -p */
int mkdir_p(const char *path, int mode);
/* rm -rf through a child (trees are large; no recursion here). */
int remove_tree(const char *path);
bool path_exists(const char *path);
/*
 * A file's name and bytes folded into ctx (a missing file: its name only).
 * The name is the caller's (relative to kernel-patches, say), never the
 * path it was read from: a key made of it is the same for the same content
 * under another prefix, another checkout or after an upgrade.
 */
struct sha256;
void hash_file(struct sha256 *ctx, const char *name, const char *path);

/*
 * A file under the job's dir (an absolute path below r->jobdir) through
 * lib/safefile: no symlink on the way below the job dir, regular files only,
 * reads capped at max.  -1 and errno (safe_strerror() words it); EXDEV for a
 * path not below the job dir.
 */
struct run;
int job_open(struct run *r, const char *path, enum safe_how how);
int job_read(struct run *r, const char *path, size_t max, struct buf *out);
int job_write(struct run *r, const char *path, const void *data, size_t len);
/* safe_utimens on it (times NULL: now). */
int job_utimens(struct run *r, const char *path, const struct timespec times[2]);

#endif
