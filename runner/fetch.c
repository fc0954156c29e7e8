/*
 * fetch: a job's base from the kept series or the archive, and the
 * size-bounded cache of the releases it fetched.  See fetch.h.
 *
 * apt and dpkg-deb are trusted (the archive is signed, as /usr/src's
 * tarballs are) and run as the runner, with the network, outside the
 * build sandbox; nothing of a candidate has run yet when they do.  The
 * package is the one `apt-get download PKG=VERSION` writes in deb_dir,
 * PKG_VERSION_all.deb: one already there is used again, so a deb_dir that
 * outlives the cache (a test's, a shared apt cache) saves the download.
 *
 * Eviction counts what a release brings that nothing else shares: its
 * extracted tree, its package (when deb_dir is the cache's own) and the
 * seed builds made on it (their .parts name the base).  A release some
 * run holds (a shared flock on <name>.lock) is never evicted; the kept
 * series never are.
 */
#include "fetch.h"
#include "bases.h"
#include "config.h"
#include "log.h"
#include "paths.h"
#include "stage.h"
#include "tree.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* deb_dir, and whether it is the cache's own (counted and evicted). */
static bool debs_dir(struct run *r, struct buf *out)
{
	buf_reset(out);
	if (*cfg_str("runner.deb_dir")) {
		buf_addstr(out, cfg_str("runner.deb_dir"));
		return false;
	}
	buf_addf(out, "%s/debs", r->cache);
	return true;
}

/* The package file apt-get download writes for b. */
static void deb_path(const char *dir, const struct base *b, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s/" BASE_PKG "%s_%s_all.deb", dir, b->series, b->version);
}

/* A trusted tool with the job's lease kept; its output appended to base-fetch.log. */
static int run_tool(struct run *r, const char *const *argv, const char *cwd)
{
	struct child ch = CHILD_INIT;
	struct buf log = BUF_INIT, d = BUF_INIT;
	int ret = 0;

	if (r->logs)
		buf_addf(&log, "%s/base-fetch.log", r->logs);
	ch.argv = argv;
	ch.cwd = cwd;
	ch.log_path = r->logs ? log.ptr : NULL;
	if (stage_child(r, &ch) || ch.exit_code) {
		child_describe(&ch, &d);
		ret = error("'%s' failed (exit %d)", d.ptr, ch.exit_code);
	}
	buf_release(&log);
	buf_release(&d);
	return ret;
}

/* The package of release b in deb_dir: there already, or downloaded now. */
static int fetch_deb(struct run *r, const struct base *b, struct buf *deb)
{
	struct buf dir = BUF_INIT, spec = BUF_INIT;
	const char *argv[] = { "apt-get", "download", "-q", NULL, NULL };
	int ret = -1;

	debs_dir(r, &dir);
	deb_path(dir.ptr, b, deb);
	if (path_exists(deb->ptr)) {
		ret = 0;
		goto out;
	}
	if (mkdir_p(dir.ptr, 0755)) {
		buf_addf(&r->infra, "cannot create the package dir '%s'", dir.ptr);
		goto out;
	}
	buf_addf(&spec, BASE_PKG "%s=%s", b->series, b->version);
	argv[3] = spec.ptr;
	log_info("runner: fetching %s from the archive (apt-get download)", spec.ptr);
	if (run_tool(r, argv, dir.ptr) || !path_exists(deb->ptr)) {
		buf_addf(&r->infra, "cannot fetch '%s' from the archive (apt-get download; see"
			 " base-fetch.log)", spec.ptr);
		goto out;
	}
	ret = 0;
out:
	buf_release(&dir);
	buf_release(&spec);
	return ret;
}

int fetch_check(struct run *r)
{
	struct buf tarball = BUF_INIT;
	struct base b;
	bool found = false;
	char **kept;
	int n;

	if (base_parse(r->job->base, &b)) {
		buf_addf(&r->infra, "unknown base '%s' (a base is linux-source-6.12 or"
			 " linux-source-6.1=6.1.170-3)", r->job->base);
		return -1;
	}
	if (base_is_release(&b))
		return 0;
	kept = bases_kept(&n);
	for (int i = 0; i < n; i++)
		found |= !strcmp(kept[i], r->job->base);
	bases_free(kept, n);
	if (!found) {
		base_tarball(b.series, &tarball);
		buf_addf(&r->infra, "base '%s' is not kept by this runner ([runner] bases '%s';"
			 " its tarball '%s' %s)", r->job->base, cfg_str("runner.bases"),
			 tarball.ptr, access(tarball.ptr, R_OK) ? "is not installed" : "is not listed");
	}
	buf_release(&tarball);
	return found ? 0 : -1;
}

