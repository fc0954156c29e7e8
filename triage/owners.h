/*
 * owners: a bug's patch files and trace files -> its MAINTAINERS entries,
 * and the Cc of the people among them (owners.c).
 */
#ifndef BB_OWNERS_H
#define BB_OWNERS_H

#include <signal.h>
#include "db.h"

/* Paths named by a unified diff's headers (---/+++ and diff --git), once each. */
int owners_diff_files(const char *diff, char ***files, int *nfiles);
/* Source paths named in kernel traces ("at drivers/scsi/sd.c:123"). */
int owners_trace_files(const char *text, char ***files, int *nfiles);
void owners_files_free(char **files, int nfiles);
/*
 * Recompute bug_owners for bugs whose patches or comments changed since
 * last time, from [triage] maintainers; queue a Cc update when
 * [triage] cc_maintainers.  Quietly does nothing without a MAINTAINERS file.
 */
int owners_refresh(struct db *db, const volatile sig_atomic_t *stop);

#endif
