/*
 * lava: one boot of the suite as a LAVA job ([runner] backend = lava).
 *
 * The runner still applies and builds here; boot.c hands each boot (the
 * full suite of a scenario boot, or one re-run) to lava_boot instead of
 * qemu_boot, and gets back the same things: the guest's console, and
 * whether it timed out or was cancelled.  Verdicts stay boot.c's.
 *
 *   publish   the kernel, the initramfs and fresh disk images in a
 *             directory of their own, named by a 256-bit token: bugbridged
 *             serves it at /artifacts/<token>/ while the artifacts row lives
 *             (or, with [lava] artifacts_dir, a directory the operator serves)
 *   submit    POST /api/v0.2/jobs/; while LAVA does not answer, the boot
 *             waits (lava_jobs.state "waiting") and tries again every
 *             poll_interval, up to submit_wait (0: for as long as it takes).
 *             A POST whose answer was lost (a dropped connection, a 5xx from
 *             a proxy) may have been taken: each job name ends in a random
 *             nonce, and before posting again the runner asks LAVA for a
 *             job of that name and follows it if there is one, so a lost
 *             answer never leaves a second LAVA job booting the same kernel
 *   follow    GET /api/v0.2/jobs/N/ every poll_interval: state and health
 *             go to lava_jobs; a job waiting past queue_timeout for a
 *             device, or running past job_timeout and a minute, is
 *             cancelled and the boot is an infra-error; a bugbridge cancel
 *             (or SIGTERM, or a lost lease) cancels the LAVA job
 *   read      GET /api/v0.2/jobs/N/logs/: kept as <variant>-lava-*.log; its
 *             "target" lines are the console (lavadef.c), kept within
 *             max_console as a local boot's is
 *   judge     lava_judge (lavadef.c): a kernel that never started, or a
 *             lab failure mid-boot, is an infra-error (retried, never the
 *             patch's); a panic or a QEMU exit is the console's to explain
 *
 * The lava_jobs row (schema 0011) is what the job page and the comment show.
 */
#include "lava.h"
#include "run.h"
#include "stage.h"
#include "qemu.h"
#include "console.h"
#include "scenario.h"
#include "lavadef.h"
#include "buf.h"
#include "db.h"
#include "xalloc.h"
#include "config.h"
#include "httpc.h"
#include "log.h"
#include "hex.h"
#include "privacy.h"

#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

DB_SQL(sql_lava_add,
       "INSERT INTO lava_jobs (job_id, attempt, variant, boot, state, created_at, visibility)"
       " VALUES (?, ?, ?, ?, 'waiting', ?, ?)");
DB_SQL(sql_lava_submitted,
       "UPDATE lava_jobs SET lava_id = ?, url = ?, state = 'Submitted', submitted_at = ?"
       " WHERE id = ?");
DB_SQL(sql_lava_state,
       "UPDATE lava_jobs SET state = ?, health = nullif(?, ''), device = nullif(?, '')"
       " WHERE id = ?");
DB_SQL(sql_lava_outcome, "UPDATE lava_jobs SET outcome = ?, finished_at = ? WHERE id = ?");

struct lava {
	struct run *r;
	struct httpc http;
	struct buf base;		/* [lava] url without the final '/' */
	struct buf auth;		/* "Authorization: Token ..." */
	sqlite3_int64 row;		/* lava_jobs.id */
	long long id;			/* LAVA's job id, 0: not submitted */
	char nonce[17];			/* ends the job name: how to find it again */
	struct lava_art art;		/* the published files */
	/* the LAVA job as last seen */
	char state[32], health[32], device[128];
	struct buf failure;
	bool gone;			/* LAVA answered 404: the job was deleted */
};

bool lava_enabled(void)
{
	return !strcmp(cfg_str("runner.backend"), "lava");
}

