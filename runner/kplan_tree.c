/*
 * kplan_tree: kplan.c's reading of the trees (see kplan_int.h).
 *
 * The pristine base is ours and read directly; a file the patch touched is
 * read from the patched tree through lib/safefile.  Directories are listed
 * in the base, or, for one the patch created, in the patched tree (only
 * GNU patch has written it so far: directories and regular files).
 */
#include "kplan_int.h"
#include "kconfig.h"
#include "stage.h"
#include "paths.h"
#include "apply.h"
#include "buf.h"
#include "xalloc.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WALK_DEPTH 8		/* Makefiles or Kconfig entries followed, one file */

void pctx_init(struct pctx *c, struct run *r, struct variant *v)
{
	memset(c, 0, sizeof(*c));
	c->r = r;
	c->v = v;
	c->p = r->plan;
	c->with_plan = true;
	buf_init(&c->config, 0);
	buf_init(&c->untested, 0);
	buf_init(&c->top_deps, 0);
	buf_init(&c->tail, 0);
	for (int i = 0; i < 4; i++)
		buf_init(&c->ring[i], 0);
}

void pctx_release(struct pctx *c)
{
	buf_release(&c->config);
	buf_release(&c->untested);
	buf_release(&c->top_deps);
	buf_release(&c->tail);
	for (int i = 0; i < 4; i++)
		buf_release(&c->ring[i]);
	strv_free(c->kconfigs, c->nkconfigs);
	strv_free(c->ktexts, c->nkconfigs);
}

/* "CONFIG_sym=..." in a .config: the value's start, or NULL. */
static const char *config_find(const char *config, const char *sym)
{
	size_t n = strlen(sym);

	for (const char *p = config; (p = strstr(p, "CONFIG_")); p += 7)
		if ((p == config || p[-1] == '\n') && !strncmp(p + 7, sym, n) && p[7 + n] == '=')
			return p + 8 + n;
	return NULL;
}

bool pctx_config_is_y(const char *config, const char *sym)
{
	const char *v = config_find(config, sym);

	return v && v[0] == 'y' && (!v[1] || v[1] == '\n');
}

const char *pctx_value(void *ctx, const char *sym)
{
	struct pctx *c = ctx;
	struct buf *out = &c->ring[c->next++ % 4];
	const char *v;

	for (int i = 0; c->with_plan && c->p && i < c->p->nopts; i++)
		if (!strcmp(c->p->opts[i].name, sym))
			return "y";
	v = config_find(c->values ? c->values : c->config.ptr, sym);
	if (!v)
		return NULL;
	buf_reset(out);
	if (*v == '"')
		v++;
	buf_add(out, v, strcspn(v, "\"\n"));
	return out->ptr;
}

static bool touched(const struct variant *v, const char *rel)
{
	for (int i = 0; i < v->ncand_files; i++)
		if (!strcmp(v->cand_files[i], rel))
			return true;
	return false;
}

int pctx_tree_text(struct pctx *c, const char *rel, struct buf *out)
{
	struct buf path = BUF_INIT;
	int ret;

	buf_reset(out);
	if (!c->base_only && touched(c->v, rel)) {
		buf_addf(&path, "%s/%s", c->v->tree, rel);
		ret = job_read(c->r, path.ptr, KPLAN_TEXT_MAX, out);
	} else {
		buf_addf(&path, "%s/%s", c->r->base_tree, rel);
		ret = buf_read_file(out, path.ptr);
	}
	buf_release(&path);
	return ret;
}

static void parent_of(const char *dir, struct buf *out)
{
	const char *slash = strrchr(dir, '/');

	buf_reset(out);
	buf_add(out, dir, slash ? (size_t)(slash - dir) : 0);
}

/* The kbuild file of dir ("" the top): Kbuild, else Makefile. */
static int kbuild_text(struct pctx *c, const char *dir, struct buf *out)
{
	static const char *const names[] = { "Kbuild", "Makefile" };
	struct buf rel = BUF_INIT;
	int ret = -1;

	for (int i = 0; i < 2 && ret; i++) {
		buf_reset(&rel);
		buf_addf(&rel, "%s%s%s", dir, *dir ? "/" : "", names[i]);
		ret = pctx_tree_text(c, rel.ptr, out);
	}
	buf_release(&rel);
	return ret;
}

