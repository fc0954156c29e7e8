/*
 * kplan_int: what kplan.c's parts share (not for the rest of the runner).
 * kplan_tree.c reads the trees for them: the touched files' kinds, the
 * standard .config, the Makefile walk, Kconfig entries and why an option
 * did not stick.
 */
#ifndef BB_KPLAN_INT_H
#define BB_KPLAN_INT_H

#include <stdbool.h>
#include "buf.h"
#include "kbuild.h"
#include "kplan.h"
#include "run.h"

/* A size no Makefile, Kconfig or .config of a kernel comes near. */
#define KPLAN_TEXT_MAX (4 << 20)

struct pctx {
	struct run *r;
	struct variant *v;
	struct kplan *p;
	struct buf config;		/* the standard .config */
	const char *values;		/* the .config pctx_value reads (config, or a probe's) */
	bool with_plan;			/* pctx_value: the plan's options count as y */
	bool base_only;			/* read the base's files even where the patch touched them */
	char **kconfigs;		/* every Kconfig file of the base, once searched */
	char **ktexts;
	int nkconfigs;
	bool listed;
	struct buf ring[4];		/* pctx_value's answers */
	int next;
	struct buf untested;		/* why the job cannot be tested */
	struct buf top_deps, tail;	/* a reason being put together */
	int tried;
};

struct kplan *kplan_new(void);
void pctx_init(struct pctx *c, struct run *r, struct variant *v);
void pctx_release(struct pctx *c);
/* kconfig_value_fn over c->values (and the plan's options, with_plan). */
const char *pctx_value(void *ctx, const char *sym);
bool pctx_config_is_y(const char *config, const char *sym);
/* r->plan->files from v->cand_files; an untestable file's reason in c->untested. */
int pctx_classify(struct pctx *c);
/* c->config: the seed's .config, else a configure of the standard fragments. */
int pctx_standard_config(struct pctx *c);
/* A file as the patched build sees it: the patch's, else the base's; 0 or -1. */
int pctx_tree_text(struct pctx *c, const char *rel, struct buf *out);
/* The options that build f's object, space-separated; -1 with c->tail when none can. */
int pctx_object_needs(struct pctx *c, struct kfile *f, struct buf *opts);
/* sym's Kconfig entry, looked for from directory near upwards, then everywhere. */
bool pctx_find_entry(struct pctx *c, const char *sym, const char *near, struct kconfig_entry *e,
		     struct buf *where);
/* Entries with a prompt that select sym; 0 when there is one. */
int pctx_find_selectors(struct pctx *c, const char *sym, const char *near, struct buf *names);
/* Is a Kconfig path another architecture's?  Its "arch/powerpc" in arch. */
bool pctx_other_arch(const char *path, struct buf *arch);
/* Why option o is not y in the probe's config, into c->untested. */
void pctx_explain(struct pctx *c, const char *config, const struct kplan_option *o);
/* Which of the plan's options the base's Kconfig has (in_base). */
void pctx_in_base(struct pctx *c);

#endif
