/*
 * api_jobs: the jobs as JSON, and the one write the public API offers.
 *
 *   GET  /api/jobs?state=queued|running|done|cancelled&bug=N&limit=
 *   GET  /api/jobs/<id>        one job with stages, test results, signatures, logs
 *   GET  /api/jobs/<id>/kcidb  a finished job in KernelCI's KCIDB format (kcidb.h)
 *   GET  /api/queue            running and queued jobs in claim order, with position,
 *                              estimates, account, lane and what they wait for;
 *                              each account's use of the day's budget
 *   POST /api/jobs             queue a job (bearer token); body:
 *        {"bug_id": 9370, "candidate_id": 12, "kind": "retest",
 *         "with_baseline": true, "patch_count": 0}
 *        -> 201 {"id": 42, "state": "queued", "url": "/job/42"}
 *
 * The write is checked here, then asked of bugbridged (privsep.h), which
 * checks it again and queues it through job_enqueue(), like every other
 * way a job is made: this process cannot write the database.  A job of a
 * private bug does not exist here for a caller without the token.
 */
#include "api.h"
#include "xalloc.h"
#include "job_queue.h"
#include "job_record.h"
#include "kcidb.h"
#include "log.h"
#include "page.h"
#include "privsep.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

DB_SQL(sql_api_jobs,
       "SELECT id, bug_id, candidate_id, parent_id, kind, base, patch_count, with_baseline,"
       " state, stage, progress, runner, attempts, verdict, change, verdict_detail, accel,"
       " kernel_version, created_at, started_at, finished_at"
       " FROM jobs WHERE (?1 IS NULL OR state = ?1)"
       " AND (?2 IS NULL OR bug_id = ?2) ORDER BY id DESC LIMIT ?3");

static const char *const job_states[] = { "queued", "running", "done", "cancelled" };

int api_jobs(struct http_request *req, struct http_response *resp)
{
	const char *state = http_query(req, "state"), *bug = http_query(req, "bug");
	struct json_object *o, *rows;
	sqlite3_stmt *st;
	sqlite3_int64 bug_id = 0;
	long limit;
	bool known = !state;

	for (size_t i = 0; state && i < sizeof(job_states) / sizeof(job_states[0]); i++)
		known |= !strcmp(state, job_states[i]);
	if (!known)
		return http_error(resp, 400, "bad state: want queued, running, done or cancelled");
	if (bug && http_parse_id(bug, &bug_id))
		return http_error(resp, 400, "bad bug id");
	if (api_limit(req, resp, "limit", 100, 1000, &limit))
		return 0;
	st = db_stmt(req->db, sql_api_jobs);
	if (!st)
		return -1;
	db_bind_text(st, 1, state);
	if (bug)
		sqlite3_bind_int64(st, 2, bug_id);
	sqlite3_bind_int64(st, 3, limit);
	rows = api_rows(req->db, st);
	if (!rows)
		return -1;
	o = json_object_new_object();
	json_object_object_add(o, "count", json_object_new_int64((int64_t)json_object_array_length(rows)));
	json_object_object_add(o, "jobs", rows);
	return api_send(resp, 200, o);
}

static int job_kcidb(struct http_request *req, struct http_response *resp, sqlite3_int64 id)
{
	struct job_record job = JOB_RECORD_INIT;
	int rc = job_record_load(req->db, id, 0, &job);
	bool done = rc > 0 && !strcmp(job.state, "done");

	job_record_release(&job);
	if (rc < 0)
		return -1;
	if (!rc)
		return http_error(resp, 404, "no job %lld", (long long)id);
	if (!done)
		return http_error(resp, 409, "job %lld has not finished", (long long)id);
	if (kcidb_export(req->db, id, &resp->body)) {
		log_error("http: job %lld: kcidb: %s", (long long)id, resp->body.ptr);
		return http_error(resp, 500, "job %lld cannot be exported as KCIDB", (long long)id);
	}
	resp->content_type = "application/json";
	return 0;
}

