/*
 * check: the report of `bugbridge config check`, one line per thing checked,
 * as each folder that owns the thing checks it (tracker/, mail/, runner/
 * through their public headers; lib/config_workable.c for the file alone):
 *
 *   ok    tracker: http://127.0.0.1:8091 answers (Bugzilla 5.2)
 *   FAIL  patches_dir: '/srv/kp' does not exist
 *   warn  tracker key: valid; whose, Bugzilla 5.2 does not say (...)
 *   skip  lava: [runner] backend = local
 *
 * FAIL is what keeps bugbridge from working; warn works, but not as an
 * operator may think; skip was not checked (and says why).  Lines are
 * written as they come (a tracker that does not answer takes its timeout),
 * secrets scrubbed.
 */
#ifndef BB_CHECK_H
#define BB_CHECK_H

#include <stdio.h>

enum check_status { CHECK_OK, CHECK_WARN, CHECK_FAIL, CHECK_SKIP };

struct check {
	FILE *out;
	int failed, warned, passed;
};

#define CHECK_INIT(f) { (f), 0, 0, 0 }

/* One line: "<status> <what>: <text>". */
void check_line(struct check *c, enum check_status s, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define check_ok(c, ...) check_line((c), CHECK_OK, __VA_ARGS__)
#define check_warn(c, ...) check_line((c), CHECK_WARN, __VA_ARGS__)
#define check_fail(c, ...) check_line((c), CHECK_FAIL, __VA_ARGS__)
#define check_skip(c, ...) check_line((c), CHECK_SKIP, __VA_ARGS__)

#endif
