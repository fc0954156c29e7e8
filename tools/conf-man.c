/*
 * conf-man: write bugbridge.conf(5) from its template (argv[1]) and the key
 * table the programs use (lib/config_keys.c, linked in), so the manual
 * lists exactly the keys, defaults and help that `bugbridge config example`
 * prints.  The template's line `.\" @KEYS@` becomes one subsection per
 * configuration section; every other line is copied.  The Makefile builds
 * the page on every build; tests/t0060-man.sh compares it with the program.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARKER ".\\\" @KEYS@"

/* A character of text for roff: backslash escaped, a leading dot or quote guarded. */
static void put_char(int c, int at_line_start)
{
	if (at_line_start && (c == '.' || c == '\''))
		fputs("\\&", stdout);
	if (c == '\\')
		fputs("\\e", stdout);
	else
		putchar(c);
}

/* Is the period at dot the end of "e.g." or "i.e." (a word with an earlier period)? */
static int abbreviation(const char *text, const char *dot)
{
	for (const char *p = dot - 1; p >= text && *p != ' '; p--)
		if (*p == '.')
			return 1;
	return 0;
}

/*
 * Help text as body lines of at most about 72 columns: mdoc wants a new
 * sentence on a new line, and a period that does not end a sentence
 * ("e.g. 9370") followed by "\&".
 */
static void put_text(const char *text)
{
	size_t len = strlen(text);
	const char *s = text;
	int col = 0;

	for (; *s; s++) {
		if (*s == ' ' && (col == 0 || col > 64)) {
			if (col)
				putchar('\n');
			col = 0;
			continue;
		}
		put_char((unsigned char)*s, col == 0);
		col++;
		if ((*s == '.' || *s == '?' || *s == '!') && s[1] == ' ') {
			if (isupper((unsigned char)s[2]) && !abbreviation(text, s)) {
				putchar('\n');
				col = 0;
			} else {
				fputs("\\&", stdout);
			}
		}
	}
	if (len && !strchr(".?!", text[len - 1]))
		putchar('.');	/* the help is a phrase; more sentences follow */
	if (col || len)
		putchar('\n');
}

/* A macro argument: quoted, so that it is never read as a macro or a delimiter. */
static void put_arg(const char *s)
{
	fputs("\"\\&", stdout);
	for (; *s; s++) {
		if (*s == '"')
			fputs("\\(dq", stdout);
		else
			put_char((unsigned char)*s, 0);
	}
	putchar('"');
}

static void put_key(const struct config_key *k)
{
	printf(".It Cm %s No = ", k->name);
	if (*k->def)
		fputs("Li ", stdout), put_arg(k->def), putchar('\n');
	else
		fputs("Qq\n", stdout);
	put_text(k->help);
	if (k->type == CONF_ENUM) {
		fputs("One of\n.Ql ", stdout);
		put_arg(k->choices);
		fputs(" .\n", stdout);
	} else if (k->type == CONF_BOOL) {
		fputs("A boolean:\n.Cm true\nor\n.Cm false .\n", stdout);
	} else if (k->type == CONF_LIST) {
		fputs("A comma-separated list.\n", stdout);
	}
	if (k->flags & CONF_SECRET)
		fputs("A secret: never logged, and shown as\n.Ql (set) .\n", stdout);
}

static void put_keys(void)
{
	const char *section = NULL;

	for (int i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_keys[i];

		if (!section || strcmp(section, k->section)) {
			if (section)
				puts(".El");
			printf(".Ss Bq %s\n.Bl -tag -width Ds\n", k->section);
			section = k->section;
		}
		put_key(k);
	}
	if (section)
		puts(".El");
}

int main(int argc, char **argv)
{
	char line[4096];
	FILE *in;
	int found = 0;

	if (argc != 2) {
		fputs("usage: conf-man TEMPLATE > bugbridge.conf.5\n", stderr);
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		if (!strcmp(line, MARKER "\n")) {
			put_keys();
			found = 1;
		} else {
			fputs(line, stdout);
		}
	}
	fclose(in);
	if (!found) {
		fprintf(stderr, "conf-man: %s: no line '%s'\n", argv[1], MARKER);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