static double now_real(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* Sleep seconds, keeping the lease; false when the job is to stop. */
static bool nap(struct run *r, long seconds)
{
	for (long i = 0; i < (seconds > 0 ? seconds : 1); i++) {
		if (stage_interrupted(r))
			return false;
		sleep(1);
	}
	return !stage_interrupted(r);
}

/* ---- the lava_jobs row ---- */

/* visibility: the LAVA job's (lib/lab_privacy.h removes it, if public, once it is private) */
static void row_add(struct lava *l, const struct variant *v, const struct boot *b,
		    const char *visibility)
{
	sqlite3_stmt *st = db_stmt(l->r->db, sql_lava_add);
	struct buf name = BUF_INIT;

	if (!st)
		return;
	buf_addstr(&name, b->sb->name);
	if (b->only)
		buf_addf(&name, "/%s", b->only);
	sqlite3_bind_int64(st, 1, l->r->job->id);
	sqlite3_bind_int(st, 2, l->r->job->attempt);
	db_bind_text(st, 3, v->name);
	db_bind_text(st, 4, name.ptr);
	sqlite3_bind_double(st, 5, now_real());
	db_bind_text(st, 6, visibility);
	if (!db_step_done(l->r->db, st))
		l->row = db_last_id(l->r->db);
	buf_release(&name);
}

static void row_submitted(struct lava *l, const char *url)
{
	sqlite3_stmt *st = db_stmt(l->r->db, sql_lava_submitted);

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, l->id);
	db_bind_text(st, 2, url);
	sqlite3_bind_double(st, 3, now_real());
	sqlite3_bind_int64(st, 4, l->row);
	db_step_done(l->r->db, st);
}

static void row_state(struct lava *l)
{
	sqlite3_stmt *st = db_stmt(l->r->db, sql_lava_state);

	if (!st)
		return;
	db_bind_text(st, 1, l->state);
	db_bind_text(st, 2, !strcmp(l->health, "Unknown") ? "" : l->health);
	db_bind_text(st, 3, l->device);
	sqlite3_bind_int64(st, 4, l->row);
	db_step_done(l->r->db, st);
}

static void row_outcome(struct lava *l, const char *outcome)
{
	sqlite3_stmt *st = db_stmt(l->r->db, sql_lava_outcome);

	if (!st)
		return;
	db_bind_text(st, 1, outcome);
	sqlite3_bind_double(st, 2, now_real());
	sqlite3_bind_int64(st, 3, l->row);
	db_step_done(l->r->db, st);
}

/* 64 random bits in hex, the end of the job's name (find_submitted). */
static int make_nonce(struct lava *l)
{
	unsigned char rnd[8];

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		buf_addf(&l->r->infra, "no random bytes for a LAVA job name: %s", strerror(errno));
		return -1;
	}
	hex_encode(l->nonce, rnd, sizeof(rnd));
	return 0;
}

/* ---- talking to LAVA ---- */

static int lava_init(struct lava *l, struct run *r)
{
	struct httpc_opts o = { .connect_timeout = 5, .timeout = 20 };
	struct buf tok = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	memset(l, 0, sizeof(*l));
	l->r = r;
	buf_init(&l->base, 0);
	buf_init(&l->auth, 0);
	buf_init(&l->art.dir, 0);
	buf_init(&l->failure, 0);
	o.max_response = 8 * (size_t)cfg_int("runner.max_console") + (16 << 20);
	buf_addstr(&l->base, cfg_str("lava.url"));
	while (l->base.len && l->base.ptr[l->base.len - 1] == '/')
		buf_setlen(&l->base, l->base.len - 1);
	if (!l->base.len) {
		buf_addstr(&r->infra, "[runner] backend = lava but no [lava] url");
		goto out;
	}
	if (config_secret(cfg, "lava.token", &tok, &err) || !tok.len) {
		buf_addf(&r->infra, "no LAVA token ([lava] token or token_file)%s%s",
			 err.len ? ": " : "", err.ptr);
		goto out;
	}
	buf_addf(&l->auth, "Authorization: Token %s", tok.ptr);
	if (httpc_init(&l->http, &o, &err)) {
		buf_addf(&r->infra, "%s", err.ptr);
		goto out;
	}
	ret = 0;
out:
	buf_release(&tok);
	buf_release(&err);
	return ret;
}

static void lava_release(struct lava *l)
{
	httpc_release(&l->http);
	buf_release(&l->base);
	buf_release(&l->auth);
	buf_release(&l->art.dir);
	buf_release(&l->failure);
}

/* One request: 0 with the answer in resp (any status), -1 none came. */
static int call(struct lava *l, const char *method, const char *path, const char *body,
		struct httpc_response *resp, struct buf *err)
{
	const char *headers[] = { l->auth.ptr, NULL };
	struct buf url = BUF_INIT;
	struct httpc_request req = { .method = method, .headers = headers, .body = body,
				     .body_len = body ? strlen(body) : 0 };
	int ret;