int fetch_source(struct run *r, const char *tmp, struct buf *tarball)
{
	const char *argv[] = { "dpkg-deb", "-x", NULL, tmp, NULL };
	struct buf deb = BUF_INIT;
	struct base b;
	int ret = -1;

	if (base_parse(r->job->base, &b))
		return -1;	/* fetch_check said why */
	if (!base_is_release(&b)) {
		base_tarball(b.series, tarball);
		return 0;
	}
	if (fetch_deb(r, &b, &deb) || mkdir_p(tmp, 0755))
		goto out;
	argv[2] = deb.ptr;
	buf_reset(tarball);
	buf_addf(tarball, "%s/usr/src/" BASE_PKG "%s.tar.xz", tmp, b.series);
	if (run_tool(r, argv, NULL) || !path_exists(tarball->ptr)) {
		buf_addf(&r->infra, "'%s' holds no '/usr/src/" BASE_PKG "%s.tar.xz'", deb.ptr,
			 b.series);
		goto out;
	}
	ret = 0;
out:
	buf_release(&deb);
	return ret;
}

int fetch_hold(struct run *r, const char *basedir)
{
	struct buf path = BUF_INIT;
	int fd, ret = -1;

	buf_addf(&path, "%s/%s.lock", basedir, r->job->base);
	fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_SH)) {
		buf_addf(&r->infra, "cannot lock '%s': %s", path.ptr, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	r->base_lock = fd + 1;
	buf_reset(&path);
	buf_addf(&path, "%s/%s.used", basedir, r->job->base);
	fd = open(path.ptr, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		futimens(fd, NULL);	/* its mtime is the LRU order */
		close(fd);
	}
	ret = 0;
out:
	buf_release(&path);
	return ret;
}

void fetch_release_hold(struct run *r)
{
	if (r->base_lock)
		close(r->base_lock - 1);
	r->base_lock = 0;
}

/* ---- sizes ---- */

/* Disk bytes of what at/name holds (recursively, not following links or mounts). */
static long long bytes_at(int at, const char *name, dev_t dev, int depth)
{
	struct stat st;
	long long bytes;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) || (depth && st.st_dev != dev))
		return 0;
	bytes = (long long)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode) || depth > 64)
		return bytes;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return bytes;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			bytes += bytes_at(dirfd(d), e->d_name, st.st_dev, depth + 1);
	closedir(d);
	return bytes;
}

/* Disk bytes under path (0 when it is not there). */
static long long tree_bytes(const char *path)
{
	return bytes_at(AT_FDCWD, path, 0, 0);
}

/* Is the seed whose parts file is at path built on base name? */
static bool seed_of(const char *parts_path, const char *name)
{
	struct buf parts = BUF_INIT;
	bool ret = false;

	if (!buf_read_file(&parts, parts_path) && !strncmp(parts.ptr, "base\t", 5)) {
		const char *v = parts.ptr + 5;
		size_t len = strchrnul(v, '\n') - v;

		ret = len == strlen(name) && !strncmp(v, name, len);
	}
	buf_release(&parts);
	return ret;
}

/* Each seed of name: with remove, removed (and its parts); its bytes. */
static long long seeds_of(struct run *r, const char *name, bool remove)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;
	long long bytes = 0;
	struct dirent *e;
	DIR *d;

	buf_addf(&dir, "%s/seed", r->cache);
	d = opendir(dir.ptr);
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 7 || strcmp(e->d_name + len - 6, ".parts"))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir.ptr, e->d_name);
		if (!seed_of(path.ptr, name))
			continue;
		buf_setlen(&path, path.len - 6);
		bytes += tree_bytes(path.ptr);
		if (remove) {
			remove_tree(path.ptr);
			buf_addstr(&path, ".parts");
			unlink(path.ptr);
		}
	}
	if (d)
		closedir(d);
	buf_release(&dir);
	buf_release(&path);
	return bytes;
}

long long fetch_release_bytes(struct run *r, const char *basedir, const char *name)
{
	struct buf path = BUF_INIT, debs = BUF_INIT;
	struct base b;
	long long bytes;

	buf_addf(&path, "%s/%s", basedir, name);
	bytes = tree_bytes(path.ptr) + seeds_of(r, name, false);
	if (!base_parse(name, &b) && debs_dir(r, &debs)) {
		deb_path(debs.ptr, &b, &path);
		bytes += tree_bytes(path.ptr);
	}
	buf_release(&path);
	buf_release(&debs);
	return bytes;
}

/* ---- eviction ---- */

struct held_base {
	char *name;
	struct timespec used;
	long long bytes;
};

