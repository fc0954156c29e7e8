/*
 * kplan: the config a job's patch needs (see kplan.h for the whole story).
 *
 * For each C file the patch touches, the Makefiles are walked from the
 * file up to the tree's root: "obj-$(CONFIG_CHR_DEV_SG) += sg.o" in
 * drivers/scsi/Makefile, "obj-y += scsi/" in drivers/Makefile, "obj-y +=
 * drivers/" in Kbuild; a composite object ("sr_mod-objs := sr.o ...") is
 * followed to the line that builds it.  Every option on the way that the
 * standard config (the seed's .config, or a configure of the standard
 * fragments when there is no seed yet) does not set is added, with what
 * its Kconfig entry depends on (kbuild.h), up to GROW_DEPTH levels and
 * GROW_TRIES options; an option without a prompt is replaced by one that
 * selects it.  A file under another architecture, a symbol of another
 * architecture, or a dependency that needs an option unset makes the job
 * untested at once.  Otherwise the grown config is configured for real in
 * the patched tree's out/ (a probe, seconds): an option that did not stick,
 * a standard option it dropped, or more than [runner] grow_max options
 * turned on make the job untested, with the reason; else the fragment
 * goes into every later configure of the job (kconfig.c), the baseline's
 * too, so that the verdict compares like with like.
 *
 * Makefiles and Kconfig files are read from the patched tree when the
 * patch touched them (through lib/safefile), else from the pristine base.
 */
#include "kplan.h"
#include "kplan_int.h"
#include "kbuild.h"
#include "kconfig.h"
#include "run.h"
#include "stage.h"
#include "paths.h"
#include "sandbox.h"
#include "apply.h"
#include "buf.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GROW_DEPTH 4		/* dependencies of dependencies of ... */
#define GROW_TRIES 24		/* options looked at for one job */

static bool is_set(struct pctx *c, const char *sym)
{
	const char *v = pctx_value(c, sym);

	return v && !strcmp(v, "y");
}

static bool have_opt(const struct kplan *p, const char *sym)
{
	for (int i = 0; i < p->nopts; i++)
		if (!strcmp(p->opts[i].name, sym))
			return true;
	return false;
}

static void add_opt(struct kplan_option **opts, int *n, const char *sym, const char *why)
{
	*opts = xreallocarray(*opts, *n + 1, sizeof(**opts));
	(*opts)[(*n)++] = (struct kplan_option){ xstrdup(sym), xstrdup(why), true };
}

static void options_free(struct kplan_option *o, int n)
{
	for (int i = 0; i < n; i++) {
		free(o[i].name);
		free(o[i].why);
	}
	free(o);
}

static const char *first_word(const char *list, struct buf *out)
{
	buf_reset(out);
	buf_add(out, list, strcspn(list, " "));
	return out->ptr;
}

/* Options sym's entry needs (deps true under the standard config and the plan). */
static int grow(struct pctx *c, const char *sym, const char *why, const char *near, int depth);

static int grow_deps(struct pctx *c, const char *sym, const struct kconfig_entry *e,
		     const char *where, int depth)
{
	struct kexpr x;
	struct buf need = BUF_INIT, why = BUF_INIT, for_sym = BUF_INIT, one = BUF_INIT;
	struct buf dir = BUF_INIT;
	int ret = 0;

	if (kexpr_parse(e->depends.ptr, &x) || depth >= GROW_DEPTH)
		goto out;		/* the probe says whether it stuck */
	if (!depth) {
		buf_reset(&c->top_deps);
		kexpr_text(&x, &c->top_deps);
	}
	if (kexpr_needs(&x, pctx_value, c, &need, &why)) {
		buf_addf(&c->tail, "it needs %s, which the config cannot have", why.ptr);
		ret = -1;
		goto out;
	}
	buf_addf(&for_sym, "for CONFIG_%s", sym);
	buf_add(&dir, where, strrchr(where, '/') ? (size_t)(strrchr(where, '/') - where) : 0);
	for (const char *n = need.ptr; *n && !ret; n += strcspn(n, " "), n += strspn(n, " "))
		ret = grow(c, first_word(n, &one), for_sym.ptr, dir.ptr, depth + 1);
out:
	buf_release(&need);
	buf_release(&why);
	buf_release(&for_sym);
	buf_release(&one);
	buf_release(&dir);
	return ret;
}