	buf_addf(&url, "%s/api/v0.2/%s", l->base.ptr, path);
	req.url = url.ptr;
	buf_reset(err);
	ret = httpc_do(&l->http, &req, resp, err);
	buf_release(&url);
	return ret;
}

/* Is the answer LAVA's considered refusal (4xx but timeouts and rate limits)? */
static bool refused(const struct httpc_response *resp)
{
	return resp->status >= 400 && resp->status < 500 && resp->status != 408 &&
	       resp->status != 429;
}

static long long first_job_id(const char *body)
{
	json_object *root = json_tokener_parse(body), *ids, *id;
	long long ret = 0;

	if (root && json_object_object_get_ex(root, "job_ids", &ids) &&
	    json_object_is_type(ids, json_type_array) && json_object_array_length(ids) > 0 &&
	    (id = json_object_array_get_idx(ids, 0)))
		ret = json_object_get_int64(id);
	json_object_put(root);
	return ret;
}

/*
 * The LAVA job whose name ends in our nonce: its id, 0 when LAVA has none,
 * -1 when LAVA did not answer (the nonce is hex: no escaping needed).
 */
static long long find_submitted(struct lava *l)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf err = BUF_INIT, path = BUF_INIT;
	json_object *root = NULL, *results, *job, *id;
	long long ret = -1;

	buf_addf(&path, "jobs/?description__endswith=%s", l->nonce);
	if (call(l, "GET", path.ptr, NULL, &resp, &err) || resp.status != 200 ||
	    !(root = json_tokener_parse(resp.body.ptr)) ||
	    !json_object_object_get_ex(root, "results", &results) ||
	    !json_object_is_type(results, json_type_array))
		goto out;
	ret = 0;
	if (json_object_array_length(results) > 0 &&
	    (job = json_object_array_get_idx(results, 0)) &&
	    json_object_object_get_ex(job, "id", &id))
		ret = json_object_get_int64(id);
out:
	json_object_put(root);
	httpc_response_release(&resp);
	buf_release(&err);
	buf_release(&path);
	return ret;
}

enum submitted {
	SUBMIT_TAKEN,		/* l->id set */
	SUBMIT_AGAIN,		/* not now: wait and try again (err says why) */
	SUBMIT_REFUSED,		/* for good (l->r->infra says why) */
};

/*
 * One try at handing LAVA the job.  *maybe_taken: an earlier POST may have
 * reached LAVA though its answer did not reach us.
 */
static enum submitted submit_once(struct lava *l, json_object *o, bool *maybe_taken,
				  struct buf *err)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	enum submitted ret = SUBMIT_AGAIN;
	int rc;

	if (*maybe_taken) {
		long long found = find_submitted(l);

		if (found > 0) {
			log_info("runner: job %lld: LAVA had taken the job (LAVA job %lld) though"
				 " its answer was lost", (long long)l->r->job->id, found);
			l->id = found;
			return SUBMIT_TAKEN;
		}
		if (found < 0) {
			buf_reset(err);
			buf_addstr(err, "cannot ask LAVA whether it has the job");
			return SUBMIT_AGAIN;	/* posting now could make a second job */
		}
	}
	rc = call(l, "POST", "jobs/", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		  &resp, err);
	if (!rc && resp.status / 100 == 2 && (l->id = first_job_id(resp.body.ptr)) > 0) {
		ret = SUBMIT_TAKEN;
	} else if (!rc && refused(&resp)) {
		buf_addf(&l->r->infra, "LAVA refused the job (HTTP %ld): %.300s",
			 resp.status, resp.body.ptr);
		ret = SUBMIT_REFUSED;
	} else {
		*maybe_taken = *maybe_taken || rc || resp.status >= 500;
		if (!rc) {
			buf_reset(err);
			buf_addf(err, "HTTP %ld: %.300s", resp.status, resp.body.ptr);
		}
	}
	httpc_response_release(&resp);
	return ret;
}

