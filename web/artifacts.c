/*
 * artifacts: "/artifacts/<token>/<name>", the files a LAVA worker fetches
 * for one boot (the kernel, the initramfs, the disk images).
 *
 * The runner publishes them (runner/artifacts.c writes an `artifacts` row
 * naming a directory); this file only serves them, and only while the row
 * exists (the runner deletes it when the LAVA job ends), its expiry has not
 * passed and the job is running.  The dashboard's process checks the
 * request and asks bugbridged (privsep.h), which checks it again, looks
 * the token up (whatever bug the job is for: the token is the capability)
 * and opens the file (artifact_open), unless the job turned private since
 * the token was made.  The token is 256 random bits, checked as
 * 64 lowercase hex digits before the database is asked; the name must be a
 * plain file name and is opened relative to the directory with O_NOFOLLOW,
 * as a regular file: a symlink planted there leads nowhere.  Anything else
 * is the same 404, so a probe learns nothing about which tokens exist.
 */
#include "page.h"
#include "xalloc.h"
#include "log.h"
#include "privsep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TOKEN_LEN 64

/*
 * A token made for a public job serves only while the job is public: once
 * its bug (or its patch's comment or attachment) turns private, the token
 * is dead here at once, and gone at the next poll (lib/lab_privacy.h).  A
 * private job's token was made for a LAVA job that is not public.
 */
DB_SQL(sql_artifacts_dir,
       "SELECT a.dir FROM artifacts a JOIN jobs j ON j.id = a.job_id"
       " WHERE a.token = ? AND a.expires_at > ? AND j.state = 'running'"
       " AND (a.private OR j.id NOT IN (SELECT id FROM private_job_ids))");

static bool token_ok(const char *s, size_t len)
{
	if (len != TOKEN_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool name_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* The directory of a live token, or NULL; *err -1 on a database error. */
static char *live_dir(struct db *db, const char *token, int *err)
{
	sqlite3_stmt *st = db_stmt(db, sql_artifacts_dir);
	char *dir = NULL;

	*err = 0;
	if (!st) {
		*err = -1;
		return NULL;
	}
	db_bind_text(st, 1, token);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) == SQLITE_ROW)
		dir = xstrdup(db_col_text(st, 0));
	sqlite3_reset(st);
	return dir;
}

int artifact_open(struct db *db, const char *token, const char *name, uint64_t *size)
{
	struct stat sb;
	char *dir = NULL;
	int dfd = -1, fd = -1, err;

	if (!token_ok(token, strlen(token)) || !name_ok(name))
		return -1;
	dir = live_dir(db, token, &err);
	if (err)
		return -2;
	if (dir && *dir == '/')
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		if (dir && errno != ENOENT && errno != ELOOP)
			log_warn("http: cannot open artifact '%s' in '%s': %s", name, dir,
				 strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	} else {
		*size = (uint64_t)sb.st_size;
	}
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return fd;
}

int page_artifact(struct http_request *req, struct http_response *resp)
{
	const char *slash = strchr(req->rest, '/');
	struct ps_msg m = { .type = PS_ARTIFACT_OPEN };
	struct ps_reply *r;
	size_t tlen;
	int fd;

	if (!slash || !token_ok(req->rest, (tlen = (size_t)(slash - req->rest))) ||
	    !name_ok(slash + 1))
		return http_error(resp, 404, "no such file");
	memcpy(m.token, req->rest, tlen);
	memcpy(m.name, slash + 1, strlen(slash + 1) + 1);
	r = xmalloc(sizeof(*r));
	if (privsep_call(&m, r, &fd)) {
		free(r);
		return -1;
	}
	if (r->status != 200 || fd < 0) {
		if (fd >= 0)
			close(fd);
		free(r);
		return http_error(resp, 404, "no such file");
	}
	resp->fd = fd;
	resp->fd_size = (size_t)r->size;
	resp->content_type = "application/octet-stream";
	free(r);
	return 0;
}
