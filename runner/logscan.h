/*
 * logscan (pure): kernel problems in a console log (oopses, BUGs, warnings,
 * KASAN reports, hangs, panics), each as a signature.
 */
#ifndef BB_LOGSCAN_H
#define BB_LOGSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include "buf.h"

struct logscan_problem {
	char *kind;			/* oops, bug, warning, kasan, eod, hung, panic */
	char *title;			/* normalised */
	char *frames;			/* top frames, newline-separated */
	char hash[65];
	int count;
	char *first_line;		/* raw line, for the verdict detail */
};
struct logscan_result {
	struct logscan_problem *items;
	int n;
	bool panicked;			/* "Kernel panic - not syncing" seen */
};
int logscan(const char *text, size_t len, struct logscan_result *out);
void logscan_release(struct logscan_result *r);
/* Pure: strip timestamps, addresses, pids, CPU numbers from one line. */
void logscan_normalise(const char *line, struct buf *out);

#endif
