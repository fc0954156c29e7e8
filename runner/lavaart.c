/*
 * lavaart: the files a LAVA job boots, published for its worker.
 *
 * The kernel, the initramfs and fresh disk images of the scenario go into
 * a directory of their own named by a 256-bit token: with [lava]
 * artifacts_dir, a directory the operator serves at artifacts_url;
 * otherwise beside the job's variant, served by bugbridged at
 * /artifacts/<token>/ while its artifacts row lives (it expires after the
 * LAVA job could have ended).  Withdrawn when the boot ends.
 */
#include "run.h"
#include "paths.h"
#include "qemu.h"
#include "lava.h"
#include "scenario.h"
#include "buf.h"
#include "db.h"
#include "config.h"
#include "hex.h"
#include "privacy.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define ART_MAX (1ull << 30)

/* private: made for a private job, whose LAVA job is not public (0024_web_export.sql) */
DB_SQL(sql_lava_art_add,
       "INSERT INTO artifacts (token, job_id, dir, expires_at, private) VALUES (?, ?, ?, ?, ?)");
DB_SQL(sql_lava_art_del, "DELETE FROM artifacts WHERE token = ?");

/*
 * Copy one file for the worker through lib/safefile: the kernel is the
 * variant's own copy of the build's bzImage (boot.c), and even so nothing
 * published follows a link or reads a FIFO.
 */
static int copy_file(const char *from, const char *to)
{
	int in = safe_open_path(from, SAFE_READ), out = -1, ret = -1;

	if (in >= 0)
		out = safe_open_path(to, SAFE_WRITE);
	if (out >= 0 && !safe_copy_fd(in, out, ART_MAX))
		ret = 0;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ret = -1;
	return ret;
}

/* Is the job private, as far as the database can tell (a failed lookup: public, served less)? */
static int job_private_known(struct run *r)
{
	bool failed = false, priv = job_is_private(r->db, r->job->id, &failed);

	return priv && !failed;
}

int lava_art_publish(struct run *r, const struct variant *v, const struct boot *b,
		     long long lava_row, struct lava_art *a, struct buf *url)
{
	unsigned char rnd[32];
	struct buf path = BUF_INIT, err = BUF_INIT;
	const char *art_dir = cfg_str("lava.artifacts_dir"), *art_url = cfg_str("lava.artifacts_url");
	int ret = -1;

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		buf_addf(&r->infra, "no random bytes for an artifacts token: %s", strerror(errno));
		return -1;
	}
	hex_encode(a->token, rnd, sizeof(rnd));
	if (*art_dir)
		buf_addf(&a->dir, "%s/%s", art_dir, a->token);
	else
		buf_addf(&a->dir, "%s/lava-%lld", v->dir, lava_row);
	if (*art_url)
		buf_addf(url, "%s/%s", art_url, a->token);
	else
		buf_addf(url, "%s/artifacts/%s", cfg_str("web.base_url"), a->token);
	while (url->len > 1 && url->ptr[url->len - 1] == '/' && url->ptr[url->len - 2] == '/')
		buf_setlen(url, url->len - 1);
	if (mkdir_p(a->dir.ptr, 0755)) {
		buf_addf(&r->infra, "cannot create '%s': %s", a->dir.ptr, strerror(errno));
		goto out;
	}
	buf_addf(&path, "%s/bzImage", a->dir.ptr);
	if (copy_file(b->kernel, path.ptr))
		goto fail;
	buf_reset(&path);
	buf_addf(&path, "%s/initramfs.cpio", a->dir.ptr);
	if (copy_file(b->initrd, path.ptr))
		goto fail;
	if (scenario_make_images(b->sb, a->dir.ptr, &err)) {
		buf_addf(&r->infra, "cannot make the disk images: %s", err.ptr);
		goto out;
	}
	ret = *art_dir ? 0 : -2;
	goto out;
fail:
	buf_addf(&r->infra, "cannot publish '%s' for LAVA: %s", path.ptr, safe_strerror(errno));
out:
	buf_release(&path);
	buf_release(&err);
	if (ret == -2) {	/* bugbridged serves the directory while the row lives */
		sqlite3_stmt *st = db_stmt(r->db, sql_lava_art_add);
		ret = -1;
		if (st) {
			db_bind_text(st, 1, a->token);
			sqlite3_bind_int64(st, 2, r->job->id);
			db_bind_text(st, 3, a->dir.ptr);
			sqlite3_bind_int64(st, 4, (sqlite3_int64)time(NULL) +
					   cfg_int("lava.queue_timeout") + cfg_int("lava.job_timeout") + 600);
			sqlite3_bind_int(st, 5, job_private_known(r));
			if (!db_step_done(r->db, st)) {
				a->row = true;
				ret = 0;
			}
		}
		if (ret)
			buf_addstr(&r->infra, "cannot record the artifacts for LAVA");
	}
	return ret;
}

void lava_art_withdraw(struct run *r, struct lava_art *a)
{
	sqlite3_stmt *st;

	if (a->row && (st = db_stmt(r->db, sql_lava_art_del))) {
		db_bind_text(st, 1, a->token);
		db_step_done(r->db, st);
	}
	if (a->dir.len && !getenv("BUGBRIDGE_KEEP_TREES"))
		remove_tree(a->dir.ptr);
}
