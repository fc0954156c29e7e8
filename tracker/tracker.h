/*
 * tracker: everything that talks to Bugzilla, and nothing else does.
 *
 * Owns: the REST client (bugzilla.c, bugzilla_json.c: decoding what a real
 * 5.x server answers), the incremental poller (poll.c asks, poll_store.c
 * writes what it said in one transaction), candidates (candidates.c: where a
 * poll becomes a job) and posting the outbox's tracker rows exactly once
 * (outbox_post.c).  May use: lib/ only.  bugbridged (server/) calls the
 * entry points below, `bugbridge config check` (cli/) tracker_check; the
 * other headers here are the folder's own.
 *
 * Each returns 0 when its step ran (even if it found nothing to do) and -1
 * when it failed; a failed step is logged and retried next cycle.  `stop`
 * is raised by SIGTERM: long loops check it between items, so the item in
 * flight always finishes.
 */
#ifndef BB_TRACKER_H
#define BB_TRACKER_H

#include <signal.h>
#include "db.h"

/* tracker -> bugs, comments, attachments, candidates, jobs */
int poll_cycle(struct db *db, const volatile sig_atomic_t *stop);
/*
 * At start-up, before anything reads comments: a comment is ours only when
 * the bot's account wrote it ([tracker] login, or the account the tracker
 * named for this key before); correct comments.is_ours if it was computed
 * for another account, or before bugbridge knew that.  -1 on a database error.
 */
int tracker_ours_refresh(struct db *db);
/*
 * outbox rows -> tracker comments and field updates, exactly once.  0 when
 * every due row was dealt with, 1 when the queue is held (the tracker
 * refused our credentials or the URL is wrong: logged), -1 when a row that
 * was tried did not land (it waits for a retry, or failed for good: logged)
 * or on a database error.
 */
int outbox_flush(struct db *db, const volatile sig_atomic_t *stop);
/*
 * At start-up: with [triage] mirror = keywords, ask the tracker whether the
 * bugbridge-<state> keywords exist; warn and leave them out of updates when
 * some do not.  -1 (warned) when the tracker could not tell.
 */
int mirror_check(struct db *db, const volatile sig_atomic_t *stop);

/*
 * `bugbridge config check` (tracker_check.c): a line each for whether
 * [tracker] url answers as a Bugzilla, whether the key is valid and whose
 * it is, and that account's groups.
 */
struct check;
void tracker_check(struct check *c);

#endif
