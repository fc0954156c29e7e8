/*
 * kexpr: Kconfig's dependency expressions and entries (see kbuild.h).
 *
 * An expression is parsed into a small tree of at most KX_MAX nodes; a
 * text that uses anything else (a $(macro), a string with a quote inside)
 * does not parse, and the caller treats the dependency as unknown.  What an
 * expression needs to become true is found the way a person would turn a
 * driver on: every symbol of an && set, the first choice of an || that is
 * not COMPILE_TEST, never an option unset (a "!X" whose X is set cannot
 * be met).  The runner's configure step then says whether it worked; this
 * only proposes, and explains why an option did not stick.
 *
 * A Kconfig text is read entry by entry: "config X" and its attributes up
 * to the next keyword, with the "depends on" of the menus, choices and ifs
 * around it in the same file (those of a file that sources it are not
 * seen), help texts skipped by their indentation.
 */
#include "kbuild.h"
#include "buf.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- expressions ---- */

struct lexer {
	const char *p;
	char tok[KX_SYM];		/* "&&", "||", "!", "(", ")", "=", "!=", "<"..., a word */
	bool word;
	bool bad;
};

static void lex(struct lexer *l)
{
	const char *p = l->p;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	l->word = false;
	if (!*p) {
		l->tok[0] = '\0';
	} else if (!strncmp(p, "&&", 2) || !strncmp(p, "||", 2) || !strncmp(p, "!=", 2) ||
		   !strncmp(p, "<=", 2) || !strncmp(p, ">=", 2)) {
		n = 2;
	} else if (strchr("!()=<>", *p)) {
		n = 1;
	} else if (*p == '"') {
		/* a literal of plain characters only: it may be shown in a reason */
		n = 1 + strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			       "0123456789_-. ");
		n = p[n] == '"' ? n + 1 : 0;
		l->word = n > 0;
	} else {
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		l->word = n > 0;
	}
	if (*p && (!n || n >= KX_SYM)) {
		l->bad = true;
		l->tok[0] = '\0';
		l->p = p + strlen(p);
		return;
	}
	memcpy(l->tok, p, n);
	l->tok[n] = '\0';
	l->p = p + n;
}

/* "<", "<=", ">", ">=": a comparison of numbers, which bugbridge does not judge */
static bool ordering(char c)
{
	return c == '<' || c == '>';
}

static int node(struct kexpr *e, int kind, int a, int b)
{
	if (e->nn >= KX_MAX)
		return -1;
	memset(&e->n[e->nn], 0, sizeof(e->n[0]));
	e->n[e->nn].kind = kind;
	e->n[e->nn].a = a;
	e->n[e->nn].b = b;
	return e->nn++;
}

static int parse_or(struct lexer *l, struct kexpr *e);

static int parse_term(struct lexer *l, struct kexpr *e)
{
	int n;

	if (!strcmp(l->tok, "!")) {
		lex(l);
		n = parse_term(l, e);
		return n < 0 ? -1 : node(e, KX_NOT, n, -1);
	}
	if (!strcmp(l->tok, "(")) {
		lex(l);
		n = parse_or(l, e);
		if (n < 0 || strcmp(l->tok, ")"))
			return -1;
		lex(l);
		return n;
	}
	if (!l->word || (n = node(e, KX_SYM_NODE, -1, -1)) < 0)
		return -1;
	strcpy(e->n[n].sym, l->tok);
	lex(l);
	if (strcmp(l->tok, "=") && strcmp(l->tok, "!=") && !ordering(l->tok[0]))
		return n;
	e->n[n].kind = KX_CMP;
	e->n[n].ne = !strcmp(l->tok, "!=");
	e->n[n].rhs[0] = ordering(l->tok[0]) ? l->tok[0] : '\0';	/* "<": not judged */
	lex(l);
	if (!l->word)
		return -1;
	if (!e->n[n].rhs[0])
		strcpy(e->n[n].rhs, l->tok);
	lex(l);
	return n;
}

static int parse_and(struct lexer *l, struct kexpr *e)
{
	int a = parse_term(l, e);

	while (a >= 0 && !strcmp(l->tok, "&&")) {
		lex(l);
		int b = parse_term(l, e);
		a = b < 0 ? -1 : node(e, KX_AND, a, b);
	}
	return a;
}

static int parse_or(struct lexer *l, struct kexpr *e)
{
	int a = parse_and(l, e);

	while (a >= 0 && !strcmp(l->tok, "||")) {
		lex(l);
		int b = parse_and(l, e);
		a = b < 0 ? -1 : node(e, KX_OR, a, b);
	}
	return a;
}

