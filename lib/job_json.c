/*
 * job_json: a job record as the one JSON document that `bugbridge job show
 * --json` prints and GET /api/jobs/<id> serves.  See job_record.h; the
 * fields are listed in docs/api.md.
 *
 * Database NULL is JSON null, flags are 0/1 as in the table, and the log
 * directory (a server path) is never shown: "logs" holds the URLs the
 * dashboard serves them at.
 */
#include "job_record.h"
#include "buf.h"

#include <json.h>

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* An id or a time; 0 is the database's NULL (job_record.h). */
static json_object *int_or_null(long long v)
{
	return v ? json_object_new_int64(v) : NULL;
}

static void put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* {"changed_lines", "reached_lines", "summary", "not_reached"}, or null: not measured. */
static json_object *reach(const struct job_record *rec)
{
	json_object *o;

	if (!rec->reach)
		return NULL;
	o = json_object_new_object();
	put(o, "changed_lines", json_object_new_int(rec->reach_changed));
	put(o, "reached_lines", json_object_new_int(rec->reach_reached));
	put(o, "summary", json_object_new_string(rec->reach));
	put(o, "not_reached", json_object_new_boolean(job_record_not_reached(rec)));
	return o;
}

static json_object *stages(const struct job_record *rec)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < rec->nstages; i++) {
		const struct job_record_stage *s = &rec->stages[i];
		json_object *o = json_object_new_object();

		put(o, "attempt", json_object_new_int(s->attempt));
		put(o, "variant", json_object_new_string(s->variant));
		put(o, "stage", json_object_new_string(s->stage));
		put(o, "started_at", json_object_new_double(s->started_at));
		put(o, "finished_at", s->open ? NULL : json_object_new_double(s->finished_at));
		put(o, "status", json_object_new_string(s->status));
		put(o, "detail", str_or_null(s->detail));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *lava_jobs(const struct job_record *rec)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < rec->nlava; i++) {
		const struct job_record_lava *l = &rec->lava[i];
		json_object *o = json_object_new_object();

		put(o, "attempt", json_object_new_int(l->attempt));
		put(o, "variant", json_object_new_string(l->variant));
		put(o, "boot", json_object_new_string(l->boot));
		put(o, "lava_id", int_or_null(l->lava_id));
		put(o, "url", str_or_null(l->url));
		put(o, "state", json_object_new_string(l->state));
		put(o, "health", str_or_null(l->health));
		put(o, "device", str_or_null(l->device));
		put(o, "outcome", str_or_null(l->outcome));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *tests(const struct job_record *rec)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < rec->ntests; i++) {
		const struct job_record_test *t = &rec->tests[i];
		json_object *o = json_object_new_object();

		put(o, "variant", json_object_new_string(t->variant));
		put(o, "name", json_object_new_string(t->name));
		put(o, "status", json_object_new_string(t->status));
		put(o, "runs", json_object_new_int(t->runs));
		put(o, "failures", json_object_new_int(t->failures));
		put(o, "change", str_or_null(t->change));
		put(o, "diagnostics", json_object_new_string(t->diagnostics));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *signatures(const struct job_record *rec)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < rec->nsigs; i++) {
		const struct job_record_sig *s = &rec->sigs[i];
		json_object *o = json_object_new_object();

		put(o, "variant", json_object_new_string(s->variant));
		put(o, "kind", json_object_new_string(s->kind));
		put(o, "title", json_object_new_string(s->title));
		put(o, "frames", json_object_new_string(s->frames));
		put(o, "hash", json_object_new_string(s->hash));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *logs(const struct job_record *rec)
{
	json_object *a = json_object_new_array();
	struct buf url = BUF_INIT;

	for (int i = 0; i < rec->nlogs; i++) {
		buf_reset(&url);
		buf_addf(&url, "/job/%lld/%s", (long long)rec->id, rec->logs[i]);
		json_object_array_add(a, json_object_new_string(url.ptr));
	}
	buf_release(&url);
	return a;
}

static json_object *candidate(const struct job_record *rec)
{
	json_object *o;

	if (!rec->candidate_id)
		return NULL;
	o = json_object_new_object();
	put(o, "name", json_object_new_string(rec->cand.name));
	put(o, "kind", json_object_new_string(rec->cand.kind));
	put(o, "sha256", json_object_new_string(rec->cand.sha256));
	put(o, "patch_count", json_object_new_int(rec->cand.patch_count));
	return o;
}

json_object *job_record_json(const struct job_record *rec)
{
	json_object *o = json_object_new_object();

	put(o, "id", json_object_new_int64(rec->id));
	put(o, "bug_id", int_or_null(rec->bug_id));
	put(o, "candidate_id", int_or_null(rec->candidate_id));
	put(o, "parent_id", int_or_null(rec->parent_id));
	put(o, "kind", json_object_new_string(rec->kind));
	put(o, "base", json_object_new_string(rec->base));
	put(o, "base_reason", str_or_null(rec->base_reason));
	put(o, "purpose", json_object_new_string(rec->purpose));
	put(o, "boot_args", str_or_null(rec->boot_args));
	put(o, "patch_count", json_object_new_int(rec->patch_count));
	put(o, "with_baseline", json_object_new_int(rec->with_baseline));
	put(o, "state", json_object_new_string(rec->state));
	put(o, "stage", str_or_null(rec->stage));
	put(o, "progress", str_or_null(rec->progress));
	put(o, "runner", str_or_null(rec->runner));
	put(o, "attempts", json_object_new_int(rec->attempts));
	put(o, "cancel", json_object_new_int(rec->cancel));
	put(o, "verdict", str_or_null(rec->verdict));
	put(o, "change", str_or_null(rec->change));
	put(o, "verdict_detail", str_or_null(rec->verdict_detail));
	put(o, "fault", str_or_null(fault_name(rec->fault)));
	put(o, "reach", reach(rec));
	put(o, "accel", str_or_null(rec->accel));
	put(o, "kernel_version", str_or_null(rec->kernel_version));
	put(o, "created_at", json_object_new_int64(rec->created_at));
	put(o, "started_at", int_or_null(rec->started_at));
	put(o, "finished_at", int_or_null(rec->finished_at));
	put(o, "account", json_object_new_string(rec->account));
	put(o, "lane", json_object_new_string(job_lane_name(rec->lane)));
	put(o, "not_before", int_or_null(rec->not_before));
	put(o, "held", str_or_null(rec->held));
	put(o, "candidate", candidate(rec));
	put(o, "stages", stages(rec));
	put(o, "test_results", tests(rec));
	put(o, "signatures", signatures(rec));
	put(o, "logs", logs(rec));
	put(o, "lava_jobs", lava_jobs(rec));
	return o;
}
