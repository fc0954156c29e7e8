/*
 * privsep_serve: bugbridged's side of the conversation with the dashboard's
 * process (see privsep.h).  Everything in a message is checked here again,
 * as if the dashboard had been taken over: the exact size and type, the
 * strings' terminators, the caller's token (against [web] token, which the
 * dashboard holds only as a hash), a job spec's every field, a log's name
 * against job_logs.h's pattern, and whether the job is private and the
 * caller may see it.  The answers carry only what the request needs, and
 * each carries its request's id back (privsep.h).
 *
 * Test hook: BUGBRIDGE_TEST_PRIVSEP_DELAY=JOB:SECONDS makes bugbridged
 * sleep SECONDS before it answers the first request for a log of job JOB
 * (logged as a warning), so that the dashboard gives up on that request
 * first, as it would behind a slow disk; tests/t4075 uses it.  Nothing
 * else reads it.
 */
#include "privsep.h"
#include "xalloc.h"
#include "config.h"
#include "job_logs.h"
#include "job_queue.h"
#include "log.h"
#include "privacy.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

DB_SQL(sql_ps_candidate_bug, "SELECT bug_id FROM candidates WHERE id = ?");
DB_SQL(sql_ps_log_dir, "SELECT ifnull(log_dir, '') FROM jobs WHERE id = ?");

static int send_reply(int sock, struct ps_reply *r, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*r) ? 0 : -1;
}

