/*
 * kplan_kconf: Kconfig entries for kplan.c (see kplan_int.h): where an
 * option is defined, what it depends on, who selects it, why it did not
 * stick.  An entry is looked for in the Kconfig files of the touched
 * file's directory and its parents first (drivers/scsi/Kconfig,
 * drivers/Kconfig, Kconfig), then in every Kconfig file of the base,
 * read once per job and searched with x86's and the generic ones before
 * other architectures' (a symbol defined by both is ours).
 */
#include "kplan_int.h"
#include "kbuild.h"
#include "paths.h"
#include "apply.h"
#include "buf.h"
#include "xalloc.h"
#include "log.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KCONFIG_FILES_MAX 8000	/* a 6.1 tree has about 1700 */

/* "Kconfig*" names in dir of the base (or of the patched tree, for a new dir). */
static int kconfig_names(struct pctx *c, const char *dir, char ***names, int *n)
{
	struct buf path = BUF_INIT;
	struct dirent *e;
	DIR *d;

	buf_addf(&path, "%s/%s", c->r->base_tree, dir);
	d = opendir(path.ptr);
	if (!d && !c->base_only) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", c->v->tree, dir);
		d = opendir(path.ptr);
	}
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "Kconfig", 7) && e->d_type != DT_DIR && e->d_type != DT_LNK) {
			*names = xreallocarray(*names, *n + 1, sizeof(**names));
			buf_reset(&path);
			buf_addf(&path, "%s%s%s", dir, *dir ? "/" : "", e->d_name);
			(*names)[(*n)++] = buf_detach(&path, NULL);
		}
	if (d)
		closedir(d);
	buf_release(&path);
	return 0;
}

static int later_arch(const void *a, const void *b)
{
	struct buf x = BUF_INIT;
	bool oa = pctx_other_arch(*(char *const *)a, &x), ob = pctx_other_arch(*(char *const *)b, &x);

	buf_release(&x);
	return (int)oa - (int)ob;
}

static void walk(struct pctx *c, const char *dir, int depth)
{
	struct buf path = BUF_INIT;
	struct dirent *e;
	DIR *d;

	buf_addf(&path, "%s/%s", c->r->base_tree, dir);
	d = opendir(path.ptr);
	while (d && (e = readdir(d)) && c->nkconfigs < KCONFIG_FILES_MAX) {
		buf_reset(&path);
		buf_addf(&path, "%s%s%s", dir, *dir ? "/" : "", e->d_name);
		if (e->d_name[0] == '.' || e->d_type == DT_LNK)
			continue;
		if (e->d_type == DT_DIR && depth < 12 && strcmp(path.ptr, "Documentation")) {
			walk(c, path.ptr, depth + 1);
		} else if (!strncmp(e->d_name, "Kconfig", 7) && e->d_type == DT_REG) {
			c->kconfigs = xreallocarray(c->kconfigs, c->nkconfigs + 1, sizeof(char *));
			c->kconfigs[c->nkconfigs++] = buf_detach(&path, NULL);
		}
	}
	if (d)
		closedir(d);
	buf_release(&path);
}

/* Every Kconfig file of the base, and its text, once. */
static void list_all(struct pctx *c)
{
	struct buf text = BUF_INIT, path = BUF_INIT;

	if (c->listed)
		return;
	c->listed = true;
	walk(c, "", 0);
	qsort(c->kconfigs, c->nkconfigs, sizeof(char *), later_arch);
	c->ktexts = xcalloc(c->nkconfigs ? c->nkconfigs : 1, sizeof(char *));
	for (int i = 0; i < c->nkconfigs; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", c->r->base_tree, c->kconfigs[i]);
		buf_reset(&text);
		c->ktexts[i] = buf_read_file(&text, path.ptr) ? xstrdup("")
							       : buf_detach(&text, NULL);
	}
	buf_release(&text);
	buf_release(&path);
}

