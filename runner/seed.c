/*
 * seed: what a seed build was made from, and why none fits a job.
 *
 * The seed key (run.c, make_keys) hashes the base, its kernel version, the
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
 */
#include "run.h"
#include "paths.h"
#include "tree.h"
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
#include <sys/stat.h>

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
