/*
 * kcidb: a job's result in KernelCI's KCIDB I/O format (schema v5.3), so
 * that what bugbridge proves can be submitted to the common kernel test
 * database next to everyone else's results.
 *
 * One job becomes, per variant it ran (the patched kernel and, when it
 * had one, the unpatched baseline):
 *   checkouts  "bugbridge:job<id>-<variant>": the base, plus the patch
 *              (patchset_hash) for the patched variant; valid = it applied
 *   builds     the same id: x86_64, the config variant, status PASS/FAIL
 *   tests      "bugbridge:job<id>-<variant>-<name>": path "scsi.<name>",
 *              status PASS/FAIL/SKIP (a flaky case is PASS with
 *              misc.flaky), plus a "boot" test per build that ran
 * An infra error is ERROR (the harness failed, not the kernel); a stage
 * never reached is MISS.
 *
 * Every object is checked against the schema's required fields and
 * patterns before it is returned (kcidb_validate), so an export that would
 * be refused by KCIDB fails here, loudly.
 */
#ifndef BB_KCIDB_H
#define BB_KCIDB_H

#include "buf.h"
#include "db.h"

#define KCIDB_ORIGIN "bugbridge"
#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

/*
 * Append the job's KCIDB JSON document to out.  Returns 0, or -1 with the
 * reason in out (replacing anything there) when there is no such finished
 * job or the document would not validate.
 */
int kcidb_export(struct db *db, sqlite3_int64 job_id, struct buf *out);

/*
 * Check a KCIDB document's version, the required fields of every checkout,
 * build and test, the origin and id patterns, status values and that ids
 * referenced exist.  Returns 0, or -1 with what is wrong in err.
 */
int kcidb_validate(const char *json, struct buf *err);

#endif