static void answer(struct ps_reply *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void answer(struct ps_reply *r, int status, const char *fmt, ...)
{
	va_list ap;

	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
}

enum caller { CALLER_ANONYMOUS, CALLER_TOKEN };

/* Who asks: the token holder when auth is [web] token (compared as hashes, in constant time). */
static enum caller caller_of(const struct ps_msg *m)
{
	struct buf token = BUF_INIT, err = BUF_INIT;
	unsigned char a[SHA256_LEN], b[SHA256_LEN], diff = 0;
	enum caller who = CALLER_ANONYMOUS;
	struct sha256 h;

	if (!m->auth[0])
		return who;
	if (config_secret(cfg, "web.token", &token, &err)) {
		log_error("http: %s", err.ptr);
	} else if (token.len) {
		sha256_init(&h);
		sha256_update(&h, m->auth, strlen(m->auth));
		sha256_final(&h, a);
		sha256_init(&h);
		sha256_update(&h, token.ptr, token.len);
		sha256_final(&h, b);
		for (size_t i = 0; i < SHA256_LEN; i++)
			diff |= a[i] ^ b[i];
		if (!diff)
			who = CALLER_TOKEN;
	}
	if (who == CALLER_ANONYMOUS)
		log_warn("http: the dashboard passed on a request with a wrong token");
	if (token.alloc)
		memset(token.ptr, 0, token.len);
	buf_release(&token);
	buf_release(&err);
	return who;
}

/*
 * The account a caller's job is queued for, which decides the queue's
 * budgets for it (job_budget.h): the token holder is the operator (""),
 * whose jobs count against no budget, like `bugbridge job add`'s (the
 * queue's choice: [queue] account_jobs_per_day).  An anonymous caller
 * queues nothing.
 */
static const char *caller_account(enum caller who)
{
	return who == CALLER_TOKEN ? "" : NULL;
}

/* May the caller see job m->job_id (its logs)?  0, or an HTTP status already answered. */
static int may_see_job(struct db *db, const struct ps_msg *m, struct ps_reply *r)
{
	bool failed, priv = job_is_private(db, m->job_id, &failed);

	if (failed)
		return answer(r, 500, "database error"), 500;
	if (priv && (private_bugs_skipped() || caller_of(m) != CALLER_TOKEN))
		return answer(r, 404, "no job %lld", (long long)m->job_id), 404;
	return 0;
}

static void job_add(struct db *db, const struct ps_msg *m, struct ps_reply *r)
{
	static const char *const kinds[] = { "test", "retest", "bisect" };
	struct job_spec spec = { .caller_answers = true };	/* the HTTP answer says it */
	struct job_admission adm;
	enum caller who;
	sqlite3_int64 bug = 0;
	bool priv, failed;
	int rc;

	if (m->kind > PS_KIND_BISECT || m->bug_id < 0 || m->candidate_id < 0 ||
	    m->patch_count < 0 || m->patch_count > 1000 || m->with_baseline > 1 ||
	    (!m->bug_id && !m->candidate_id))
		return answer(r, 400, "bad job request");
	spec.kind = kinds[m->kind];
	spec.bug_id = m->bug_id;
	spec.candidate_id = m->candidate_id;
	spec.patch_count = m->patch_count;
	spec.with_baseline = m->with_baseline;
	who = caller_of(m);
	spec.account = caller_account(who);
	if (!spec.account)
		return answer(r, 401, "queueing a job needs the API token");
	if (spec.candidate_id) {
		rc = db_id_row(db, sql_ps_candidate_bug, spec.candidate_id, &bug);
		if (rc < 0)
			return answer(r, 500, "database error");
		if (!rc)
			return answer(r, 404, "no candidate %lld", (long long)spec.candidate_id);
		if (spec.bug_id && spec.bug_id != bug)
			return answer(r, 404, "candidate %lld belongs to bug %lld",
				      (long long)spec.candidate_id, (long long)bug);
		spec.bug_id = bug;
	}
	priv = bug_is_private(db, spec.bug_id, &failed);
	if (failed)
		return answer(r, 500, "database error");
	if (priv && private_bugs_skipped())
		return answer(r, 409, "bug %lld is private and [tracker] private_bugs = skip",
			      (long long)spec.bug_id);
	if (job_submit(db, &spec, &adm))
		return answer(r, 500, "cannot queue the job");
	if (adm.admit == JOB_REFUSED)
		return answer(r, 429, "not queued: %s", adm.why);
	r->id = adm.id;
	log_info("http: job %lld queued through the API", (long long)adm.id);
	if (adm.admit == JOB_DEFERRED)
		return answer(r, 201, "queued; it waits: %s", adm.why);
	answer(r, 201, "queued");
}

/* The job's log directory into dir; 0, or an HTTP status already answered. */
static int log_dir_of(struct db *db, const struct ps_msg *m, struct ps_reply *r,
		      struct buf *dir)
{
	sqlite3_stmt *st = db_stmt(db, sql_ps_log_dir);
	int rc;

	if (!st)
		return answer(r, 500, "database error"), 500;
	sqlite3_bind_int64(st, 1, m->job_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		buf_addstr(dir, db_col_text(st, 0));
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return answer(r, 404, "no job %lld", (long long)m->job_id), 404;
	return 0;
}

static int open_log(struct db *db, const struct ps_msg *m, struct ps_reply *r)
{
	struct buf dir = BUF_INIT;
	struct stat sb;
	int dfd = -1, fd = -1;

	if (!job_log_name_ok(m->name)) {
		answer(r, 404, "no such log");
		goto out;
	}
	if (may_see_job(db, m, r) || log_dir_of(db, m, r, &dir))
		goto out;
	if (dir.ptr[0] != '/') {
		answer(r, 404, "job %lld has no logs yet", (long long)m->job_id);
		goto out;
	}
	dfd = open(dir.ptr, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		fd = openat(dfd, m->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		if (errno != ENOENT && errno != ELOOP)
			log_warn("http: job %lld: cannot open log '%s' in '%s': %s",
				 (long long)m->job_id, m->name, dir.ptr, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
		answer(r, 404, "job %lld has no %s", (long long)m->job_id, m->name);
		goto out;
	}
	r->size = (uint64_t)sb.st_size;
	answer(r, 200, "ok");
out:
	if (dfd >= 0)
		close(dfd);
	buf_release(&dir);
	return fd;
}

static int open_artifact(struct db *db, const struct ps_msg *m, struct ps_reply *r)
{
	int fd = artifact_open(db, m->token, m->name, &r->size);

	if (fd == -2)
		answer(r, 500, "database error");
	else if (fd < 0)
		answer(r, 404, "no such file");
	else
		answer(r, 200, "ok");
	return fd < 0 ? -1 : fd;
}

static void list_logs(struct db *db, const struct ps_msg *m, struct ps_reply *r)
{
	struct buf dir = BUF_INIT, text = BUF_INIT;
	char **names;
	int n;

	buf_init(&text, sizeof(r->text) - 1);
	if (may_see_job(db, m, r) || log_dir_of(db, m, r, &dir))
		goto out;
	job_logs_list(dir.ptr, &names, &n);
	/* the names are short and few; a list that would not fit ends early */
	for (int i = 0; i < n; i++)
		if (buf_addf(&text, "%s\n", names[i]))
			break;
	job_logs_free(names, n);
	answer(r, 200, "%s", text.ptr);
out:
	buf_release(&dir);
	buf_release(&text);
}

bool privsep_token_holder(const struct ps_msg *m)
{
	return caller_of(m) == CALLER_TOKEN;
}

static void test_delay_hook(const struct ps_msg *m)
{
	static bool used;
	const char *v = getenv("BUGBRIDGE_TEST_PRIVSEP_DELAY");
	long long job;
	int seconds;

	if (used || !v || m->type != PS_LOG_OPEN || sscanf(v, "%lld:%d", &job, &seconds) != 2 ||
	    job != m->job_id || seconds <= 0)
		return;
	used = true;
	log_warn("http: BUGBRIDGE_TEST_PRIVSEP_DELAY: answering job %lld's log request in %d s",
		 job, seconds);
	sleep((unsigned)seconds);
}

int privsep_answer(struct privsep_server *s, const struct ps_msg *m, struct ps_reply *r)
{
	int fd = -1;

	r->type = m->type;
	r->seq = m->seq;
	test_delay_hook(m);
	switch (m->type) {
	case PS_JOB_ADD:
		job_add(s->db, m, r);
		break;
	case PS_LOG_OPEN:
		fd = open_log(s->db, m, r);
		break;
	case PS_LOG_LIST:
		list_logs(s->db, m, r);
		break;
	case PS_ARTIFACT_OPEN:
		fd = open_artifact(s->db, m, r);
		break;
	case PS_SYNC:
		if (s->exp && web_export_sync(s->exp))
			answer(r, 500, "the dashboard's database is behind");
		else
			answer(r, 200, "ok");
		break;
	case PS_RENDER:
		fd = privsep_render_answer(s, m, r);
		break;
	default:
		answer(r, 400, "no such request");
	}
	return fd;
}

int privsep_serve(int sock, struct privsep_server *s, bool *ready)
{
	struct ps_msg *m = xmalloc(sizeof(*m));
	struct ps_reply *r = NULL;
	ssize_t n = recv(sock, m, sizeof(*m), MSG_TRUNC);
	int fd = -1, ret = 1;

	if (n <= 0) {
		ret = !n ? 0 : errno == EINTR || errno == EAGAIN ? 1 : -1;
		goto out;
	}
	if (n != (ssize_t)sizeof(*m) || m->type < PS_READY || m->type > PS_RENDER) {
		log_error("http: dropped a malformed message from the dashboard (%zd bytes)", n);
		goto out;
	}
	m->name[sizeof(m->name) - 1] = '\0';
	m->token[sizeof(m->token) - 1] = '\0';
	m->auth[sizeof(m->auth) - 1] = '\0';
	m->method[sizeof(m->method) - 1] = '\0';
	m->path[sizeof(m->path) - 1] = '\0';
	if (m->args_len > sizeof(m->args))
		m->args_len = 0;
	if (m->type == PS_READY) {
		*ready = true;
		goto out;
	}
	r = xcalloc(1, sizeof(*r));
	fd = privsep_answer(s, m, r);
	if (send_reply(sock, r, fd))
		ret = -1;
	if (fd >= 0)
		close(fd);
out:
	free(r);
	free(m);
	return ret;
}