static void add_word(struct buf *list, const char *w)
{
	if (w && !str_list_has(list->ptr, ' ', w, strlen(w)))
		buf_addf(list, "%s%s", list->len ? " " : "", w);
}

/*
 * The rule to follow of those that name a target: one whose option the
 * standard config has (or none), else the first that is not obj-m.
 */
static const struct kbuild_rule *pick(struct pctx *c, const struct kbuild_rule *r, int n)
{
	const struct kbuild_rule *first = NULL;

	for (int i = 0; i < n; i++) {
		const char *v;

		if (r[i].module_only)
			continue;
		c->with_plan = false;
		v = r[i].option ? pctx_value(c, r[i].option) : "y";
		c->with_plan = true;
		if (v && !strcmp(v, "y"))
			return &r[i];
		if (!first)
			first = &r[i];
	}
	return first;
}

/* 0: the rule found and its options added; 1: no rule; -1: only as a module. */
static int follow(struct pctx *c, const char *dir, const char *target, struct buf *opts,
		  struct buf *composite)
{
	struct kbuild_rule *rules = NULL;
	const struct kbuild_rule *r;
	struct buf text = BUF_INIT;
	int n = 0, ret = 1;

	if (!kbuild_text(c, dir, &text))
		kbuild_rules(text.ptr, target, &rules, &n);
	r = pick(c, rules, n);
	if (n && !r) {
		buf_addf(&c->tail, "its Makefile builds %s only as a module (obj-m), never into"
			 " the kernel image", target);
		ret = -1;
	} else if (r) {
		add_word(opts, r->option);
		for (int i = 0; i < r->nconds; i++)
			add_word(opts, r->conds[i]);
		buf_reset(composite);
		if (r->composite)
			buf_addf(composite, "%s.o", r->composite);
		ret = 0;
	}
	kbuild_rules_free(rules, n);
	buf_release(&text);
	return ret;
}

/* The options that make kbuild descend into dir, from its ancestors' files. */
static int dir_needs(struct pctx *c, const char *dir, struct buf *opts, int depth)
{
	struct buf anc = BUF_INIT, target = BUF_INIT, composite = BUF_INIT;
	int ret = 1;

	/* the top Makefile's libs-y and the arch's (ARCH_LIB): always built */
	if (!*dir || !strcmp(dir, "lib") || !strcmp(dir, "arch/x86/lib"))
		return 0;
	if (depth > WALK_DEPTH)
		return 1;
	parent_of(dir, &anc);
	for (;;) {
		buf_reset(&target);
		buf_addf(&target, "%s/", dir + (anc.len ? anc.len + 1 : 0));
		ret = follow(c, anc.ptr, target.ptr, opts, &composite);
		if (ret <= 0 || !anc.len)
			break;
		parent_of(anc.ptr, &anc);
	}
	if (!ret)
		ret = dir_needs(c, anc.ptr, opts, depth + 1);
	buf_release(&anc);
	buf_release(&target);
	buf_release(&composite);
	return ret;
}

int pctx_object_needs(struct pctx *c, struct kfile *f, struct buf *opts)
{
	struct buf dir = BUF_INIT, target = BUF_INIT, composite = BUF_INIT;
	const char *slash = strrchr(f->path, '/');
	int ret = 1;

	buf_add(&dir, f->path, slash ? (size_t)(slash - f->path) : 0);
	buf_addstr(&target, slash ? slash + 1 : f->path);
	buf_setlen(&target, target.len - 2);
	buf_addstr(&target, ".o");
	for (int depth = 0; depth < WALK_DEPTH; depth++) {
		ret = follow(c, dir.ptr, target.ptr, opts, &composite);
		if (ret || !composite.len)
			break;
		buf_reset(&target);
		buf_addstr(&target, composite.ptr);	/* then what builds sr_mod.o */
	}
	if (!ret)
		ret = dir_needs(c, dir.ptr, opts, 0);
	if (ret > 0) {
		f->rule_unknown = true;
		log_info("runner: %s: no Makefile line bugbridge reads builds it", f->path);
	}
	buf_release(&dir);
	buf_release(&target);
	buf_release(&composite);
	return ret < 0 ? -1 : 0;
}