/* POST the definition until LAVA takes it; -1 refused, or interrupted (r->cancel). */
static int submit(struct lava *l, const char *definition)
{
	json_object *o = json_object_new_object();
	struct buf err = BUF_INIT, url = BUF_INIT;
	double start = now_real();
	long wait = cfg_int("lava.submit_wait");
	bool said = false, maybe_taken = false;
	int ret = -1;

	json_object_object_add(o, "definition", json_object_new_string(definition));
	for (;;) {
		enum submitted rc = submit_once(l, o, &maybe_taken, &err);

		if (rc == SUBMIT_REFUSED)
			goto out;
		if (rc == SUBMIT_TAKEN)
			break;
		if (!said)
			log_warn("runner: job %lld: LAVA does not take the job (%s); waiting",
				 (long long)l->r->job->id, err.ptr);
		said = true;
		if (wait > 0 && now_real() - start > wait) {
			buf_addf(&l->r->infra, "LAVA did not take the job for %ld s: %s", wait,
				 err.ptr);
			goto out;
		}
		if (!nap(l->r, cfg_int("lava.poll_interval")))
			goto out;
	}
	buf_addf(&url, "%s/scheduler/job/%lld", l->base.ptr, l->id);
	row_submitted(l, url.ptr);
	log_info("runner: job %lld: LAVA job %s", (long long)l->r->job->id, url.ptr);
	ret = 0;
out:
	json_object_put(o);
	buf_release(&err);
	buf_release(&url);
	return ret;
}

static void copy_field(json_object *root, const char *key, char *dst, size_t size)
{
	json_object *v;
	const char *s = json_object_object_get_ex(root, key, &v) && v ?
			json_object_get_string(v) : "";

	snprintf(dst, size, "%s", s ? s : "");
}

/* GET the job; true when an answer came and was read (row updated on change). */
static bool look(struct lava *l)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf err = BUF_INIT, path = BUF_INIT;
	json_object *root = NULL, *v;
	char state[32], health[32];
	bool ok = false;

	buf_addf(&path, "jobs/%lld/", l->id);
	if (call(l, "GET", path.ptr, NULL, &resp, &err))
		goto out;
	l->gone = resp.status == 404;
	if (resp.status != 200 || !(root = json_tokener_parse(resp.body.ptr)))
		goto out;
	copy_field(root, "state", state, sizeof(state));
	copy_field(root, "health", health, sizeof(health));
	copy_field(root, "actual_device", l->device, sizeof(l->device));
	buf_reset(&l->failure);
	if (json_object_object_get_ex(root, "failure_comment", &v) && v)
		buf_addstr(&l->failure, json_object_get_string(v));
	if (strcmp(state, l->state) || strcmp(health, l->health)) {
		memcpy(l->state, state, sizeof(state));
		memcpy(l->health, health, sizeof(health));
		row_state(l);
	}
	ok = true;
out:
	json_object_put(root);
	httpc_response_release(&resp);
	buf_release(&err);
	buf_release(&path);
	return ok;
}

static void cancel(struct lava *l)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf err = BUF_INIT, path = BUF_INIT;

	buf_addf(&path, "jobs/%lld/cancel/", l->id);
	/* 2023.01 takes GET (lava_rest_app/v02/views.py); later versions POST */
	if ((!call(l, "POST", path.ptr, NULL, &resp, &err) && resp.status == 405 &&
	     call(l, "GET", path.ptr, NULL, &resp, &err)) || resp.status / 100 != 2)
		log_warn("runner: cannot cancel LAVA job %lld: %s", l->id,
			 err.len ? err.ptr : resp.body.ptr);
	for (int i = 0; i < 30 && strcmp(l->state, "Finished"); i++) {
		sleep(1);
		look(l);
	}
	httpc_response_release(&resp);
	buf_release(&err);
	buf_release(&path);
}

/* Until the LAVA job is Finished: 0; -1 infra (r->infra), or cancelled by us (r->cancel). */
static int follow(struct lava *l)
{
	double submitted = now_real(), running = 0;
	long queue = cfg_int("lava.queue_timeout"), limit = cfg_int("lava.job_timeout") + 60;

	for (;;) {
		if (look(l) && !strcmp(l->state, "Finished"))
			return 0;
		if (l->gone)	/* lib/lab_privacy.h removes a public job of a bug made private */
			return buf_addf(&l->r->infra, "LAVA job %lld is gone from the lab (its bug"
					" turned private, or the lab's admin deleted it)", l->id), -1;
		if (!running && (!strcmp(l->state, "Running") || !strcmp(l->state, "Canceling")))
			running = now_real();
		if (!running && queue > 0 && now_real() - submitted > queue) {
			cancel(l);
			buf_addf(&l->r->infra, "LAVA job %lld waited %ld s for a %s device"
				 " ([lava] queue_timeout)", l->id, queue, cfg_str("lava.device_type"));
			return -1;
		}
		if (running && now_real() - running > limit) {
			cancel(l);
			buf_addf(&l->r->infra, "LAVA job %lld ran past [lava] job_timeout", l->id);
			return -1;
		}
		if (!nap(l->r, cfg_int("lava.poll_interval"))) {
			cancel(l);
			return -1;
		}
	}
}

