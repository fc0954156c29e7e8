/*
 * lab_privacy: see lab_privacy.h.
 */
#include "lab_privacy.h"
#include "xalloc.h"
#include "config.h"
#include "httpc.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

DB_SQL(sql_lab_revoke,
       "DELETE FROM artifacts WHERE private = 0"
       " AND job_id IN (SELECT id FROM private_job_ids)");
DB_SQL(sql_lab_public,
       "SELECT id, job_id, lava_id FROM lava_jobs WHERE lava_id IS NOT NULL"
       " AND ifnull(visibility, 'public') = 'public'"
       " AND job_id IN (SELECT id FROM private_job_ids) ORDER BY id");
DB_SQL(sql_lab_removed, "UPDATE lava_jobs SET visibility = 'removed' WHERE id = ?");

struct lab_row {
	sqlite3_int64 row, job, lava_id;
};

struct lab {
	struct httpc http;
	struct buf base, auth;
};

static int revoke_tokens(struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_lab_revoke);
	int n;

	if (!st || db_step_done(db, st))
		return error("lab: cannot revoke the artifact tokens of jobs made private: %s",
			     db_errmsg(db));
	n = sqlite3_changes(db->h);
	if (n)
		log_info("lab: revoked %d artifact token%s of jobs made private", n,
			 n == 1 ? "" : "s");
	return 0;
}

/* The public LAVA jobs of private jobs, read before any request is made. */
static int public_rows(struct db *db, struct lab_row **rows, size_t *n)
{
	sqlite3_stmt *st = db_stmt(db, sql_lab_public);
	size_t alloc = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		XGROW(*rows, *n + 1, alloc);
		(*rows)[(*n)++] = (struct lab_row){ sqlite3_column_int64(st, 0),
			sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2) };
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int lab_open(struct lab *l)
{
	struct httpc_opts o = { .connect_timeout = 5, .timeout = 20 };
	struct buf tok = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	buf_init(&l->base, 0);
	buf_init(&l->auth, 0);
	buf_addstr(&l->base, cfg_str("lava.url"));
	while (l->base.len && l->base.ptr[l->base.len - 1] == '/')
		buf_setlen(&l->base, l->base.len - 1);
	if (!l->base.len)
		error("lab: no [lava] url to remove them from");
	else if (config_secret(cfg, "lava.token", &tok, &err) || !tok.len)
		error("lab: no LAVA token to remove them with%s%s", err.len ? ": " : "", err.ptr);
	else if (httpc_init(&l->http, &o, &err))
		error("lab: %s", err.ptr);
	else
		ret = 0;
	if (!ret)
		buf_addf(&l->auth, "Authorization: Token %s", tok.ptr);
	if (tok.alloc)
		memset(tok.ptr, 0, tok.len);
	buf_release(&tok);
	buf_release(&err);
	return ret;
}

/* One request to the lab; its HTTP status, 0 when none came. */
static long lab_call(struct lab *l, const char *method, long long lava_id, const char *what)
{
	const char *headers[] = { l->auth.ptr, NULL };
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf url = BUF_INIT, err = BUF_INIT;
	struct httpc_request req = { .method = method, .headers = headers };
	long status;

	buf_addf(&url, "%s/api/v0.2/jobs/%lld/%s", l->base.ptr, lava_id, what);
	req.url = url.ptr;
	httpc_do(&l->http, &req, &resp, &err);
	status = resp.status;
	if (!status)
		log_warn("lab: %s", err.ptr);
	httpc_response_release(&resp);
	buf_release(&url);
	buf_release(&err);
	return status;
}

/* Cancel (2023.01 takes GET, later versions POST), then delete. */
static int remove_job(struct lab *l, struct db *db, const struct lab_row *r)
{
	sqlite3_stmt *st;
	long status;

	if (lab_call(l, "POST", r->lava_id, "cancel/") == 405)
		lab_call(l, "GET", r->lava_id, "cancel/");
	status = lab_call(l, "DELETE", r->lava_id, "");
	if (status / 100 != 2 && status != 404)
		return error("lab: LAVA job %lld of job %lld, now private, stays public on the lab:"
			     " deleting it gave HTTP %ld (needs a LAVA superuser's token)",
			     (long long)r->lava_id, (long long)r->job, status);
	st = db_stmt(db, sql_lab_removed);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, r->row);
	if (db_step_done(db, st))
		return -1;
	log_info("lab: removed LAVA job %lld of job %lld, now private, from the lab",
		 (long long)r->lava_id, (long long)r->job);
	return 0;
}

int lab_privacy_enforce(struct db *db)
{
	struct lab_row *rows = NULL;
	struct lab l;
	size_t n = 0;
	int ret = revoke_tokens(db);

	if (public_rows(db, &rows, &n))
		ret = error("lab: cannot list the LAVA jobs of jobs made private: %s", db_errmsg(db));
	if (n && lab_open(&l) == 0) {
		for (size_t i = 0; i < n; i++)
			if (remove_job(&l, db, &rows[i]))
				ret = -1;
		httpc_release(&l.http);
	} else if (n) {
		ret = -1;
	}
	if (n) {
		buf_release(&l.base);
		buf_release(&l.auth);
	}
	free(rows);
	return ret;
}
