/*
 * coverage: the reach of a candidate's change (struct reach in run.h).
 * coverage.c holds the pure parts (the guest's gcov data out of its console,
 * the changed lines of a diff, the summary) and writes the gcov data into
 * the build; reach_json.c reads gcov's JSON; reach.c runs diff and gcov.
 */
#ifndef BB_COVERAGE_H
#define BB_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "run.h"

struct gcda_blob {
	char *path;			/* "drivers/scsi/sd.gcda" */
	unsigned char *data;
	size_t len;
};
/*
 * Pure: the "#bbgcov" blocks of a console (suite/bbgcov.c); bad ones are
 * skipped, and so are files that are neither drivers/scsi/NAME.gcda nor one
 * of wanted ("block/blk-mq.gcda"): the guest names each by its path in the
 * build, whose tail is kept as the blob's path.
 */
int coverage_blobs(const char *text, size_t len, char *const *wanted, int nwanted,
		   struct gcda_blob **out, int *n);
void coverage_blobs_free(struct gcda_blob *b, int n);
/* Write the console's gcov data into v->out (after the full-suite boot). */
int coverage_collect(struct run *r, struct variant *v, const struct buf *console);
struct changed_line {
	int line;			/* in the new file */
	bool deletion;			/* lines were deleted just before it */
};
/* Pure: the lines a `diff -U0` changes in the new file. */
int coverage_changed_lines(const char *diff, struct changed_line **out, int *n);
/*
 * Pure: add file's changed lines to acc from gcov's JSON (one document per
 * source gcov read; a header's counts summed over them), and name the file
 * with its count in acc->files; -1 when there is no document at all.
 */
int coverage_reach_file(const char *file, const char *json, const struct changed_line *cl,
			int ncl, struct reach *acc);
/* Pure: acc->summary from the counts. */
void coverage_summary(struct reach *acc);
void reach_init(struct reach *acc);
void reach_release(struct reach *acc);
/* After the patched variant's suite: v->reach (reach.c). */
int coverage_measure(struct run *r, struct variant *v);

#endif
