/*
 * kbuild: the kernel's Makefiles and .cmd files as text (see kbuild.h);
 * kconfig_expr.c reads Kconfig.
 *
 * A Makefile is read one logical line at a time (continuations joined,
 * comments cut).  Of make's language only what kbuild Makefiles use to
 * say what they build is understood: assignments to obj-y, obj-m,
 * obj-$(CONFIG_X), lib-*, and to a composite object's parts (NAME-y,
 * NAME-objs, NAME-$(CONFIG_X)); "ifdef CONFIG_X" and "ifeq
 * ($(CONFIG_X),y)" around them.  Anything else around a rule (ifndef,
 * else, a $(call ...)) makes the rule "unknown": the runner's check after
 * the build (was the object compiled?) has the last word, not this.
 */
#include "kbuild.h"
#include "buf.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The next logical line: continuations joined, a comment cut, blanks trimmed. */
static bool next_line(const char **p, struct buf *line)
{
	char *hash;

	buf_reset(line);
	if (!**p)
		return false;
	for (;;) {
		const char *nl = strchrnul(*p, '\n');
		size_t len = (size_t)(nl - *p);
		bool cont = len && (*p)[len - 1] == '\\';

		buf_add(line, *p, cont ? len - 1 : len);
		*p = *nl ? nl + 1 : nl;
		if (!cont || !**p)
			break;
		buf_addch(line, ' ');
	}
	for (hash = line->ptr; (hash = strchr(hash, '#')); hash++)
		if (hash == line->ptr || hash[-1] != '\\') {
			buf_setlen(line, (size_t)(hash - line->ptr));
			break;
		}
	buf_trim(line);
	return true;
}

/* "$(CONFIG_FOO)" anywhere in s: FOO, malloc'd; NULL if none. */
static char *config_ref(const char *s)
{
	const char *c = strstr(s, "$(CONFIG_"), *e;

	if (!c)
		return NULL;
	c += 9;
	for (e = c; isalnum((unsigned char)*e) || *e == '_'; e++)
		;
	return *e == ')' && e > c ? xstrndup(c, (size_t)(e - c)) : NULL;
}

struct cond {
	char *sym;			/* a positive CONFIG_ condition, or NULL */
	bool unknown;
};

struct mk {
	struct cond stack[16];
	int depth;
};

static void cond_push(struct mk *m, const char *line)
{
	struct cond c = { NULL, true };
	char *sym = config_ref(line);

	if (!strncmp(line, "ifdef CONFIG_", 13)) {
		const char *s = line + 13, *e = s;
		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
		c.sym = e > s && !*e ? xstrndup(s, (size_t)(e - s)) : NULL;
	} else if (sym && !strncmp(line, "ifeq ", 5) &&
		   (strstr(line, ",y)") || strstr(line, ", y)") || strstr(line, "(y,"))) {
		c.sym = sym;
		sym = NULL;
	} else if (sym && !strncmp(line, "ifneq ", 6) &&
		   (strstr(line, ",)") || strstr(line, ",n)") || strstr(line, ", n)"))) {
		c.sym = sym;
		sym = NULL;
	}
	free(sym);
	c.unknown = !c.sym;
	if (m->depth < 16)
		m->stack[m->depth] = c;
	else
		free(c.sym);
	m->depth++;
}

/* Directives that open, flip or close a conditional; true when line was one. */
static bool directive(struct mk *m, const char *line)
{
	if (!strncmp(line, "ifdef ", 6) || !strncmp(line, "ifndef ", 7) ||
	    !strncmp(line, "ifeq ", 5) || !strncmp(line, "ifneq ", 6)) {
		cond_push(m, line);
		return true;
	}
	if (!strncmp(line, "else", 4) && (!line[4] || isspace((unsigned char)line[4]))) {
		if (m->depth && m->depth <= 16) {
			free(m->stack[m->depth - 1].sym);
			m->stack[m->depth - 1] = (struct cond){ NULL, true };
		}
		return true;
	}
	if (!strcmp(line, "endif")) {
		if (m->depth && m->depth <= 16)
			free(m->stack[m->depth - 1].sym);
		if (m->depth)
			m->depth--;
		return true;
	}
	return false;
}

/* Names before "-y" that are not objects linked into the kernel. */
static bool not_linked(const char *name, size_t len)
{
	static const char *const names[] = {
		"always", "extra", "targets", "hostprogs", "userprogs", "subdir", "clean-files",
		"header-test", "no-header-test", "ccflags", "asflags", "ldflags", "subdir-ccflags",
		"subdir-asflags", "userccflags", "userldflags", "real-obj", "multi-obj",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(name, names[i], len))
			return true;
	return memchr(name, '$', len) != NULL;
}