/* The releases in basedir, with their last use and size. */
static int list_releases(struct run *r, const char *basedir, struct held_base **out)
{
	struct buf path = BUF_INIT;
	struct dirent *e;
	DIR *d = opendir(basedir);
	int n = 0;

	*out = NULL;
	while (d && (e = readdir(d))) {
		struct base b;
		struct stat st;

		if (base_parse(e->d_name, &b) || !base_is_release(&b))
			continue;	/* the kept series */
		/* an extracted release, not its .used, .lock, .version or .spare */
		buf_reset(&path);
		buf_addf(&path, "%s/%s.version", basedir, e->d_name);
		if (e->d_type != DT_DIR || !path_exists(path.ptr))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s.used", basedir, e->d_name);
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n].name = xstrdup(e->d_name);
		(*out)[n].used = stat(path.ptr, &st) ? (struct timespec){ 0, 0 } : st.st_mtim;
		(*out)[n].bytes = fetch_release_bytes(r, basedir, e->d_name);
		n++;
	}
	if (d)
		closedir(d);
	buf_release(&path);
	return n;
}

static int by_use(const void *pa, const void *pb)
{
	const struct held_base *a = pa, *b = pb;

	if (a->used.tv_sec != b->used.tv_sec)
		return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
	if (a->used.tv_nsec != b->used.tv_nsec)
		return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Remove release name unless a run holds it; true when it went. */
static bool evict_one(struct run *r, const char *basedir, const char *name)
{
	struct buf path = BUF_INIT, debs = BUF_INIT;
	struct base b;
	bool gone = false;
	int fd;

	buf_addf(&path, "%s/%s.lock", basedir, name);
	fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB))
		goto out;	/* in use: it stays */
	buf_reset(&path);
	buf_addf(&path, "%s/%s.version", basedir, name);
	unlink(path.ptr);	/* first: a half-removed tree is extracted again */
	buf_setlen(&path, path.len - strlen(".version"));
	remove_tree(path.ptr);
	buf_addstr(&path, ".spare");
	remove_tree(path.ptr);
	seeds_of(r, name, true);
	if (!base_parse(name, &b) && debs_dir(r, &debs)) {
		deb_path(debs.ptr, &b, &path);
		unlink(path.ptr);
	}
	buf_reset(&path);
	buf_addf(&path, "%s/%s.used", basedir, name);
	unlink(path.ptr);
	gone = true;
out:
	if (fd >= 0)
		close(fd);	/* the .lock file stays: a waiter may hold it open */
	buf_release(&path);
	buf_release(&debs);
	return gone;
}

void fetch_evict(struct run *r, const char *basedir)
{
	long long bound = cfg_int("runner.release_cache_mb") * 1024LL * 1024, total = 0;
	struct held_base *v;
	int n = list_releases(r, basedir, &v);

	for (int i = 0; i < n; i++)
		total += v[i].bytes;
	if (n > 1)	/* qsort wants an array: none when no release is held */
		qsort(v, n, sizeof(*v), by_use);
	for (int i = 0; i < n && total > bound; i++) {
		if (!strcmp(v[i].name, r->job->base))
			continue;	/* the job's own: it is about to be used */
		if (!evict_one(r, basedir, v[i].name))
			continue;
		total -= v[i].bytes;
		log_info("runner: dropped the release %s (%lld MiB, least recently used):"
			 " releases take %lld MiB of [runner] release_cache_mb %ld",
			 v[i].name, v[i].bytes >> 20, total >> 20, cfg_int("runner.release_cache_mb"));
	}
	if (total > bound)
		log_warn("runner: releases take %lld MiB, over [runner] release_cache_mb %ld:"
			 " the rest are in use", total >> 20, cfg_int("runner.release_cache_mb"));
	for (int i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int fetch_only(struct db *db, const char *base, const volatile sig_atomic_t *stop)
{
	struct job job = JOB_INIT;
	struct run r = { .db = db, .job = &job, .stop = stop };
	struct buf dir = BUF_INIT;
	struct held_base *v = NULL;
	int n = 0, ret = -1;

	job.base = (char *)base;
	buf_init(&r.infra, 4096);
	if (runner_cache_dir(&dir)) {
		buf_addstr(&r.infra, "no usable cache dir");
		goto out;
	}
	r.cache = buf_detach(&dir, NULL);
	if (tree_base_ensure(&r))
		goto out;
	printf("bugbridge-runner: %s (kernel %s) is in %s\n", base, r.kernel_version,
	       r.base_tree);
	buf_addf(&dir, "%s/base", r.cache);
	n = list_releases(&r, dir.ptr, &v);
	if (n > 1)	/* qsort wants an array: none when no release is held */
		qsort(v, n, sizeof(*v), by_use);
	for (int i = n - 1; i >= 0; i--)	/* most recently used first */
		printf("bugbridge-runner: release %s: %lld MiB\n", v[i].name, v[i].bytes >> 20);
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "bugbridge-runner: --fetch failed: %s\n",
			r.infra.len ? r.infra.ptr : "interrupted");
	for (int i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	fetch_release_hold(&r);
	free(r.cache);
	free(r.base_tree);
	free(r.kernel_version);
	buf_release(&dir);
	buf_release(&r.infra);
	return ret;
}
