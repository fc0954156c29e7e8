/*
 * lavadef (pure): a LAVA job's definition, the console out of its log, and
 * what a finished LAVA job means.
 */
#ifndef BB_LAVADEF_H
#define BB_LAVADEF_H

#include <stdbool.h>
#include <stddef.h>
#include "buf.h"

struct scenario_boot;

#define LAVA_SUITE_END "# bbsuite exit status"
struct lava_def {
	const char *job_name, *device_type, *priority;
	const char *visibility;			/* public, personal or group */
	char **groups;				/* visibility = group: who may see */
	int ngroups;
	long job_timeout, test_timeout;		/* seconds */
	const char *kernel_url, *ramdisk_url;
	const char *images_url;			/* images at <images_url>/NAME.img */
	const char *append;			/* the kernel command line */
	const struct scenario_boot *sb;
	bool board;				/* a real board: no QEMU devices */
	bool kvm;
	const char *boot_method;		/* a board's */
};
/* The job definition (JSON, which LAVA reads as YAML) into out. */
void lava_definition(const struct lava_def *d, struct buf *out);
/*
 * From a LAVA 2023.01 job log: the serial console (the "target" and
 * "feedback" lines, one
 * per line) appended to console, the QEMU command line to boot_cmd (if not
 * NULL).  Returns the number of console lines.
 */
int lava_log_console(const char *log, size_t len, struct buf *console, struct buf *boot_cmd);
/* Does this QEMU command line give the guest a network? */
bool lava_cmd_has_network(const char *cmd);
enum lava_end {
	LAVA_END_RAN,		/* the guest ran; its console tells the rest */
	LAVA_END_TIMEOUT,	/* the guest hung past the test's timeout */
	LAVA_END_CANCELED,	/* cancelled in LAVA, not by us */
	LAVA_END_INFRA,		/* the lab failed: the kernel never ran, or lost mid-boot */
};
/* What a finished LAVA job (health, failure_comment) with this console means. */
enum lava_end lava_judge(const char *health, const char *failure, const char *console);

#endif
