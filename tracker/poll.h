/*
 * poll: internals shared by poll.c (asking the tracker) and poll_store.c
 * (writing what it said).  The service entry point is poll_cycle() in
 * service.h.
 *
 * A cycle first fetches everything into a struct poll_fetch, touching the
 * database only to read; then poll_store() writes it all in one
 * transaction.  So an error anywhere (a timeout, a 500, a malformed body)
 * leaves the database exactly as it was and the cursor where it was.
 */
#ifndef BB_POLL_H
#define BB_POLL_H

#include <stdbool.h>
#include "bot.h"
#include "bugzilla.h"
#include "db.h"
#include "trust.h"

struct poll_fetch {
	struct bz_bug_list bugs;		/* changed watched bugs, all fields */
	struct bz_comment_list comments;	/* their comments (may overlap stored ones) */
	struct bz_attachment_list attachments;	/* their attachments; data for new ones */
	char *cursor;		/* new poll cursor; NULL: keep the old one */
	char *url, *version;	/* set when /rest/version was asked this cycle */
	char *watch;		/* fingerprint of the watch settings */
	char *recheck;		/* ids to fetch again next cycle ("9370,9371"), never NULL */
	struct trust trust;	/* whose new candidates run without asking */
	struct bot bot;		/* whose comments are ours (bot.h) */
};

void poll_fetch_release(struct poll_fetch *f);

/*
 * A private bug (in a tracker group) while [tracker] private_bugs = skip:
 * its row is stored (so that whatever we had of it stops showing), but
 * none of its comments or attachments, and it gets no jobs.
 */
bool poll_private_skipped(const struct bz_bug *b);

/*
 * Write f in one transaction, with candidates and their jobs, and what was
 * learned of the bot's account (a comment is ours when the bot wrote it:
 * bot.h); counts of what was new go to the log.  -1 (rolled back) on a
 * database error.
 */
int poll_store(struct db *db, struct poll_fetch *f, unsigned long requests);

/* Record a failed cycle in poll_state (error text already redacted). */
void poll_record_error(struct db *db, const char *error, unsigned long requests);

#endif