static int grow(struct pctx *c, const char *sym, const char *why, const char *near, int depth)
{
	struct kconfig_entry e;
	struct buf where = BUF_INIT, sel = BUF_INIT, one = BUF_INIT, selects = BUF_INIT;
	struct buf arch = BUF_INIT;
	int ret = 0;

	if (is_set(c, sym) || have_opt(c->p, sym))
		return 0;
	if (++c->tried > GROW_TRIES) {
		buf_addf(&c->tail, "building it needs more than %d options bugbridge would add",
			 GROW_TRIES);
		return -1;
	}
	kconfig_entry_init(&e);
	if (pctx_find_entry(c, sym, near, &e, &where) && pctx_other_arch(where.ptr, &arch)) {
		buf_addf(&c->tail, "CONFIG_%s is an option of %s only", sym, arch.ptr);
		ret = -1;
	} else if (where.len && !e.prompt && !pctx_find_selectors(c, sym, near, &sel)) {
		buf_addf(&selects, "it selects CONFIG_%s", sym);
		ret = grow(c, first_word(sel.ptr, &one), selects.ptr, near, depth);
	} else {
		add_opt(&c->p->opts, &c->p->nopts, sym, why);
		if (where.len)
			ret = grow_deps(c, sym, &e, where.ptr, depth);
	}
	kconfig_entry_release(&e);
	buf_release(&where);
	buf_release(&sel);
	buf_release(&one);
	buf_release(&selects);
	buf_release(&arch);
	return ret;
}

/* "<file>: needs CONFIG_X, which depends on D: tail" into the reason. */
static void cannot(struct pctx *c, const char *file, const char *sym)
{
	buf_addf(&c->untested, "%s%s: needs CONFIG_%s", c->untested.len ? "\n" : "", file, sym);
	if (c->top_deps.len)
		buf_addf(&c->untested, ", which depends on %s", c->top_deps.ptr);
	if (c->tail.len)
		buf_addf(&c->untested, "%s%s", c->top_deps.len ? ": " : ", but ", c->tail.ptr);
	buf_reset(&c->top_deps);
	buf_reset(&c->tail);
}

/* The options that build one touched C file, grown into the plan. */
static void need_file(struct pctx *c, struct kfile *f)
{
	struct buf opts = BUF_INIT, one = BUF_INIT, dir = BUF_INIT;
	int ret = pctx_object_needs(c, f, &opts);
	const char *slash = strrchr(f->path, '/');

	buf_add(&dir, f->path, slash ? (size_t)(slash - f->path) : 0);
	if (ret < 0)
		buf_addf(&c->untested, "%s%s: %s", c->untested.len ? "\n" : "", f->path,
			 c->tail.ptr);
	for (const char *n = opts.ptr; ret >= 0 && *n; n += strcspn(n, " "), n += strspn(n, " ")) {
		first_word(n, &one);
		buf_reset(&c->top_deps);
		buf_reset(&c->tail);
		if (grow(c, one.ptr, f->path, dir.ptr, 0)) {
			cannot(c, f->path, one.ptr);
			break;
		}
	}
	buf_reset(&c->tail);
	buf_release(&opts);
	buf_release(&one);
	buf_release(&dir);
}

static int count_y(const char *config)
{
	int n = 0;

	for (const char *p = config; (p = strstr(p, "=y\n")); p += 3)
		n++;
	return n;
}

/* The probe's verdict on the grown config: the options stuck, nothing dropped, not too much. */
static void judge_probe(struct pctx *c, const char *config, const char *dropped)
{
	struct kplan *p = c->p;
	long max = cfg_int("runner.grow_max");

	p->added = count_y(config) - count_y(c->config.ptr);
	for (int i = 0; i < p->nopts; i++) {
		if (pctx_config_is_y(config, p->opts[i].name) || !strncmp(p->opts[i].why, "for ", 4) ||
		    !strncmp(p->opts[i].why, "it selects ", 11))
			continue;
		pctx_explain(c, config, &p->opts[i]);
	}
	if (!c->untested.len && *dropped)
		buf_addf(&c->untested, "the options this patch needs drop ones the suite needs: %s",
			 dropped);
	if (!c->untested.len && p->added > max)
		buf_addf(&c->untested, "%s: needs CONFIG_%s, which turns on %d option%s more than"
			 " the standard config (at most %ld: [runner] grow_max)", p->opts[0].why,
			 p->opts[0].name, p->added, p->added == 1 ? "" : "s", max);
}

/* Configure the grown config in out/ (seconds) and judge what came out. */
static int probe(struct pctx *c)
{
	struct buf config = BUF_INIT, dropped = BUF_INIT;
	int ret;

	c->v->grown = true;
	ret = kconfig_probe(c->r, c->v, &config, &dropped);
	if (!ret)
		judge_probe(c, config.ptr, dropped.ptr);
	if (!ret && !c->untested.len) {	/* the patched build's .config, made once */
		buf_reset(&c->p->config);
		buf_addstr(&c->p->config, config.ptr);
		c->p->same_kconfig = !c->v->kconfig_touched;
	}
	buf_release(&config);
	buf_release(&dropped);
	return ret;
}

static void fragment(struct kplan *p)
{
	buf_reset(&p->fragment);
	for (int i = 0; i < p->nopts; i++)
		buf_addf(&p->fragment, "CONFIG_%s=y\n", p->opts[i].name);
}

