/*
 * candidates: where a poll becomes a job.
 *
 * Each attachment or comment the poller stores is offered here.  A
 * candidate is:
 *   - an attachment flagged is_patch and not obsolete;
 *   - a text attachment (text/..., or named .patch/.diff/.txt/.mbox) that
 *     parses as a unified diff or an mbox of patches (lib/patch.h);
 *   - a diff pasted inline in a comment that is not ours and not the
 *     auto-comment of an attachment.
 * Its identity is the sha256 of the normalised patch (patch_normalise), so
 * the same change attached twice, or attached and pasted, is one candidate
 * (UNIQUE (bug_id, sha256)).  A new candidate queues one job (with a
 * baseline run) through job_submit(), in the caller's transaction, when
 * its author may run patches without asking (auto_test: [triage]
 * test_from, trust.h); otherwise it waits for "bugbridge: test N".  The
 * job is its author's: it meets that account's and the bug's budgets, and
 * an mbox over [queue] max_mbox_patches is not queued (job_queue.h; the
 * bug is told).  The candidate is stored either way.
 *
 * Private comments and attachments (Bugzilla's is_private) are never
 * candidates: a result would quote or describe them where others can read.
 */
#ifndef BB_CANDIDATES_H
#define BB_CANDIDATES_H

#include <stdbool.h>
#include "bugzilla.h"
#include "db.h"

/* *created is set to true when a new candidate and its job (due or held) were added. */
int candidate_from_attachment(struct db *db, const struct bz_attachment *a, bool auto_test,
			      bool *created);
int candidate_from_comment(struct db *db, const struct bz_comment *c, bool is_ours,
			   bool auto_test, bool *created);
/* Would this attachment or comment be a candidate (whoever wrote it)? */
bool candidate_attachment_worthy(const struct bz_attachment *a);
bool candidate_comment_worthy(const struct bz_comment *c, bool is_ours);

/* Is this attachment one we look at as text? (content type or file name) */
bool candidate_textual(const char *content_type, const char *file_name);

#endif