int kexpr_parse(const char *text, struct kexpr *e)
{
	struct lexer l = { .p = text };

	e->nn = 0;
	e->root = -1;
	lex(&l);
	if (!l.tok[0] && !l.bad)
		return 0;		/* no dependency */
	e->root = parse_or(&l, e);
	if (e->root < 0 || l.tok[0] || l.bad) {
		e->root = -1;
		e->nn = 0;
		return -1;
	}
	return 0;
}

/* A word's value: y, m, n, a literal's text, or a symbol's (unset: n). */
static const char *word_value(const char *w, kconfig_value_fn val, void *ctx, char *lit)
{
	const char *v;
	size_t n = strlen(w);

	if (!strcmp(w, "y") || !strcmp(w, "m") || !strcmp(w, "n"))
		return w;
	if (w[0] == '"' && n >= 2) {
		memcpy(lit, w + 1, n - 2);
		lit[n - 2] = '\0';
		return lit;
	}
	if (isdigit((unsigned char)w[0]))
		return w;
	v = val(ctx, w);
	return v ? v : "n";
}

static bool truth(const struct kexpr *e, int i, kconfig_value_fn val, void *ctx)
{
	const struct kx_node *x = &e->n[i];
	char la[KX_SYM], lb[KX_SYM];
	const char *v;

	switch (x->kind) {
	case KX_NOT:
		return !truth(e, x->a, val, ctx);
	case KX_AND:
		return truth(e, x->a, val, ctx) && truth(e, x->b, val, ctx);
	case KX_OR:
		return truth(e, x->a, val, ctx) || truth(e, x->b, val, ctx);
	case KX_CMP:
		if (ordering(x->rhs[0]))
			return true;	/* an ordering: not ours to judge */
		v = word_value(x->sym, val, ctx, la);
		return !strcmp(v, word_value(x->rhs, val, ctx, lb)) != x->ne;
	default:
		v = word_value(x->sym, val, ctx, la);
		return !strcmp(v, "y") || !strcmp(v, "m");
	}
}

bool kexpr_true(const struct kexpr *e, kconfig_value_fn val, void *ctx)
{
	return e->root < 0 || truth(e, e->root, val, ctx);
}

static bool is_constant(const char *w)
{
	return !strcmp(w, "y") || !strcmp(w, "m") || !strcmp(w, "n") || w[0] == '"' ||
	       isdigit((unsigned char)w[0]);
}

static void text_of(const struct kexpr *e, int i, struct buf *out, int parent);

static int needs(const struct kexpr *e, int i, kconfig_value_fn val, void *ctx, struct buf *need,
		 struct buf *why)
{
	const struct kx_node *x = &e->n[i];
	size_t mark = need->len;

	if (truth(e, i, val, ctx))
		return 0;
	if (x->kind == KX_AND)
		return needs(e, x->a, val, ctx, need, why) || needs(e, x->b, val, ctx, need, why) ?
			-1 : 0;
	if (x->kind == KX_OR) {
		struct buf ignored = BUF_INIT;
		bool test_only = !strcmp(e->n[x->a].sym, "COMPILE_TEST");
		int ret = test_only ? -1 : needs(e, x->a, val, ctx, need, &ignored);

		buf_release(&ignored);
		if (ret) {
			buf_setlen(need, mark);
			ret = needs(e, x->b, val, ctx, need, why);
		}
		return ret;
	}
	if (x->kind == KX_CMP && (strcmp(x->rhs, x->ne ? "n" : "y") || is_constant(x->sym)))
		goto cannot;
	if ((x->kind == KX_CMP || x->kind == KX_SYM_NODE) && !is_constant(x->sym)) {
		if (!str_list_has(need->ptr, ' ', x->sym, strlen(x->sym)))
			buf_addf(need, "%s%s", need->len ? " " : "", x->sym);
		return 0;
	}
cannot:
	text_of(e, i, why, KX_AND);
	return -1;
}

int kexpr_needs(const struct kexpr *e, kconfig_value_fn val, void *ctx, struct buf *need,
		struct buf *why)
{
	return e->root < 0 ? 0 : needs(e, e->root, val, ctx, need, why);
}

static void blockers(const struct kexpr *e, int i, kconfig_value_fn val, void *ctx,
		     struct buf *out)
{
	const struct kx_node *x = &e->n[i];

	if (truth(e, i, val, ctx))
		return;
	if (x->kind == KX_AND || x->kind == KX_OR) {
		blockers(e, x->a, val, ctx, out);
		blockers(e, x->b, val, ctx, out);
		return;
	}
	if (out->len)
		buf_addstr(out, ", ");
	text_of(e, i, out, KX_AND);
}

void kexpr_blockers(const struct kexpr *e, kconfig_value_fn val, void *ctx, struct buf *out)
{
	if (e->root >= 0)
		blockers(e, e->root, val, ctx, out);
}

