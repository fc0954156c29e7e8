/*
 * controllers: which host adapters a job's kernel is booted behind (issue
 * 34).  suite/scenarios gives each controller a boot of its own
 * ("controller NAME [default]", "config FRAGMENT", "selects PATH..."); a
 * job runs the boots without a controller always, and of the controllers'
 * boots those its patch picks: a file under one of a controller's
 * "selects" paths picks that controller, any other file (the SCSI core, sd,
 * sr, the block layer...) the default set.  [runner] controllers, when set,
 * overrides the patch: a list of names, or "default", "all", "none".  The
 * chosen boots' config fragments grow the job's config as a patch's files
 * do (kplan.h): built on the standard seed, the baseline with the same
 * drivers, no seed of their own.
 */
#ifndef BB_CONTROLLERS_H
#define BB_CONTROLLERS_H

#include <stdbool.h>
#include "buf.h"
#include "scenario.h"

struct run;

/*
 * Pure: the files a patch's text changes, as "+++ b/PATH" names them (or
 * "--- a/PATH" for a file it deletes), without the first component, each
 * once; appended to *files (strv, the caller frees it with strv_free).
 */
void controllers_files(const char *patch, char ***files, int *n);
/*
 * Pure: keep[i] for each boot of sc: whether this job runs it, for the
 * files it changes (override: [runner] controllers, "" for none set).  What
 * was chosen and why into *why ("megasas (drivers/scsi/megaraid/...)").  -1
 * with err for an override naming no controller of the scenarios.
 */
int controllers_choose(const struct scenario *sc, char *const *files, int nfiles,
		       const char *override, bool *keep, struct buf *why, struct buf *err);
/*
 * prepare(): choose for r's candidate and configuration, keep only the
 * chosen boots in r->scenario and their fragments in r->configs.  0, or -1
 * with r->infra (our fault: a bad [runner] controllers).
 */
int controllers_select(struct run *r);

#endif