int api_job(struct http_request *req, struct http_response *resp)
{
	const char *kcidb = strstr(req->rest, "/kcidb");
	struct job_record job = JOB_RECORD_INIT;
	sqlite3_int64 id;
	int rc;

	if (kcidb && !strcmp(kcidb, "/kcidb")) {
		char *num = xstrndup(req->rest, (size_t)(kcidb - req->rest));
		int bad = !num || http_parse_id(num, &id);

		free(num);
		if (bad)
			return http_error(resp, 400, "bad job id");
		return job_kcidb(req, resp, id);
	}
	if (http_parse_id(req->rest, &id))
		return http_error(resp, 400, "bad job id");
	/* the logs are listed by bugbridged: this process cannot read the log directories */
	rc = job_record_load(req->db, id, JOB_LOAD_DOC & ~JOB_LOAD_LOGS, &job);
	if (rc < 0)
		return -1;
	if (!rc)
		return http_error(resp, 404, "no job %lld", (long long)id);
	if (privsep_log_list(id, &job.logs, &job.nlogs))
		log_warn("http: job %lld: its logs are not listed", (long long)id);
	rc = api_send(resp, 200, job_record_json(&job));
	job_record_release(&job);
	return rc;
}

/* Whose a queued job is and what it waits for. */
static void queue_place(struct json_object *e, const struct queue_entry *qe)
{
	json_object_object_add(e, "purpose", json_object_new_string(qe->purpose));
	json_object_object_add(e, "account", json_object_new_string(qe->account));
	json_object_object_add(e, "lane", json_object_new_string(job_lane_name(qe->lane)));
	json_object_object_add(e, "not_before", qe->not_before ?
			       json_object_new_int64(qe->not_before) : NULL);
	json_object_object_add(e, "held", qe->held[0] ? json_object_new_string(qe->held) : NULL);
}

static struct json_object *accounts_json(const struct queue_accounts *qa)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "day", json_object_new_string(qa->day));
	json_object_object_add(o, "account_jobs_per_day", json_object_new_int64(qa->account_budget));
	json_object_object_add(o, "bug_jobs_per_day", json_object_new_int64(qa->bug_budget));
	for (int i = 0; i < qa->n; i++) {
		const struct queue_account *u = &qa->v[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "account", json_object_new_string(u->account));
		json_object_object_add(e, "today", json_object_new_int(u->today));
		json_object_object_add(e, "budget", u->limited ?
				       json_object_new_int64(qa->account_budget) : NULL);
		json_object_object_add(e, "queued", json_object_new_int(u->queued));
		json_object_object_add(e, "waiting", json_object_new_int(u->waiting));
		json_object_object_add(e, "running", json_object_new_int(u->running));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "accounts", a);
	return o;
}

int api_queue(struct http_request *req, struct http_response *resp)
{
	struct json_object *o, *a;
	struct queue_accounts qa;
	struct queue q;
	time_t now = time(NULL);

	if (queue_load(req->db, now, &q))
		return -1;
	if (queue_accounts_load(req->db, now, &qa)) {
		queue_release(&q);
		return -1;
	}
	o = json_object_new_object();
	a = json_object_new_array();
	for (int i = 0; i < q.n; i++) {
		struct json_object *e = json_object_new_object();
		const struct queue_entry *qe = &q.v[i];

		json_object_object_add(e, "job_id", json_object_new_int64(qe->job_id));
		json_object_object_add(e, "bug_id", qe->bug_id ?
				       json_object_new_int64(qe->bug_id) : NULL);
		json_object_object_add(e, "state", json_object_new_string(qe->state));
		json_object_object_add(e, "kind", json_object_new_string(qe->kind));
		queue_place(e, qe);
		if (!strcmp(qe->state, "running")) {
			json_object_object_add(e, "stage", json_object_new_string(qe->stage));
			json_object_object_add(e, "elapsed", json_object_new_int64(qe->elapsed));
		} else {
			json_object_object_add(e, "position", json_object_new_int(qe->position));
			json_object_object_add(e, "est_start", qe->est_start ?
					       json_object_new_int64(qe->est_start) : NULL);
		}
		json_object_object_add(e, "est_finish", qe->est_finish ?
				       json_object_new_int64(qe->est_finish) : NULL);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "typical_job_seconds", json_object_new_int64(q.typical));
	json_object_object_add(o, "slots", json_object_new_int(q.slots));
	json_object_object_add(o, "jobs", a);
	json_object_object_add(o, "budgets", accounts_json(&qa));
	queue_release(&q);
	queue_accounts_release(&qa);
	return api_send(resp, 200, o);
}