static void text_of(const struct kexpr *e, int i, struct buf *out, int parent)
{
	const struct kx_node *x = &e->n[i];
	bool paren = (x->kind == KX_OR && parent != KX_OR) || (x->kind == KX_AND && parent == KX_NOT);

	if (paren)
		buf_addch(out, '(');
	switch (x->kind) {
	case KX_NOT:
		buf_addch(out, '!');
		text_of(e, x->a, out, KX_NOT);
		break;
	case KX_AND:
	case KX_OR:
		text_of(e, x->a, out, x->kind);
		buf_addstr(out, x->kind == KX_AND ? " && " : " || ");
		text_of(e, x->b, out, x->kind);
		break;
	case KX_CMP:
		buf_addf(out, "%s%s%s", x->sym, x->ne ? "!=" : "=",
			 ordering(x->rhs[0]) ? "?" : x->rhs);
		break;
	default:
		buf_addstr(out, x->sym);
	}
	if (paren)
		buf_addch(out, ')');
}

void kexpr_text(const struct kexpr *e, struct buf *out)
{
	if (e->root >= 0)
		text_of(e, e->root, out, KX_OR);
}

/* ---- Kconfig entries ---- */

struct kc_block {
	char kind;			/* 'i' if, 'm' menu, 'c' choice */
	struct buf deps;
};

struct kc_walk {
	struct kc_block stack[16];
	int depth;
	char attrs;			/* whose attributes follow: 'e' entry, 'm', 'c', 0 none */
	char name[KX_SYM];		/* the entry's */
	struct buf deps, selects;
	bool prompt;
	bool in_help;
	int help_indent;
	/* the caller's: true to stop */
	bool (*entry)(struct kc_walk *w, void *arg);
	void *arg;
};

static void and_into(struct buf *deps, const char *expr)
{
	while (isspace((unsigned char)*expr))
		expr++;
	if (!*expr)
		return;
	buf_addf(deps, "%s(%s)", deps->len ? " && " : "", expr);
}

/* The entry read so far, with its blocks' dependencies, to the caller. */
static bool kc_finish(struct kc_walk *w)
{
	struct buf all = BUF_INIT;
	bool stop = false;

	if (w->attrs == 'e' && w->name[0]) {
		/* each part is parenthesised already */
		for (int i = 0; i < w->depth && i < 16; i++)
			if (w->stack[i].deps.len)
				buf_addf(&all, "%s%s", all.len ? " && " : "", w->stack[i].deps.ptr);
		if (w->deps.len)
			buf_addf(&all, "%s%s", all.len ? " && " : "", w->deps.ptr);
		buf_reset(&w->deps);
		buf_addstr(&w->deps, all.ptr);
		stop = w->entry(w, w->arg);
	}
	w->attrs = 0;
	w->name[0] = '\0';
	w->prompt = false;
	buf_reset(&w->deps);
	buf_reset(&w->selects);
	buf_release(&all);
	return stop;
}

static void kc_push(struct kc_walk *w, char kind, const char *deps)
{
	if (w->depth < 16) {
		w->stack[w->depth].kind = kind;
		buf_init(&w->stack[w->depth].deps, 0);
		and_into(&w->stack[w->depth].deps, deps);
	}
	w->depth++;
}

static void kc_pop(struct kc_walk *w, char kind)
{
	while (w->depth > 0) {
		char k = w->depth <= 16 ? w->stack[w->depth - 1].kind : kind;

		if (w->depth <= 16)
			buf_release(&w->stack[w->depth - 1].deps);
		w->depth--;
		if (k == kind)
			break;
	}
}

