/*
 * text_table: a plain-text table whose columns never shift.
 *
 * Tables in tracker comments (the result comment's tests, a fix's
 * back-test matrix) hold text of any length: test names, failing-test
 * lists, kernel versions.  A printf width pads a short cell but lets a long
 * one push every later column of its row to the right.  Here each column is
 * as wide as its widest cell (counted in characters, not bytes), so every
 * cell of a column starts at the same position; a cell is cut at
 * TEXT_TABLE_CELL_MAX characters ("..."), so one cell cannot make a column
 * absurdly wide.  Cells are cleaned: control characters become blanks, so
 * no cell can start a line of its own.  The last column is not padded
 * (trailing blanks say nothing and some trackers strip them).
 *
 * Ownership: the table owns copies of its cells; text_table_release()
 * frees them and accepts a zeroed table.
 */
#ifndef BB_TEXT_TABLE_H
#define BB_TEXT_TABLE_H

#include <stddef.h>
#include "buf.h"

#define TEXT_TABLE_CELL_MAX 80

struct text_table {
	int ncols, nrows;
	char **cells;		/* row-major, nrows * ncols, cleaned and cut */
	size_t *width;		/* per column, in characters */
	size_t alloc;
};

/* An empty table of ncols columns (at most 16). */
void text_table_init(struct text_table *t, int ncols);
void text_table_release(struct text_table *t);
/* One row: ncols cells (NULL is an empty cell). */
void text_table_add(struct text_table *t, const char *const *cells);
/* The rows, each after indent, columns two blanks apart, each line ending in \n. */
void text_table_render(const struct text_table *t, const char *indent, struct buf *out);
/* Characters (UTF-8 code points) in s. */
size_t text_width(const char *s);

#endif