/* Does the right-hand side name target (with $(SRCARCH) as x86)? */
static bool rhs_names(const char *rhs, const char *target)
{
	struct buf tok = BUF_INIT;
	bool found = false;

	while (*rhs && !found) {
		size_t n = strcspn(rhs, " \t");

		buf_reset(&tok);
		for (size_t i = 0; i < n; i++) {
			if (!strncmp(rhs + i, "$(SRCARCH)", 10)) {
				buf_addstr(&tok, "x86");
				i += 9;
			} else {
				buf_addch(&tok, rhs[i]);
			}
		}
		found = n && !strcmp(tok.ptr, target);
		rhs += n;
		rhs += strspn(rhs, " \t");
	}
	buf_release(&tok);
	return found;
}

static void add_rule(struct mk *m, const char *lhs, size_t dash, struct kbuild_rule **out, int *n)
{
	struct kbuild_rule r = { 0 };
	const char *suffix = lhs + dash + 1;
	bool obj = (dash == 3 && (!strncmp(lhs, "obj", 3) || !strncmp(lhs, "lib", 3)));

	if (!obj && not_linked(lhs, dash))
		return;
	if (!obj)
		r.composite = xstrndup(lhs, dash);
	r.option = config_ref(suffix);
	r.module_only = !strcmp(suffix, "m");
	if (!r.option && strcmp(suffix, "y") && strcmp(suffix, "objs") && !r.module_only) {
		free(r.composite);
		return;			/* obj-n, a $(call ...): never or unknown */
	}
	for (int i = 0; i < m->depth && i < 16; i++) {
		if (m->stack[i].unknown)
			r.unknown = true;
		else if (r.nconds < KB_CONDS)
			r.conds[r.nconds++] = xstrdup(m->stack[i].sym);
	}
	*out = xreallocarray(*out, *n + 1, sizeof(**out));
	(*out)[(*n)++] = r;
}

/* "LHS op RHS": true with the LHS's length and RHS's start. */
static bool assignment(const char *line, size_t *lhs_len, const char **rhs)
{
	const char *op = line + strcspn(line, ":+?=");

	if (!*op)
		return false;
	if (*op == '=')
		*rhs = op + 1;
	else if (op[1] == '=')
		*rhs = op + 2;
	else
		return false;
	while (op > line && isspace((unsigned char)op[-1]))
		op--;
	*lhs_len = (size_t)(op - line);
	while (**rhs == ' ' || **rhs == '\t')
		(*rhs)++;
	return *lhs_len > 0;
}

int kbuild_rules(const char *text, const char *target, struct kbuild_rule **out, int *n)
{
	struct mk m = { .depth = 0 };
	struct buf line = BUF_INIT, lhs = BUF_INIT;
	const char *p = text, *rhs;
	size_t len;

	*out = NULL;
	*n = 0;
	while (next_line(&p, &line)) {
		const char *dash;

		if (directive(&m, line.ptr) || !assignment(line.ptr, &len, &rhs) ||
		    !rhs_names(rhs, target))
			continue;
		buf_reset(&lhs);
		buf_add(&lhs, line.ptr, len);
		/* obj-$(subst m,y,$(CONFIG_X)): the dash before the first "$(" */
		dash = strstr(lhs.ptr, "-$(");
		if (!dash)
			dash = strrchr(lhs.ptr, '-');
		if (dash && dash > lhs.ptr)
			add_rule(&m, lhs.ptr, (size_t)(dash - lhs.ptr), out, n);
	}
	for (int i = 0; i < m.depth && i < 16; i++)
		free(m.stack[i].sym);
	buf_release(&line);
	buf_release(&lhs);
	return *n;
}

void kbuild_rules_free(struct kbuild_rule *r, int n)
{
	for (int i = 0; r && i < n; i++) {
		free(r[i].composite);
		free(r[i].option);
		for (int c = 0; c < r[i].nconds; c++)
			free(r[i].conds[c]);
	}
	free(r);
}

bool kbuild_gcov_off(const char *text, const char *obj)
{
	struct buf line = BUF_INIT, want = BUF_INIT;
	const char *p = text, *rhs;
	size_t len;
	bool off = false;

	buf_addf(&want, "GCOV_PROFILE_%s", obj);
	while (!off && next_line(&p, &line)) {
		if (!assignment(line.ptr, &len, &rhs) || *rhs != 'n')
			continue;
		off = (len == 12 && !strncmp(line.ptr, "GCOV_PROFILE", 12)) ||
		      (len == want.len && !strncmp(line.ptr, want.ptr, len));
	}
	buf_release(&line);
	buf_release(&want);
	return off;
}

bool kbuild_cmd_lists(const char *cmd, const char *rel)
{
	size_t rlen = strlen(rel);

	for (const char *p = cmd; *p;) {
		const char *nl = strchrnul(p, '\n'), *s = p, *e = nl;

		while (s < e && isspace((unsigned char)*s))
			s++;
		while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == '\\'))
			e--;
		/* an O= build names sources "../<path>" */
		if (e - s >= 3 && !strncmp(s, "../", 3))
			s += 3;
		if ((size_t)(e - s) == rlen && !strncmp(s, rel, rlen))
			return true;
		p = *nl ? nl + 1 : nl;
	}
	return false;
}
