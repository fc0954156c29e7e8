/*
 * text_table: a plain-text table whose columns never shift.  See text_table.h.
 */
#include "text_table.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define GAP "  "

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t text_width(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += !continuation((unsigned char)*s);
	return n;
}

/* s cleaned (controls blank) and cut at TEXT_TABLE_CELL_MAX characters. */
static char *clean_cell(const char *s)
{
	struct buf out = BUF_INIT;
	size_t chars = 0;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!continuation(c) && chars++ == TEXT_TABLE_CELL_MAX - 3 &&
		    text_width(s) > 3) {
			buf_addstr(&out, "...");
			break;
		}
		buf_addch(&out, c < 0x20 || c == 0x7f ? ' ' : (char)c);
	}
	return buf_detach(&out, NULL);
}

void text_table_init(struct text_table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols < 1 ? 1 : ncols > 16 ? 16 : ncols;
	t->width = xcalloc(t->ncols, sizeof(*t->width));
}

void text_table_release(struct text_table *t)
{
	for (int i = 0; t->cells && i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->width);
	memset(t, 0, sizeof(*t));
}

void text_table_add(struct text_table *t, const char *const *cells)
{
	int at = t->nrows * t->ncols;

	XGROW(t->cells, (size_t)(at + t->ncols), t->alloc);
	for (int c = 0; c < t->ncols; c++) {
		char *cell = clean_cell(cells[c]);
		size_t w = text_width(cell);

		t->cells[at + c] = cell;
		if (w > t->width[c])
			t->width[c] = w;
	}
	t->nrows++;
}

void text_table_render(const struct text_table *t, const char *indent, struct buf *out)
{
	for (int r = 0; r < t->nrows; r++) {
		size_t start = out->len;

		buf_addstr(out, indent);
		for (int c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];

			buf_addstr(out, cell);
			if (c == t->ncols - 1)
				break;
			for (size_t w = text_width(cell); w < t->width[c]; w++)
				buf_addch(out, ' ');
			buf_addstr(out, GAP);
		}
		/* empty last cells leave blanks behind */
		while (out->len > start && out->ptr[out->len - 1] == ' ')
			buf_setlen(out, out->len - 1);
		buf_addch(out, '\n');
	}
}
