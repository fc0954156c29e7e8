/*
 * paths: where the runner keeps things and finds kernel-patches/, plus the
 * few file-system helpers the other runner files share.
 */
#include "paths.h"
#include "run.h"
#include "safefile.h"
#include "buf.h"
#include "child.h"
#include "cachedir.h"
#include "config.h"
#include "log.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int mkdir_p(const char *path, int mode)
{
	struct buf p = BUF_INIT;
	int ret = 0;

	buf_addstr(&p, path);
	for (char *s = p.ptr + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = '\0';
			if (mkdir(p.ptr, mode) && errno != EEXIST) {
				int e = errno;
				ret = error("cannot create '%s': %s", p.ptr, strerror(e));
				errno = e;	/* for the caller's message */
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	buf_release(&p);
	return ret;
}

int remove_tree(const char *path)
{
	const char *argv[] = { "rm", "-rf", "--one-file-system", path, NULL };
	struct child ch = CHILD_INIT;

	if (!path_exists(path))
		return 0;
	ch.argv = argv;
	if (child_run(&ch) || ch.exit_code)
		return error("cannot remove '%s'", path);
	return 0;
}

void hash_file(struct sha256 *ctx, const char *name, const char *path)
{
	struct buf b = BUF_INIT;

	sha256_update(ctx, name, strlen(name) + 1);
	if (!buf_read_file(&b, path))
		sha256_update(ctx, b.ptr, b.len);
	buf_release(&b);
}

int runner_cache_dir(struct buf *out)
{
	if (cache_dir(out))
		return -1;
	return mkdir_p(out->ptr, 0755);
}

/* The source tree this binary was built in, if it is one: up to 3 levels. */
static bool from_source_tree(struct buf *out)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct buf probe = BUF_INIT;
	bool found = false;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (int up = 0; up < 4 && !found; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			break;
		*slash = '\0';
		buf_reset(&probe);
		buf_addf(&probe, "%s/kernel-patches/configs/base.config", exe);
		if (path_exists(probe.ptr)) {
			buf_reset(out);
			buf_addf(out, "%s/kernel-patches", exe);
			found = true;
		}
	}
	buf_release(&probe);
	return found;
}

void runner_patches_path(struct buf *out)
{
	const char *dir = cfg_str("runner.patches_dir"), *env = getenv("BUGBRIDGE_DATADIR");

	buf_reset(out);
	if (*dir)
		buf_addstr(out, dir);
	else if (env && *env)
		buf_addf(out, "%s/kernel-patches", env);
	else if (!from_source_tree(out))
		buf_addstr(out, BB_DATADIR "/kernel-patches");
}

int runner_patches_dir(struct buf *out)
{
	runner_patches_path(out);
	if (!path_exists(out->ptr))
		return error("runner: kernel-patches directory '%s' does not exist", out->ptr);
	return 0;
}

/* path relative to the job dir, or NULL (errno EXDEV) when it is not below it. */
static const char *job_rel(struct run *r, const char *path)
{
	const char *rel = r->jobdir ? safe_rel(r->jobdir, path) : NULL;

	if (!rel)
		errno = EXDEV;
	return rel;
}

int job_open(struct run *r, const char *path, enum safe_how how)
{
	const char *rel = job_rel(r, path);

	return rel ? safe_open(r->jobdir, rel, how) : -1;
}

int job_read(struct run *r, const char *path, size_t max, struct buf *out)
{
	const char *rel = job_rel(r, path);

	return rel ? safe_read(r->jobdir, rel, max, out) : -1;
}

int job_write(struct run *r, const char *path, const void *data, size_t len)
{
	const char *rel = job_rel(r, path);

	return rel ? safe_write(r->jobdir, rel, data, len) : -1;
}

int job_utimens(struct run *r, const char *path, const struct timespec times[2])
{
	const char *rel = job_rel(r, path);

	return rel ? safe_utimens(r->jobdir, rel, times) : -1;
}
