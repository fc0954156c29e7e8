/*
 * kcache: kernels kept to be booted again.  See kcache.h.
 */
#include "kcache.h"
#include "run.h"
#include "paths.h"
#include "stage.h"
#include "config.h"
#include "hex.h"
#include "log.h"
#include "sha256.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

bool kcache_on(const struct run *r, const struct variant *v)
{
	return cfg_bool("runner.reuse_kernels") && !v->coverage && r->npatches > 0 &&
	       !r->job->with_baseline;
}

/* <cache>/kernels/<sha256 of the seed key, each patch and controller fragment> */
static void kcache_dir(const struct run *r, struct buf *dir)
{
	struct sha256 ctx;
	unsigned char d[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];

	sha256_init(&ctx);
	sha256_update(&ctx, r->seed_key, strlen(r->seed_key) + 1);
	for (int i = 0; i < r->npatches; i++) {
		hash_file(&ctx, r->patches[i].name, r->patches[i].path);
	}
	/* the controllers' drivers: [runner] controllers may choose others for the same patches */
	for (int i = 0; i < r->nconfigs; i++) {
		struct buf path = BUF_INIT;

		buf_addf(&path, "%s/configs/%s.config", r->patches_dir, r->configs[i]);
		hash_file(&ctx, r->configs[i], path.ptr);
		buf_release(&path);
	}
	sha256_final(&ctx, d);
	hex_encode(hex, d, SHA256_LEN);
	buf_addf(dir, "%s/kernels/%s", r->cache, hex);
}

/* Write b to path; 0 or -1 (errno set). */
static int write_whole(const struct buf *b, const char *path)
{
	FILE *f = fopen(path, "wbe");
	int ret;

	if (!f)
		return -1;
	ret = fwrite(b->ptr, 1, b->len, f) == b->len ? 0 : -1;
	if (fclose(f))
		ret = -1;
	return ret;
}

/* Copy the file from to the new file to; 0 or -1 (errno set). */
static int copy_whole(const char *from, const char *to)
{
	struct buf text = BUF_INIT;
	int ret = buf_read_file(&text, from) ? -1 : write_whole(&text, to);

	buf_release(&text);
	return ret;
}

int kcache_find(struct run *r, struct variant *v)
{
	struct buf dir = BUF_INIT, image = BUF_INIT, note = BUF_INIT;
	int ret = 0;

	kcache_dir(r, &dir);
	buf_addf(&image, "%s/arch/x86/boot/bzImage", dir.ptr);
	if (!path_exists(image.ptr))
		goto out;
	if (mkdir_p(v->dir, 0755)) {
		buf_addf(&r->infra, "cannot create '%s': %s", v->dir, strerror(errno));
		ret = -1;
		goto out;
	}
	/* boot.c boots <variant dir>/bzImage when it is there: a copy, ours */
	buf_addf(&note, "%s/bzImage", v->dir);
	if (copy_whole(image.ptr, note.ptr)) {
		buf_addf(&r->infra, "cannot copy the kept kernel to '%s': %s", note.ptr,
			 strerror(errno));
		ret = -1;
		goto out;
	}
	utimes(dir.ptr, NULL);		/* the newest are kept */
	stage_begin(r, v, "build");
	buf_reset(&note);
	buf_addf(&note, "reused the kernel built for the same base, config, harness and"
		 " patches (%s)", strrchr(dir.ptr, '/') + 1);
	stage_end(r, "skipped", note.ptr);
	ret = 1;
out:
	buf_release(&dir);
	buf_release(&image);
	buf_release(&note);
	return ret;
}

/* Drop all but the KCACHE_KEEP newest kernels of <cache>/kernels. */
static void kcache_prune(const char *top)
{
	struct { char *path; time_t t; } e[64];
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *dp = opendir(top);

	if (!dp)
		return;
	while ((de = readdir(dp)) && n < 64) {
		struct buf p = BUF_INIT;

		if (de->d_name[0] == '.')
			continue;
		buf_addf(&p, "%s/%s", top, de->d_name);
		if (stat(p.ptr, &st)) {
			buf_release(&p);
			continue;
		}
		e[n].path = buf_detach(&p, NULL);
		e[n++].t = st.st_mtime;
	}
	closedir(dp);
	for (int kept = 0; kept < KCACHE_KEEP && kept < n; kept++) {
		int newest = kept;
		for (int i = kept + 1; i < n; i++)
			if (e[i].t > e[newest].t)
				newest = i;
		if (newest != kept) {
			char *p = e[kept].path;
			time_t t = e[kept].t;
			e[kept] = e[newest];
			e[newest].path = p;
			e[newest].t = t;
		}
	}
	for (int i = 0; i < n; i++) {
		if (i >= KCACHE_KEEP)
			remove_tree(e[i].path);
		free(e[i].path);
	}
}

void kcache_keep(struct run *r, const struct variant *v)
{
	struct buf dir = BUF_INIT, tmp = BUF_INIT, from = BUF_INIT, to = BUF_INIT, top = BUF_INIT;
	struct buf text = BUF_INIT;

	kcache_dir(r, &dir);
	buf_addf(&top, "%s/kernels", r->cache);
	/* another runner may keep the same kernel at once: each writes its own
	 * temporary directory, the first rename wins */
	buf_addf(&tmp, "%s.tmp%ld", dir.ptr, (long)getpid());
	buf_addf(&to, "%s/arch/x86/boot", tmp.ptr);
	buf_addf(&from, "%s/bzImage", v->dir);
	if (path_exists(dir.ptr) || mkdir_p(to.ptr, 0755) || buf_read_file(&text, from.ptr))
		goto out;
	buf_addstr(&to, "/bzImage");
	if (write_whole(&text, to.ptr) || rename(tmp.ptr, dir.ptr)) {
		log_warn("runner: cannot keep the kernel in '%s': %s", dir.ptr, strerror(errno));
		goto out;
	}
	kcache_prune(top.ptr);
out:
	if (path_exists(tmp.ptr))
		remove_tree(tmp.ptr);
	buf_release(&dir);
	buf_release(&tmp);
	buf_release(&from);
	buf_release(&to);
	buf_release(&top);
	buf_release(&text);
}
