/*
 * kbuild: what the kernel's own build files say, read as text (pure).
 *
 * Which Makefile line builds an object ("obj-$(CONFIG_CHR_DEV_SG) += sg.o",
 * a part of a composite object "sr_mod-objs := sr.o ..."), which line
 * descends into a directory, whether a Makefile turns gcov off; what a
 * Kconfig entry depends on, whether it has a prompt and who selects it;
 * Kconfig's dependency expressions (parse, evaluate against a .config,
 * what they need to become true, which of their symbols keep them false);
 * and whether a kbuild .cmd file lists a header.  grow.c walks the tree
 * with these; nothing here opens a file.
 */
#ifndef BB_KBUILD_H
#define BB_KBUILD_H

#include <stdbool.h>
#include "buf.h"

/* ---- Makefiles ---- */

#define KB_CONDS 4
/* One way a kbuild file builds a target ("sg.o", or "scsi/" for a directory). */
struct kbuild_rule {
	char *composite;	/* "sr_mod" when the target is a part of sr_mod.o; NULL: itself */
	char *option;		/* "CHR_DEV_SG" of obj-$(CONFIG_CHR_DEV_SG); NULL: obj-y, X-objs */
	bool module_only;	/* obj-m: never in a bzImage */
	char *conds[KB_CONDS];	/* enclosing "ifdef CONFIG_X" / "ifeq ($(CONFIG_X),y)" */
	int nconds;
	bool unknown;		/* under a condition bugbridge cannot read (ifndef, else, ...) */
};
/* Every rule of a Makefile or Kbuild text that names target; how many (out: free with kbuild_rules_free). */
int kbuild_rules(const char *text, const char *target, struct kbuild_rule **out, int *n);
void kbuild_rules_free(struct kbuild_rule *r, int n);
/* Does the text say "GCOV_PROFILE := n" or "GCOV_PROFILE_<obj> := n" (obj: "sg.o")? */
bool kbuild_gcov_off(const char *text, const char *obj);
/* Does a kbuild .cmd text list the tree's file rel ("include/linux/blk-mq.h") among its deps? */
bool kbuild_cmd_lists(const char *cmd, const char *rel);

/* ---- Kconfig expressions ---- */

#define KX_MAX 48
#define KX_SYM 64
struct kx_node {
	enum { KX_SYM_NODE, KX_NOT, KX_AND, KX_OR, KX_CMP } kind;
	int a, b;			/* operands (KX_NOT: a) */
	char sym[KX_SYM];		/* KX_SYM_NODE, KX_CMP's left */
	char rhs[KX_SYM];		/* KX_CMP's right */
	bool ne;			/* KX_CMP: != */
};
struct kexpr {
	struct kx_node n[KX_MAX];
	int nn, root;			/* root -1: empty (always true) */
};
/* A symbol's value in a .config ("y", "m", a string) or NULL when it is not set. */
typedef const char *(*kconfig_value_fn)(void *ctx, const char *sym);
/* Parse "A && (B || !C)"; -1 when it is not an expression bugbridge reads. */
int kexpr_parse(const char *text, struct kexpr *e);
bool kexpr_true(const struct kexpr *e, kconfig_value_fn val, void *ctx);
/*
 * The symbols that, set to y, make e true (appended to need, space-separated,
 * each once): 0; -1 when no such set exists without unsetting one (a "!X"
 * whose X is set, "X=n" ...), with the term in why.
 */
int kexpr_needs(const struct kexpr *e, kconfig_value_fn val, void *ctx, struct buf *need,
		struct buf *why);
/* The symbols whose values keep e false ("PPC32, PPC_PMAC"), for a reason. */
void kexpr_blockers(const struct kexpr *e, kconfig_value_fn val, void *ctx, struct buf *out);
/* e written again from its parse (symbols and operators only: safe to show). */
void kexpr_text(const struct kexpr *e, struct buf *out);

/* ---- Kconfig entries ---- */

struct kconfig_entry {
	struct buf depends;		/* the entry's, its menus' and ifs' "depends", &&-joined */
	bool prompt;			/* the user can set it (else only a select does) */
};
void kconfig_entry_init(struct kconfig_entry *e);
void kconfig_entry_release(struct kconfig_entry *e);
/* Find "config SYM" (or menuconfig) in a Kconfig text: true with *e filled. */
bool kconfig_entry(const char *text, const char *sym, struct kconfig_entry *e);
/* Entries of the text with a prompt that "select SYM": their names, space-separated. */
int kconfig_selectors(const char *text, const char *sym, struct buf *names);

#endif
