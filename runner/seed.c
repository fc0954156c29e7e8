/*
 * seed: what a seed build was made from, and why none fits a job.
 *
 * The seed key (keys.c) hashes the base, its kernel version, the
 * config fragments and the harness patches, so a runner whose ingredients
 * differ in any way finds no seed and builds the kernel in full (twice for
 * a first job with a baseline).  To say why, the runner keeps beside each
 * seed <cache>/seed/<key>/ a file <key>.parts, one "ingredient<TAB>value"
 * line each, and when no seed fits, names the ingredients in which the
 * nearest seed differs: another [runner] config_variant, other harness
 * patches, another kernel version or compiler.  Files count by their name
 * in kernel-patches and their bytes, never by where kernel-patches is: the
 * same content installed under another prefix finds the same seed.  A seed kept before the
 * parts were recorded gets them the first time a job uses it.  Each use
 * also touches <key>.parts: when several seeds are equally near, the one
 * used last is named, which is the one the operator is most likely to
 * recognise.
 *
 * One build of a seed at a time: whoever builds the seed of a key (a job,
 * --warm) holds the lock <cache>/seed/.lock-<key> and writes in it who it
 * is.  Another runner that needs the same seed meanwhile waits for the
 * lock, saying so in its job's progress ("waiting for the seed ... that job
 * 12 is building, 40 s so far") and in a note on its build stage, instead
 * of building the same kernel beside it; then it finds the seed there, or
 * (the other build failed) builds it itself.
 */
#include "run.h"
#include "paths.h"
#include "stage.h"
#include "tree.h"
#include "job.h"
#include "buf.h"
#include "config.h"
#include "log.h"
#include "wfile.h"
#include "xalloc.h"
#include "sha256.h"
#include "hex.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The first 16 hex digits of a file's sha256 (its path not included). */
static void file_hex(const char *path, struct buf *out)
{
	struct buf b = BUF_INIT;
	struct sha256 ctx;
	unsigned char d[SHA256_LEN];
	char hex[17];

	sha256_init(&ctx);
	if (buf_read_file(&b, path)) {
		buf_addstr(out, "(missing)");
		buf_release(&b);
		return;
	}
	sha256_update(&ctx, b.ptr, b.len);
	sha256_final(&ctx, d);
	hex_encode(hex, d, 8);
	buf_addstr(out, hex);
	buf_release(&b);
}

void seed_parts(struct run *r, bool coverage, struct buf *out)
{
	const char *variant = cfg_str("runner.config_variant");
	struct buf path = BUF_INIT;

	buf_reset(out);
	buf_addf(out, "base\t%s\nkernel version\t%s\ncompiler\t%s\nconfigs/base.config\t",
		 r->job->base, r->kernel_version, r->compiler);
	buf_addf(&path, "%s/configs/base.config", r->patches_dir);
	file_hex(path.ptr, out);
	buf_addf(out, "\n[runner] config_variant\t%s ", variant);
	buf_reset(&path);
	buf_addf(&path, "%s/configs/%s.config", r->patches_dir, variant);
	file_hex(path.ptr, out);
	for (int i = 0; i < r->nharness; i++) {
		buf_addf(out, "\nharness %s\t", r->harness[i].name);
		file_hex(r->harness[i].path, out);
	}
	if (coverage) {
		buf_addstr(out, "\nconfigs/gcov.config\t");
		buf_reset(&path);
		buf_addf(&path, "%s/configs/gcov.config", r->patches_dir);
		file_hex(path.ptr, out);
	}
	buf_addch(out, '\n');
	buf_release(&path);
}

int seed_parts_save(struct run *r, bool coverage)
{
	struct buf path = BUF_INIT, parts = BUF_INIT;
	int ret = 0;

	buf_addf(&path, "%s/seed/%s.parts", r->cache, coverage ? r->seed_key_gcov : r->seed_key);
	if (path_exists(path.ptr)) {
		/* its time says when a job last used this seed */
		if (utimensat(AT_FDCWD, path.ptr, NULL, 0))
			ret = error("cannot touch '%s': %s", path.ptr, strerror(errno));
		goto out;
	}
	seed_parts(r, coverage, &parts);
	/* another runner sharing the cache may read it meanwhile */
	if (write_file(path.ptr, parts.ptr, parts.len, WF_ATOMIC))
		ret = error("cannot write '%s': %s", path.ptr, strerror(errno));
out:
	buf_release(&path);
	buf_release(&parts);
	return ret;
}

/* The value of ingredient `what` in parts text, into out; false if absent. */
static bool part_value(const char *parts, const char *what, size_t len, struct buf *out)
{
	for (const char *p = parts; *p;) {
		const char *nl = strchrnul(p, '\n'), *tab = memchr(p, '\t', nl - p);

		if (tab && (size_t)(tab - p) == len && !strncmp(p, what, len)) {
			buf_reset(out);
			buf_add(out, tab + 1, nl - tab - 1);
			return true;
		}
		p = *nl ? nl + 1 : nl;
	}
	return false;
}

int seed_parts_diff(const char *ours, const char *theirs, struct buf *out)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	int n = 0;

	buf_reset(out);
	for (int pass = 0; pass < 2; pass++) {
		const char *from = pass ? theirs : ours, *other = pass ? ours : theirs;

		for (const char *p = from; *p;) {
			const char *nl = strchrnul(p, '\n'), *tab = memchr(p, '\t', nl - p);

			if (tab) {
				size_t len = tab - p;
				bool there = part_value(other, p, len, &b);

				part_value(from, p, len, &a);
				if (!there || (!pass && strcmp(a.ptr, b.ptr))) {
					buf_addf(out, "%s%.*s", n ? "; " : "", (int)len, p);
					if (!there)
						buf_addstr(out, pass ? " (only in the seed)"
								     : " (not in the seed)");
					else
						buf_addf(out, " (%s here, %s in the seed)", a.ptr, b.ptr);
					n++;
				}
			}
			p = *nl ? nl + 1 : nl;
		}
	}
	buf_release(&a);
	buf_release(&b);
	return n;
}

