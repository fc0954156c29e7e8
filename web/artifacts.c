/*
 * artifacts: "/artifacts/<token>/<name>", the files a LAVA worker fetches
 * for one boot (the kernel, the initramfs, the disk images).
 *
 * The runner publishes them (runner/artifacts.c writes an `artifacts` row
 * naming a directory); this file only serves them, and only while the row
 * exists (the runner deletes it when the LAVA job ends), its expiry has not
 * passed and the job is running.  The token is 256 random bits, checked as
 * 64 lowercase hex digits before the database is asked; the name must be a
 * plain file name and is opened relative to the directory with O_NOFOLLOW,
 * as a regular file: a symlink planted there leads nowhere.  Anything else
 * is the same 404, so a probe learns nothing about which tokens exist.
 */
#include "page.h"
#include "xalloc.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TOKEN_LEN 64

DB_SQL(sql_artifacts_dir,
       "SELECT a.dir FROM artifacts a JOIN jobs j ON j.id = a.job_id"
       " WHERE a.token = ? AND a.expires_at > ? AND j.state = 'running'");

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

/* The directory of a live token, or NULL. */
static char *live_dir(struct http_request *req, const char *token, size_t len, int *err)
{
	sqlite3_stmt *st = db_stmt(req->db, sql_artifacts_dir);
	char *dir = NULL;

	*err = 0;
	if (!st) {
		*err = -1;
		return NULL;
	}
	sqlite3_bind_text(st, 1, token, (int)len, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)time(NULL));
	if (sqlite3_step(st) == SQLITE_ROW)
		dir = xstrdup(db_col_text(st, 0));
	sqlite3_reset(st);
	return dir;
}

int page_artifact(struct http_request *req, struct http_response *resp)
{
	const char *slash = strchr(req->rest, '/'), *name;
	struct stat sb;
	char *dir = NULL;
	int dfd = -1, fd = -1, err;

	if (!slash || !token_ok(req->rest, (size_t)(slash - req->rest)) || !name_ok(slash + 1))
		return http_error(resp, 404, "no such file");
	name = slash + 1;
	dir = live_dir(req, req->rest, (size_t)(slash - req->rest), &err);
	if (err)
		return -1;
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
		if (dfd >= 0)
			close(dfd);
		free(dir);
		return http_error(resp, 404, "no such file");
	}
	close(dfd);
	free(dir);
	resp->fd = fd;
	resp->fd_size = (size_t)sb.st_size;
	resp->content_type = "application/octet-stream";
	return 0;
}