/* "arch/arm64/..." of another architecture than ours: "arm64" into arch. */
bool pctx_other_arch(const char *path, struct buf *arch)
{
	const char *a = path + 5, *slash = strchr(a, '/');

	if (strncmp(path, "arch/", 5) || !slash || !strncmp(a, "x86/", 4))
		return false;
	buf_reset(arch);
	buf_addf(arch, "arch/%.*s", (int)(slash - a), a);
	return true;
}

static void add_file(struct kplan *p, const char *path, enum kfile_kind kind, const char *why)
{
	struct kfile *f;

	p->files = xreallocarray(p->files, p->nfiles + 1, sizeof(*p->files));
	f = &p->files[p->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	f->kind = kind;
	f->why = why ? xstrdup(why) : NULL;
	if (kind == KF_SOURCE || kind == KF_ASM) {
		struct buf o = BUF_INIT;

		buf_add(&o, path, strlen(path) - 2);
		buf_addstr(&o, ".o");
		f->object = buf_detach(&o, NULL);
	}
}

static bool exists(struct pctx *c, const char *rel)
{
	struct buf path = BUF_INIT;
	int fd;

	buf_addf(&path, "%s/%s", c->v->tree, rel);
	fd = job_open(c->r, path.ptr, SAFE_READ);
	buf_release(&path);
	if (fd >= 0)
		close(fd);
	return fd >= 0 || errno != ENOENT;
}

int pctx_classify(struct pctx *c)
{
	struct buf arch = BUF_INIT, none = BUF_INIT;
	int built = 0;

	for (int i = 0; i < c->v->ncand_files; i++) {
		const char *path = c->v->cand_files[i], *why;
		enum kfile_kind kind = kplan_kind(path, &why);

		if (!exists(c, path)) {
			kind = KF_GONE;
			why = "deleted: no lines left to reach";
		} else if (kind <= KF_ASM && pctx_other_arch(path, &arch)) {
			if (kind != KF_HEADER)
				buf_addf(&c->untested, "%s%s: built only for %s; the runner builds"
					 " x86_64", c->untested.len ? "\n" : "", path, arch.ptr + 5);
			kind = KF_OTHER;
			why = "another architecture's";
		}
		add_file(c->p, path, kind, why);
		if (kind <= KF_BUILD || kind == KF_GONE)
			built++;
		else
			buf_addf(&none, "%s%s (%s)", none.len ? ", " : "", path, why);
	}
	if (!built && !c->untested.len && c->v->ncand_files)
		buf_addf(&c->untested, "the patch changes no file the kernel is built from: %s",
			 none.ptr);
	buf_release(&arch);
	buf_release(&none);
	return 0;
}

int pctx_standard_config(struct pctx *c)
{
	struct run *r = c->r;
	struct buf path = BUF_INIT, dropped = BUF_INIT;
	int ret;

	/* a seed of the variant's own kind: the plain one lacks gcov's options */
	buf_addf(&path, "%s/seed/%s/.config", r->cache, c->v->coverage ? r->seed_key_gcov :
		 r->seed_key);
	ret = buf_read_file(&c->config, path.ptr);	/* a seed is ours */
	if (ret) {
		/* a cold cache: the standard fragments configured here first (seconds) */
		c->v->grown = false;
		ret = kconfig_probe(r, c->v, &c->config, &dropped);
		if (!ret && dropped.len) {
			stage_blame(r, FAULT_OURS, "config options did not stick: %s", dropped.ptr);
			ret = -1;
		}
	}
	buf_release(&path);
	buf_release(&dropped);
	return ret;
}
