/*
 * apply: patch series (the candidate's, and kernel-patches/harness) loaded
 * into the job's directory, checked, dry-run, then applied to a tree.
 */
#ifndef BB_APPLY_H
#define BB_APPLY_H

#include "buf.h"
#include "fault.h"
#include "run.h"

/* Free a patch list. */
void patch_items_free(struct patch_item *items, int n);
/* Load the candidate's patches into <jobdir>/patches; r->patches. */
int apply_load_candidate(struct run *r);
/* The harness series from kernel-patches/harness (may be empty). */
int apply_load_series_dir(const char *dir, const char *dest, struct patch_item **items, int *n,
			  struct buf *err);
/*
 * Apply items[0..n) to v->tree, each checked by patch_check() and dry-run
 * first; touched collects the "patching file X" names.  FAULT_NONE: all
 * applied.  FAULT_PATCH: a patch is refused or does not apply, with its
 * name and the reason or rejected hunks in *why (and the log); whose fault
 * that is depends on whose series it is (the harness is ours).
 * FAULT_INFRA: patch could not run (r->infra says why, if anything can).
 */
enum fault apply_series(struct run *r, struct variant *v, const struct patch_item *items,
			int n, const char *log_name, struct buf *why, char ***touched,
			int *ntouched);
void strv_free(char **v, int n);

#endif
