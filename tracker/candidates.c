/*
 * candidates: attachments and comments -> candidate patches -> jobs.
 * See candidates.h for the rules.
 */
#include "candidates.h"
#include "job_queue.h"
#include "log.h"
#include "patch.h"
#include "sha256.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

DB_SQL(sql_candidate_add,
       "INSERT INTO candidates (bug_id, source, source_id, kind, name, sha256, content,"
       " patch_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
       " ON CONFLICT (bug_id, sha256) DO NOTHING");

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

bool candidate_textual(const char *content_type, const char *file_name)
{
	return !strncasecmp(content_type, "text/", 5) ||
	       !strcasecmp(content_type, "application/mbox") ||
	       !strcasecmp(content_type, "application/x-patch") ||
	       !strcasecmp(content_type, "application/x-diff") ||
	       ends_with(file_name, ".patch") || ends_with(file_name, ".diff") ||
	       ends_with(file_name, ".txt") || ends_with(file_name, ".mbox");
}

struct cand {
	long bug_id;
	const char *source;
	long source_id;
	const char *name;
	const char *author;
	const char *content;
	size_t len;
};

/*
 * Record c (hashing its normalised diff, or the raw bytes if none) and,
 * when its author may run patches without asking, queue a job for that
 * account (job_submit: its budgets, and [queue] max_mbox_patches, which
 * job_queue.c checks for every path; a patch held or refused is said on
 * the bug from there).
 */
static int add(struct db *db, const struct cand *c, bool auto_test, bool *created)
{
	struct buf norm = BUF_INIT;
	struct patch_info info;
	char hex[SHA256_HEX_LEN];
	sqlite3_stmt *st = db_stmt(db, sql_candidate_add);
	struct job_spec spec = { .bug_id = c->bug_id, .with_baseline = true,
				 .account = c->author };
	struct job_admission adm;
	int ret = -1;

	*created = false;
	if (!st)
		return -1;
	patch_parse(c->content, c->len, &info);
	patch_normalise(c->content, c->len, &norm);
	if (norm.len)
		sha256_hex(norm.ptr, norm.len, hex);
	else
		sha256_hex(c->content, c->len, hex);
	sqlite3_bind_int64(st, 1, c->bug_id);
	db_bind_text(st, 2, c->source);
	sqlite3_bind_int64(st, 3, c->source_id);
	db_bind_text(st, 4, info.kind == PATCH_MBOX ? "mbox" : "patch");
	db_bind_text(st, 5, c->name);
	db_bind_text(st, 6, hex);
	sqlite3_bind_blob(st, 7, c->content, (int)c->len, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 8, info.patches > 0 ? info.patches : 1);
	if (db_step_done(db, st))
		goto out;
	if (sqlite3_changes(db->h) == 0) {
		log_debug("candidates: %s %ld on bug %ld is a patch we already have",
			  c->source, c->source_id, c->bug_id);
		ret = 0;
		goto out;
	}
	spec.candidate_id = db_last_id(db);
	if (!auto_test) {
		log_info("candidates: bug %ld: new %s candidate from %s %ld (%s) by %s waits for"
			 " 'bugbridge: test' ([triage] test_from)", c->bug_id,
			 info.kind == PATCH_MBOX ? "mbox" : "patch", c->source, c->source_id,
			 c->name, c->author);
		ret = 0;
		goto out;
	}
	log_info("candidates: bug %ld: new %s candidate from %s %ld (%s)", c->bug_id,
		 info.kind == PATCH_MBOX ? "mbox" : "patch", c->source, c->source_id, c->name);
	if (job_submit(db, &spec, &adm))
		goto out;
	*created = adm.admit != JOB_REFUSED;
	ret = 0;
out:
	buf_release(&norm);
	return ret;
}

bool candidate_attachment_worthy(const struct bz_attachment *a)
{
	struct patch_info info;

	/* a private attachment is never tested: its results would show it */
	if (a->is_obsolete || a->is_private || !a->has_data || !a->data_len)
		return false;
	return a->is_patch || (candidate_textual(a->content_type, a->file_name) &&
			       !patch_parse((const char *)a->data, a->data_len, &info));
}

bool candidate_comment_worthy(const struct bz_comment *cm, bool is_ours)
{
	struct patch_info info;

	/* our own reports quote logs; an attachment's auto-comment is the attachment's */
	if (is_ours || cm->attachment_id || cm->is_private)
		return false;
	return !patch_parse(cm->text, strlen(cm->text), &info);
}

int candidate_from_attachment(struct db *db, const struct bz_attachment *a, bool auto_test,
			      bool *created)
{
	struct cand c = {
		.bug_id = a->bug_id, .source = "attachment", .source_id = a->id,
		.name = *a->file_name ? a->file_name : a->summary, .author = a->creator,
		.content = (const char *)a->data, .len = a->data_len,
	};

	*created = false;
	if (!candidate_attachment_worthy(a))
		return 0;
	return add(db, &c, auto_test, created);
}

int candidate_from_comment(struct db *db, const struct bz_comment *cm, bool is_ours,
			   bool auto_test, bool *created)
{
	struct patch_info info;
	char name[48];
	struct cand c = {
		.bug_id = cm->bug_id, .source = "comment", .source_id = cm->id, .name = name,
		.author = cm->creator,
	};

	*created = false;
	if (!candidate_comment_worthy(cm, is_ours))
		return 0;
	patch_parse(cm->text, strlen(cm->text), &info);
	snprintf(name, sizeof(name), "comment #%d", cm->count);
	c.content = cm->text + info.start;
	c.len = info.end - info.start;
	return add(db, &c, auto_test, created);
}
