/*
 * wake: one process tells others sharing its database that something is
 * waiting for them, so nobody has to poll.
 *
 *   jobs      a job was queued: runners try to claim at once
 *   verdicts  a job finished: bugbridged triages and posts at once
 *
 * A wake is a file beside the database (`<db>.wake-jobs`) that the notifier
 * opens for writing and closes; listeners watch the database's directory
 * with inotify for that close.  Nothing is written, nothing is lost when
 * nobody listens, and any process that can write the database can wake the
 * others.  A listener still wakes on its own timeout, so a lost wake (a
 * full inode table, a database on a network file system) only costs time.
 *
 * Notify only after the commit that made the row visible: a listener that
 * wakes before it would find nothing and go back to sleep.  db_commit()
 * fires the wakes a transaction asked for (db_wake_after_commit).
 */
#ifndef BB_WAKE_H
#define BB_WAKE_H

enum wake_what {
	WAKE_JOBS = 1,
	WAKE_VERDICTS = 2,
};

/* Wake every listener of `what` on the database at db_path (":memory:": none). */
void wake_notify(const char *db_path, enum wake_what what);

struct wake {
	int fd;				/* inotify, -1 when unavailable */
	char *name;			/* the wake file's name in its directory */
};

/* Start listening (before looking for work, so no wake falls in between). */
void wake_open(struct wake *w, const char *db_path, enum wake_what what);
/*
 * Sleep until woken, timeout_ms passes, or a signal arrives.  1: woken,
 * 0: timeout or signal.  Without inotify it just sleeps.
 */
int wake_wait(struct wake *w, int timeout_ms);
void wake_close(struct wake *w);

#endif