/* A member that must be a non-negative integer if present; -1 if it is not. */
static int get_id(struct json_object *body, const char *key, sqlite3_int64 *out)
{
	struct json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(body, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return -1;
	*out = json_object_get_int64(v);
	return 0;
}

static int parse_spec(struct json_object *body, struct job_spec *spec, struct buf *why)
{
	struct json_object *v;
	sqlite3_int64 count;

	if (!json_object_is_type(body, json_type_object))
		return buf_addstr(why, "body must be a JSON object"), -1;
	if (get_id(body, "bug_id", &spec->bug_id) ||
	    get_id(body, "candidate_id", &spec->candidate_id) ||
	    get_id(body, "patch_count", &count) || count > 1000)
		return buf_addstr(why, "bug_id, candidate_id and patch_count must be numbers"), -1;
	spec->patch_count = (int)count;
	if (!spec->bug_id && !spec->candidate_id)
		return buf_addstr(why, "need bug_id or candidate_id"), -1;
	spec->kind = "test";
	if (json_object_object_get_ex(body, "kind", &v) && v) {
		const char *kind = json_object_get_string(v);

		if (!json_object_is_type(v, json_type_string) ||
		    (strcmp(kind, "test") && strcmp(kind, "retest") && strcmp(kind, "bisect")))
			return buf_addstr(why, "kind must be test, retest or bisect"), -1;
		spec->kind = kind;
	}
	if (json_object_object_get_ex(body, "with_baseline", &v) && v) {
		if (!json_object_is_type(v, json_type_boolean))
			return buf_addstr(why, "with_baseline must be true or false"), -1;
		spec->with_baseline = json_object_get_boolean(v);
	}
	return 0;
}

int api_job_create(struct http_request *req, struct http_response *resp)
{
	struct job_spec spec = { 0 };
	struct json_object *body = NULL, *o;
	struct buf why = BUF_INIT, url = BUF_INIT;
	struct ps_msg m = { .type = PS_JOB_ADD };
	struct ps_reply *r = NULL;
	int ret = -1;

	if (http_require_token(req, resp))
		return 0;
	body = json_tokener_parse(req->body);
	if (!body || parse_spec(body, &spec, &why)) {
		ret = http_error(resp, 400, "%s", why.len ? why.ptr : "body is not JSON");
		goto out;
	}
	m.bug_id = spec.bug_id;
	m.candidate_id = spec.candidate_id;
	m.patch_count = spec.patch_count;
	m.with_baseline = spec.with_baseline;
	m.kind = !strcmp(spec.kind, "retest") ? PS_KIND_RETEST :
		 !strcmp(spec.kind, "bisect") ? PS_KIND_BISECT : PS_KIND_TEST;
	r = xmalloc(sizeof(*r));
	if (privsep_call(&m, r, NULL))
		goto out;
	if (r->status != 201) {
		ret = http_error(resp, r->status >= 400 && r->status < 600 ? r->status : 500,
				 "%s", r->text);
		goto out;
	}
	buf_addf(&url, "/job/%lld", (long long)r->id);
	http_set_header(resp, "Location", url.ptr);
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "state", json_object_new_string("queued"));
	json_object_object_add(o, "url", json_object_new_string(url.ptr));
	ret = api_send(resp, 201, o);
out:
	json_object_put(body);
	free(r);
	buf_release(&why);
	buf_release(&url);
	return ret;
}
