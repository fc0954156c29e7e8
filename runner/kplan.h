/*
 * kplan: what a job's patch needs of the kernel build (issue 32).
 *
 * No pass for code that was not built: each file the candidate touches is
 * classified (C built into the kernel, a header, assembly, build rules,
 * documentation, not part of the kernel, deleted); for each C file the
 * Makefiles say which options build it, Kconfig what those depend on, and
 * the options the standard config lacks are added as a per-job fragment
 * (configs/ is never changed).  When an option cannot stick, or would pull
 * in too much, or a file is built for another architecture only, the job
 * is "untested" with the reason, before anything is built.  After the
 * build, every touched C file's object must have been compiled, else the
 * job is "untested" too.
 *
 * With [runner] coverage, gcov profiles exactly the touched files' objects
 * (and the objects that include a touched header): kplan_profile() adds
 * "GCOV_PROFILE_<obj>.o := y" to their directories' Makefiles in the
 * patched tree only, as the harness does for drivers/scsi.  reach.c then
 * counts every changed line of every file and names each it cannot
 * measure.
 *
 * Ownership: run.c owns r->plan (kplan_free).  A scenario may ask for
 * options too (kplan_request) before kplan_make runs.
 */
#ifndef BB_KPLAN_H
#define BB_KPLAN_H

#include <stdbool.h>
#include "buf.h"
#include "run.h"

enum kfile_kind {
	KF_SOURCE,		/* C the kernel builds: its object must be compiled */
	KF_HEADER,		/* measured through the profiled objects that include it */
	KF_ASM,			/* built, but gcov sees no lines of it */
	KF_BUILD,		/* Kconfig, Makefile, Kbuild: rules, no lines that run */
	KF_DOC,			/* Documentation/, text */
	KF_OTHER,		/* not part of the kernel (tools/, scripts/, a host program) */
	KF_GONE,		/* the patch deleted it */
};

struct kfile {
	char *path;		/* "drivers/scsi/sg.c" */
	enum kfile_kind kind;
	char *object;		/* KF_SOURCE, KF_ASM: "drivers/scsi/sg.o" */
	char *why;		/* no lines to reach, or not measured: why */
	bool profiled;		/* gcov profiles its object (or, a header, its includers) */
	bool rule_unknown;	/* no Makefile line bugbridge reads builds it */
	char **includers;	/* KF_HEADER: the profiled objects that include it */
	int nincluders;
};

struct kplan_option {
	char *name;		/* "CHR_DEV_SG" */
	char *why;		/* "drivers/scsi/sg.c", "scenario megasas", "for SCSI_MESH" */
	bool in_base;		/* the base's Kconfig has it too: the baseline gets it */
};

struct kplan {
	struct kfile *files;
	int nfiles;
	struct kplan_option *asked;	/* kplan_request's */
	int nasked;
	struct kplan_option *opts;	/* what the config grows by */
	int nopts;
	struct buf fragment;		/* the patched variant's "CONFIG_X=y" lines */
	struct buf base_fragment;	/* the baseline's: those its Kconfig has */
	struct buf note;		/* for the job page: what grew, and why */
	struct buf config;		/* the probe's .config: the patched variant's */
	bool same_kconfig;		/* the patch changed no Kconfig: the baseline's too */
	int added;			/* options set beyond the standard config */
};

void kplan_free(struct kplan *p);
/* Ask for an option (a scenario's driver, before kplan_make): 0, -1 for a bad name. */
int kplan_request(struct run *r, const char *option, const char *why);
/*
 * After the patched variant's apply: classify its files, grow the config.
 * 0, with v->verdict "untested" when the job cannot be tested; -1 with
 * r->infra when it could not tell.
 */
int kplan_make(struct run *r, struct variant *v);
/* The configure stage's note: the options the config grows by, and for what. */
void kplan_note_config(struct run *r);
/* The build stage's note: what the grown config cost (objects, seconds). */
void kplan_note_build(struct run *r, struct variant *v);
/* Did the job's config grow beyond the standard one? */
bool kplan_grown(const struct run *r);
/* Before the patched build (the seed in out/): gcov for the touched objects. */
int kplan_profile(struct run *r, struct variant *v);
/* After it: every touched C file compiled (else v->verdict "untested"); 0, or -1 on infra. */
int kplan_check_built(struct run *r, struct variant *v);
/* The fragment of a variant's grown config ("" when none). */
const char *kplan_fragment(const struct run *r, const struct variant *v);
/* The objects whose gcov data the guest may hand back, beyond drivers/scsi/'s. */
int kplan_gcda_wanted(const struct run *r, char ***out, int *n);

/* ---- kplan_file.c (pure): what kind of file a path is, without reading it ---- */
enum kfile_kind kplan_kind(const char *path, const char **why);

#endif