/* The baseline's share and the job page's note, once the probe said yes. */
static void base_fragment(struct pctx *c)
{
	struct kplan *p = c->p;

	for (int i = 0; i < p->nopts; i++) {
		if (p->opts[i].in_base)
			buf_addf(&p->base_fragment, "CONFIG_%s=y\n", p->opts[i].name);
		buf_addf(&p->note, "%sCONFIG_%s (%s)", i ? ", " : "", p->opts[i].name,
			 p->opts[i].why);
	}
}

static bool needs_config(const struct kplan *p)
{
	for (int i = 0; i < p->nfiles; i++)
		if (p->files[i].kind == KF_SOURCE || p->files[i].kind == KF_ASM)
			return true;
	return p->nasked > 0;
}

static void untested(struct variant *v, const char *why)
{
	v->verdict = "untested";
	v->fault = FAULT_NONE;
	buf_reset(&v->detail);
	buf_addstr(&v->detail, why);
	log_info("runner: %s: untested: %s", v->name, why);
	stage_begin(v->run, v, "configure");	/* the stage that cannot be done */
	stage_end(v->run, "skipped", "untested");
}

int kplan_make(struct run *r, struct variant *v)
{
	struct pctx c;
	int ret = -1;

	if (!r->plan)
		r->plan = kplan_new();
	pctx_init(&c, r, v);
	/* in the apply stage still: seconds, and no configure of its own yet */
	if (pctx_classify(&c) || c.untested.len)
		goto done;
	if (!needs_config(r->plan))
		goto done;	/* headers, build rules: nothing to grow */
	if (pctx_standard_config(&c))
		goto out;
	for (int i = 0; i < r->plan->nfiles; i++)
		if (r->plan->files[i].kind == KF_SOURCE || r->plan->files[i].kind == KF_ASM)
			need_file(&c, &r->plan->files[i]);
	for (int i = 0; i < r->plan->nasked && !c.untested.len; i++)
		if (grow(&c, r->plan->asked[i].name, r->plan->asked[i].why, "", 0))
			cannot(&c, r->plan->asked[i].why, r->plan->asked[i].name);
	fragment(r->plan);
	if (!c.untested.len && r->plan->nopts && probe(&c))
		goto out;
	if (!c.untested.len && r->plan->nopts) {
		pctx_in_base(&c);
		base_fragment(&c);
	}
done:
	if (c.untested.len)
		buf_reset(&r->plan->fragment);	/* nothing of it is built */
	v->grown = kplan_grown(r);
	if (c.untested.len)
		untested(v, c.untested.ptr);
	ret = 0;
out:
	pctx_release(&c);
	return ret;
}

void kplan_note_config(struct run *r)
{
	struct buf note = BUF_INIT;

	buf_addf(&note, "the config grows by %s", r->plan->note.ptr);
	stage_note(r, note.ptr);
	buf_release(&note);
}

void kplan_note_build(struct run *r, struct variant *v)
{
	struct buf note = BUF_INIT;

	buf_addf(&note, "config grown by %d option%s beyond the standard one (%s): built %s,"
		 " %d objects compiled in %.0f s", r->plan->added, r->plan->added == 1 ? "" : "s",
		 r->plan->note.ptr, v->seeded ? "from the standard seed" : "in full",
		 v->build_objects, v->build_seconds);
	stage_note(r, note.ptr);
	log_info("runner: %s: %s", v->name, note.ptr);
	buf_release(&note);
}

bool kplan_grown(const struct run *r)
{
	return r->plan && r->plan->fragment.len;
}

const char *kplan_fragment(const struct run *r, const struct variant *v)
{
	if (!v->grown || !r->plan)
		return "";
	return v->npatches ? r->plan->fragment.ptr : r->plan->base_fragment.ptr;
}

struct kplan *kplan_new(void)
{
	struct kplan *p = xcalloc(1, sizeof(*p));

	buf_init(&p->fragment, 0);
	buf_init(&p->base_fragment, 0);
	buf_init(&p->note, 0);
	buf_init(&p->config, 0);
	return p;
}

void kplan_free(struct kplan *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].object);
		free(p->files[i].why);
		strv_free(p->files[i].includers, p->files[i].nincluders);
	}
	free(p->files);
	options_free(p->opts, p->nopts);
	options_free(p->asked, p->nasked);
	buf_release(&p->fragment);
	buf_release(&p->base_fragment);
	buf_release(&p->note);
	buf_release(&p->config);
	free(p);
}

int kplan_request(struct run *r, const char *option, const char *why)
{
	size_t n = strspn(option, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	if (!strncmp(option, "CONFIG_", 7))
		return kplan_request(r, option + 7, why);
	if (!n || option[n] || n >= KX_SYM)
		return -1;
	if (!r->plan)
		r->plan = kplan_new();
	add_opt(&r->plan->asked, &r->plan->nasked, option, why);
	return 0;
}