/* A keyword line: the entry before it ends.  True to stop. */
static bool kc_keyword(struct kc_walk *w, const char *word, const char *rest)
{
	if (kc_finish(w))
		return true;
	if (!strcmp(word, "config") || !strcmp(word, "menuconfig")) {
		size_t n = strspn(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789_");
		if (n && n < KX_SYM) {
			memcpy(w->name, rest, n);
			w->name[n] = '\0';
			w->attrs = 'e';
		}
	} else if (!strcmp(word, "menu") || !strcmp(word, "choice")) {
		kc_push(w, word[0], "");
		w->attrs = word[0];
	} else if (!strcmp(word, "if")) {
		kc_push(w, 'i', rest);
	} else if (!strcmp(word, "endmenu") || !strcmp(word, "endchoice") ||
		   !strcmp(word, "endif")) {
		kc_pop(w, word[3] == 'm' ? 'm' : word[3] == 'c' ? 'c' : 'i');
	}
	return false;
}

static void kc_attribute(struct kc_walk *w, const char *word, const char *rest)
{
	static const char *const types[] = { "bool", "tristate", "string", "int", "hex" };

	if (!strcmp(word, "help") || !strcmp(word, "---help---")) {
		w->in_help = true;
		w->help_indent = -1;
	} else if (!strcmp(word, "depends") && !strncmp(rest, "on", 2) &&
		   isspace((unsigned char)rest[2])) {
		if (w->attrs == 'e')
			and_into(&w->deps, rest + 3);
		else if ((w->attrs == 'm' || w->attrs == 'c') && w->depth && w->depth <= 16)
			and_into(&w->stack[w->depth - 1].deps, rest + 3);
	} else if (!strcmp(word, "select") && w->attrs == 'e') {
		buf_addf(&w->selects, "%s%.*s", w->selects.len ? " " : "",
			 (int)strcspn(rest, " \t"), rest);
	} else if (!strcmp(word, "prompt")) {
		w->prompt = true;
	} else {
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (!strcmp(word, types[i]) && *rest == '"')
				w->prompt = true;
	}
}

static int indentation(const char *s, size_t len)
{
	int ind = 0;

	for (size_t i = 0; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
		ind = s[i] == '\t' ? (ind / 8 + 1) * 8 : ind + 1;
	return ind;
}

/* One physical line; true to stop. */
static bool kc_line(struct kc_walk *w, const char *s, size_t len)
{
	static const char *const keywords[] = {
		"config", "menuconfig", "choice", "endchoice", "comment", "menu", "endmenu",
		"if", "endif", "source", "rsource", "osource", "orsource", "mainmenu",
	};
	char word[32], rest[512];
	int ind = indentation(s, len), n = 0;
	size_t skip = strspn(s, " \t"), wl;

	if (skip >= len)
		return false;		/* blank: inside a help text too */
	if (w->in_help && w->help_indent < 0)
		w->help_indent = ind;
	if (w->in_help && ind >= w->help_indent)
		return false;
	w->in_help = false;
	wl = strcspn(s + skip, " \t\n");
	if (wl >= sizeof(word) || s[skip] == '#')
		return false;
	memcpy(word, s + skip, wl);
	word[wl] = '\0';
	snprintf(rest, sizeof(rest), "%.*s", (int)(len - skip - wl), s + skip + wl);
	for (n = 0; isspace((unsigned char)rest[n]); n++)
		;
	memmove(rest, rest + n, strlen(rest + n) + 1);
	if (strchr(rest, '#') && !strchr(rest, '"'))
		*strchr(rest, '#') = '\0';
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(word, keywords[i]))
			return kc_keyword(w, word, rest);
	kc_attribute(w, word, rest);
	return false;
}

static void kc_walk(const char *text, bool (*entry)(struct kc_walk *, void *), void *arg)
{
	struct kc_walk w = { .entry = entry, .arg = arg };
	bool stop = false;

	buf_init(&w.deps, 0);
	buf_init(&w.selects, 0);
	for (const char *p = text; *p && !stop;) {
		const char *nl = strchrnul(p, '\n');

		stop = kc_line(&w, p, (size_t)(nl - p));
		p = *nl ? nl + 1 : nl;
	}
	if (!stop)
		kc_finish(&w);
	while (w.depth)
		kc_pop(&w, 0);
	buf_release(&w.deps);
	buf_release(&w.selects);
}

struct kc_find {
	const char *sym;
	struct kconfig_entry *e;
	bool found;
	struct buf *names;
};

static bool find_entry(struct kc_walk *w, void *arg)
{
	struct kc_find *f = arg;

	if (strcmp(w->name, f->sym))
		return false;
	buf_reset(&f->e->depends);
	buf_addstr(&f->e->depends, w->deps.ptr);
	f->e->prompt = w->prompt;
	f->found = true;
	return true;
}

void kconfig_entry_init(struct kconfig_entry *e)
{
	buf_init(&e->depends, 0);
	e->prompt = false;
}

void kconfig_entry_release(struct kconfig_entry *e)
{
	buf_release(&e->depends);
}

bool kconfig_entry(const char *text, const char *sym, struct kconfig_entry *e)
{
	struct kc_find f = { .sym = sym, .e = e };

	kc_walk(text, find_entry, &f);
	return f.found;
}

static bool find_selector(struct kc_walk *w, void *arg)
{
	struct kc_find *f = arg;

	if (w->prompt && str_list_has(w->selects.ptr, ' ', f->sym, strlen(f->sym)) &&
	    !str_list_has(f->names->ptr, ' ', w->name, strlen(w->name))) {
		buf_addf(f->names, "%s%s", f->names->len ? " " : "", w->name);
		f->found = true;
	}
	return false;
}

int kconfig_selectors(const char *text, const char *sym, struct buf *names)
{
	struct kc_find f = { .sym = sym, .names = names };

	kc_walk(text, find_selector, &f);
	return f.found ? 0 : -1;
}