/* The job's log; waits while LAVA does not answer.  -1 interrupted or refused. */
static int fetch_log(struct lava *l, struct buf *log)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf err = BUF_INIT, path = BUF_INIT;
	int ret = -1;

	buf_addf(&path, "jobs/%lld/logs/", l->id);
	for (;;) {
		int rc = call(l, "GET", path.ptr, NULL, &resp, &err);
		if (!rc && resp.status == 200) {
			buf_add(log, resp.body.ptr, resp.body.len);
			ret = 0;
			break;
		}
		if (!rc && refused(&resp)) {
			buf_addf(&l->r->infra, "cannot read the log of LAVA job %lld (HTTP %ld)",
				 l->id, resp.status);
			break;
		}
		if (!nap(l->r, cfg_int("lava.poll_interval")))
			break;
	}
	httpc_response_release(&resp);
	buf_release(&err);
	buf_release(&path);
	return ret;
}

/* ---- one boot ---- */

/* A real board ([lava] device_kind, auto: anything but device type qemu)? */
static bool board_kind(void)
{
	const char *kind = cfg_str("lava.device_kind");

	if (!strcmp(kind, "auto"))
		return strcmp(cfg_str("lava.device_type"), "qemu") != 0;
	return !strcmp(kind, "board");
}

static void lava_log_path(const struct boot *b, struct buf *out)
{
	const char *c = strstr(b->console_path, "-console-");

	if (c)
		buf_addf(out, "%.*s-lava-%s", (int)(c - b->console_path), b->console_path, c + 9);
	else
		buf_addf(out, "%s.lava", b->console_path);
}

/* The log's console into *console (within max_console) and the console log. */
static int read_console(struct lava *l, struct boot *b, const struct buf *log,
			struct buf *console, struct buf *cmd)
{
	struct buf text = BUF_INIT;
	struct console cons;
	int ret;

	lava_log_console(log->ptr, log->len, &text, cmd);
	console_init(&cons, cfg_int("runner.max_console"));
	console_add(&cons, text.ptr, text.len);
	b->console_cut = console_cut_bytes(&cons);
	console_text(&cons, console);
	console_release(&cons);
	buf_release(&text);
	ret = joblog_write(l->r, b->console_path, false, console->ptr, console->len);
	return ret;
}

/* After the LAVA job finished: the boot's results, or r->infra. */
static int judge(struct lava *l, struct boot *b, const struct buf *console, const char *cmd)
{
	enum lava_end end;

	if (cmd && lava_cmd_has_network(cmd)) {
		buf_addf(&l->r->infra, "LAVA device %s gives the guest a network (its QEMU command"
			 " line: %.200s); the device dictionary must not", l->device, cmd);
		return -1;
	}
	end = lava_judge(l->health, l->failure.ptr, console->ptr);
	if (end == LAVA_END_INFRA || end == LAVA_END_CANCELED) {
		buf_addf(&l->r->infra, "LAVA job %lld ended %s%s on %s%s%s", l->id, l->health,
			 end == LAVA_END_CANCELED ? " (cancelled in LAVA)" :
			 strstr(console->ptr, "Linux version") ? "" : " before the kernel started",
			 *l->device ? l->device : "no device", l->failure.len ? ": " : "",
			 l->failure.ptr);
		return -1;
	}
	b->timed_out = end == LAVA_END_TIMEOUT;
	b->exit_code = strcmp(l->health, "Complete") ? 1 : 0;
	return 0;
}

/*
 * Who may see the LAVA job: a private bug's job is never public (the lab
 * would show its patch's kernel, its console and its name to anyone), so
 * it is personal, a group's, or not sent at all.  -1: not sent (r->infra).
 */