static bool used_later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

void seed_explain(struct run *r, struct buf *why)
{
	struct buf dir = BUF_INIT, ours = BUF_INIT, theirs = BUF_INIT, path = BUF_INIT;
	struct buf diff = BUF_INIT, best = BUF_INIT, best_key = BUF_INIT;
	int seeds = 0, best_n = -1;
	struct timespec best_used = { 0, 0 };
	struct dirent *e;
	DIR *d;

	buf_addf(&dir, "%s/seed", r->cache);
	seed_parts(r, false, &ours);
	d = opendir(dir.ptr);
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		int n;

		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp-"))
			continue;
		if (len < 7 || strcmp(e->d_name + len - 6, ".parts")) {
			seeds++;
			continue;
		}
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir.ptr, e->d_name);
		buf_reset(&theirs);
		if (buf_read_file(&theirs, path.ptr) || stat(path.ptr, &st))
			continue;
		n = seed_parts_diff(ours.ptr, theirs.ptr, &diff);
		if (best_n < 0 || n < best_n ||
		    (n == best_n && used_later(&st.st_mtim, &best_used))) {
			best_n = n;
			best_used = st.st_mtim;
			buf_reset(&best);
			buf_addstr(&best, diff.ptr);
			buf_reset(&best_key);
			buf_add(&best_key, e->d_name, len - 6);
		}
	}
	if (d)
		closedir(d);
	buf_reset(why);
	if (!seeds)
		buf_addf(why, "no seed build in %s yet (a cold cache)", dir.ptr);
	else if (best_n < 0)
		buf_addf(why, "none of the %d seed build(s) in %s is for this configuration"
			 " (key %s), and they predate recorded configurations, so which part"
			 " differs is unknown", seeds, dir.ptr, r->seed_key);
	else if (best_n == 0)
		buf_addf(why, "no seed build for this configuration (key %s); the nearest, %s,"
			 " was made from the same recorded ingredients", r->seed_key, best_key.ptr);
	else
		buf_addf(why, "no seed build for this configuration (key %s); the nearest, %s,"
			 " differs in %s", r->seed_key, best_key.ptr, best.ptr);
	buf_release(&dir);
	buf_release(&ours);
	buf_release(&theirs);
	buf_release(&path);
	buf_release(&diff);
	buf_release(&best);
	buf_release(&best_key);
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Who holds the lock, as its holder wrote it ("job 12", "bugbridge-runner --warm"). */
static void holder(int fd, struct buf *out)
{
	char text[128];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	buf_reset(out);
	if (n > 0) {
		text[n] = '\0';
		buf_add(out, text, strcspn(text, "\n"));
	}
	if (!out->len)
		buf_addstr(out, "another runner");
}

int seed_lock(struct run *r, const struct variant *v, int *fd)
{
	struct buf path = BUF_INIT, who = BUF_INIT, text = BUF_INIT;
	const char *key = v->coverage ? r->seed_key_gcov : r->seed_key;
	double start = now_mono(), said = 0;
	int ret = -1;

	*fd = -1;
	buf_addf(&path, "%s/seed", r->cache);
	if (mkdir_p(path.ptr, 0755))
		goto out;
	buf_addf(&path, "/.lock-%s", key);
	*fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0) {
		buf_addf(&r->infra, "cannot open '%s': %s", path.ptr, strerror(errno));
		goto out;
	}
	while (flock(*fd, LOCK_EX | LOCK_NB)) {
		double waited = now_mono() - start;

		if (errno != EWOULDBLOCK && errno != EINTR) {
			buf_addf(&r->infra, "cannot lock '%s': %s", path.ptr, strerror(errno));
			goto out;
		}
		if (!said || waited - said >= 5) {
			holder(*fd, &who);
			buf_reset(&text);
			buf_addf(&text, "%s: build: waiting for the seed of %s (key %s) that %s is"
				 " building, %.0f s so far", v->name, r->job->base, key, who.ptr,
				 waited);
			if (!said) {
				log_info("runner: %s", text.ptr);
				stage_begin(r, (struct variant *)v, "build");
				stage_note(r, text.ptr + strlen(v->name) + strlen(": build: "));
			}
			if (r->job->id) {
				job_progress(r->job, r->db, "build", text.ptr);
			} else if (!said) {
				printf("bugbridge-runner: %s\n", text.ptr);
				fflush(stdout);
			}
			said = waited > 0 ? waited : 0.001;
		}
		if (stage_interrupted(r))
			goto out;
		usleep(500 * 1000);
	}
	if (said)
		log_info("runner: %s: waited %.0f s for the seed build of %s", v->name,
			 now_mono() - start, who.ptr);
	buf_reset(&text);
	if (r->job->id)
		buf_addf(&text, "job %lld\n", (long long)r->job->id);
	else
		buf_addf(&text, "bugbridge-runner --warm (pid %d)\n", (int)getpid());
	if (ftruncate(*fd, 0) || pwrite(*fd, text.ptr, text.len, 0) < 0)
		log_warn("runner: cannot say in '%s' who builds the seed", path.ptr);
	ret = 0;
out:
	if (ret && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	buf_release(&path);
	buf_release(&who);
	buf_release(&text);
	return ret;
}

void seed_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* the next holder writes its own name */
}