struct search {
	const char *sym;
	struct kconfig_entry *e;	/* find_entry */
	struct buf *found;		/* where, or the selectors */
	bool selectors;
};

static bool look(struct search *s, const char *rel, const char *text)
{
	if (s->selectors)
		return !kconfig_selectors(text, s->sym, s->found);
	if (!kconfig_entry(text, s->sym, s->e))
		return false;
	buf_reset(s->found);
	buf_addstr(s->found, rel);
	return true;
}

static bool search(struct pctx *c, const char *near, struct search *s)
{
	struct buf dir = BUF_INIT, text = BUF_INIT;
	bool hit = false;

	buf_addstr(&dir, near);
	for (int up = 0; !hit && up < 12; up++) {
		char **names = NULL;
		int n = 0;
		const char *slash = strrchr(dir.ptr, '/');

		kconfig_names(c, dir.ptr, &names, &n);
		for (int i = 0; i < n && !hit; i++)
			hit = !pctx_tree_text(c, names[i], &text) && look(s, names[i], text.ptr);
		strv_free(names, n);
		if (!dir.len)
			break;
		buf_setlen(&dir, slash ? (size_t)(slash - dir.ptr) : 0);
	}
	list_all(c);
	for (int i = 0; i < c->nkconfigs && !hit; i++)
		hit = look(s, c->kconfigs[i], c->ktexts[i]);
	buf_release(&dir);
	buf_release(&text);
	return hit;
}

bool pctx_find_entry(struct pctx *c, const char *sym, const char *near, struct kconfig_entry *e,
		     struct buf *where)
{
	struct search s = { .sym = sym, .e = e, .found = where };

	buf_reset(where);
	return search(c, near, &s);
}

int pctx_find_selectors(struct pctx *c, const char *sym, const char *near, struct buf *names)
{
	struct search s = { .sym = sym, .found = names, .selectors = true };

	buf_reset(names);
	return search(c, near, &s) ? 0 : -1;
}

void pctx_explain(struct pctx *c, const char *config, const struct kplan_option *o)
{
	struct kconfig_entry e;
	struct buf where = BUF_INIT, text = BUF_INIT, blockers = BUF_INIT, dir = BUF_INIT;
	struct kexpr x;
	const char *slash = strrchr(o->why, '/');

	kconfig_entry_init(&e);
	buf_add(&dir, o->why, slash ? (size_t)(slash - o->why) : 0);
	buf_addf(&c->untested, "%s%s: needs CONFIG_%s, which did not stick", c->untested.len ?
		 "\n" : "", o->why, o->name);
	if (!pctx_find_entry(c, o->name, dir.ptr, &e, &where)) {
		buf_addstr(&c->untested, " (no Kconfig file defines it)");
	} else if (!kexpr_parse(e.depends.ptr, &x)) {
		c->values = config;
		c->with_plan = false;
		kexpr_text(&x, &text);
		kexpr_blockers(&x, pctx_value, c, &blockers);
		c->values = NULL;
		c->with_plan = true;
		if (blockers.len)
			buf_addf(&c->untested, ": it depends on %s, and %s is not met", text.ptr,
				 blockers.ptr);
		else
			buf_addf(&c->untested, " though its dependencies are met (%s)",
				 e.prompt ? "a choice, or a value set elsewhere" : "it has no prompt");
	}
	kconfig_entry_release(&e);
	buf_release(&where);
	buf_release(&text);
	buf_release(&blockers);
	buf_release(&dir);
}

void pctx_in_base(struct pctx *c)
{
	struct kconfig_entry e;
	struct buf where = BUF_INIT;

	if (!c->v->kconfig_touched)
		return;
	kconfig_entry_init(&e);
	c->base_only = true;
	for (int i = 0; i < c->p->nopts; i++)
		c->p->opts[i].in_base = pctx_find_entry(c, c->p->opts[i].name, "", &e, &where);
	c->base_only = false;
	kconfig_entry_release(&e);
	buf_release(&where);
}