static int choose_visibility(struct run *r, struct lava_def *d)
{
	const char *private_as = cfg_str("lava.private_visibility");
	bool failed = false;

	d->visibility = cfg_str("lava.visibility");
	if (!job_is_private(r->db, r->job->id, &failed))
		return 0;
	if (failed) {
		buf_addstr(&r->infra, "cannot tell whether the job is private: not sent to LAVA");
		return -1;
	}
	if (!strcmp(private_as, "refuse")) {
		buf_addstr(&r->infra, "the job is of a private bug and [lava] private_visibility ="
			   " refuse: not sent to the LAVA lab");
		return -1;
	}
	d->visibility = private_as;
	if (!strcmp(private_as, "group")) {
		d->groups = config_split_list(cfg_str("lava.private_groups"), &d->ngroups);
		if (!d->ngroups) {
			buf_addstr(&r->infra, "[lava] private_visibility = group but no"
				   " private_groups: the private job is not sent to the LAVA lab");
			return -1;
		}
	}
	return 0;
}

int lava_boot(struct run *r, struct variant *v, struct boot *b, struct buf *console)
{
	struct lava l;
	struct lava_def d = { 0 };
	struct buf url = BUF_INIT, def = BUF_INIT, append = BUF_INIT, name = BUF_INIT;
	struct buf log = BUF_INIT, path = BUF_INIT, cmd = BUF_INIT;
	double start = now_real();
	int ret = -1, rc;

	if (lava_init(&l, r))
		goto out;
	if (choose_visibility(r, &d))
		goto out;
	row_add(&l, v, b, d.visibility);
	if (lava_art_publish(r, v, b, l.row, &l.art, &url))
		goto out;
	d.board = board_kind();
	scenario_append(b->sb, b->only, &append);
	if (r->job->boot_args && *r->job->boot_args)	/* 0018_boot_args.sql */
		buf_addf(&append, " %s", r->job->boot_args);
	for (int i = 0, n = 0; d.board && i < b->sb->ntests; i++)
		if (b->sb->emulated[i])	/* needs QEMU's devices: the guest says SKIP */
			buf_addf(&append, "%s%s", n++ ? "," : " bbsuite.skip=", b->sb->tests[i]);
	d.boot_method = *cfg_str("lava.boot_method") ? cfg_str("lava.boot_method") : "ipxe";
	if (make_nonce(&l))
		goto out;
	buf_addf(&name, "bugbridge job %lld %s %s%s%s %s", (long long)r->job->id, v->name,
		 b->sb->name, b->only ? " " : "", b->only ? b->only : "", l.nonce);
	buf_addf(&path, "%s/bzImage", url.ptr);
	d.kernel_url = xstrdup(path.ptr);
	buf_reset(&path);
	buf_addf(&path, "%s/initramfs.cpio", url.ptr);
	d.ramdisk_url = path.ptr;
	d.images_url = url.ptr;
	d.job_name = name.ptr;
	d.device_type = cfg_str("lava.device_type");
	d.priority = cfg_str("lava.priority");
	d.job_timeout = cfg_int("lava.job_timeout");
	d.test_timeout = b->sb->timeout && b->sb->timeout < cfg_int("runner.boot_timeout")
			 ? b->sb->timeout : cfg_int("runner.boot_timeout");
	d.append = append.ptr;
	d.sb = b->sb;
	lava_definition(&d, &def);
	free((char *)d.kernel_url);
	rc = submit(&l, def.ptr);
	if (!rc)
		rc = follow(&l);
	if (!rc)
		rc = fetch_log(&l, &log);
	if (rc && r->cancel)
		b->cancelled = true;
	if (rc || b->cancelled) {
		row_outcome(&l, b->cancelled ? "cancelled" : "infra-error");
		ret = b->cancelled ? 0 : -1;
		goto out;
	}
	if (!r->infra.len) {
		buf_reset(&path);
		lava_log_path(b, &path);
		if (!joblog_write(r, path.ptr, false, log.ptr, log.len) &&
		    !read_console(&l, b, &log, console, &cmd) && !judge(&l, b, console, cmd.ptr))
			ret = 0;
	}
	b->seconds = now_real() - start;
	row_outcome(&l, ret ? "infra-error" : b->timed_out ? "timeout" : "ran");
out:
	lava_art_withdraw(r, &l.art);
	lava_release(&l);
	config_list_free(d.groups);
	buf_release(&url);
	buf_release(&def);
	buf_release(&append);
	buf_release(&name);
	buf_release(&log);
	buf_release(&path);
	buf_release(&cmd);
	return ret;
}
