/*
 * gcda: adding up the counters of two gcov data files.
 *
 * The kernel writes a .gcda file (kernel/gcov/gcc_4_7.c, convert_to_gcda)
 * as 32-bit words in its own byte order: the magic "gcda", the version and
 * the stamp (and since GCC 12 a checksum word, 0), then per function a
 * record (tag 0x01000000, length, ident and two checksums) followed by a
 * record per active counter kind (tag 0x01a10000 + kind << 17, length,
 * then 64-bit values as low and high words).  Lengths count words before
 * GCC 12 and bytes since; the first function record (3 words: 3 or 12)
 * says which.  Two files of the same object have the same records in the
 * same order, and differ only in the counter values: the arc counters
 * (kind 0, the only one -fprofile-arcs makes) are added; any other
 * difference means they are not of the same object, and nothing is merged.
 */
#include "gcda.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define MAGIC 0x67636461u
#define TAG_FUNCTION 0x01000000u
#define TAG_ARCS 0x01a10000u

static uint32_t word(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

/* Where the records start (12 or 16) and the length unit (1: bytes, 4: words); false if neither. */
static bool layout(const unsigned char *p, size_t len, size_t *start, size_t *unit)
{
	for (size_t h = 12; h <= 16; h += 4) {
		if (len < h + 8 || word(p + h) != TAG_FUNCTION)
			continue;
		*start = h;
		if (word(p + h + 4) == 3)
			*unit = 4;
		else if (word(p + h + 4) == 12)
			*unit = 1;
		else
			return false;
		return true;
	}
	/* no function at all: a header alone, nothing to add */
	*start = len;
	*unit = 1;
	return len == 12 || len == 16;
}

/* The records of both, in step: the same tags and lengths, arcs addable, the rest equal. */
static bool walk(unsigned char *into, const unsigned char *from, size_t len, size_t pos,
		 size_t unit, bool add)
{
	while (pos < len) {
		uint32_t tag, n;
		size_t bytes;

		if (len - pos < 8 || memcmp(into + pos, from + pos, 8))
			return false;
		tag = word(into + pos);
		n = word(into + pos + 4);
		bytes = (size_t)n * unit;
		pos += 8;
		if (bytes > len - pos)
			return false;
		if (tag == TAG_ARCS) {
			if (bytes % 8)
				return false;
			for (size_t i = 0; add && i < bytes; i += 8) {
				uint64_t a, b;
				uint32_t lo, hi;

				a = (uint64_t)word(into + pos + i + 4) << 32 | word(into + pos + i);
				b = (uint64_t)word(from + pos + i + 4) << 32 | word(from + pos + i);
				a += b;
				lo = (uint32_t)a;
				hi = (uint32_t)(a >> 32);
				memcpy(into + pos + i, &lo, 4);
				memcpy(into + pos + i + 4, &hi, 4);
			}
		} else if (memcmp(into + pos, from + pos, bytes)) {
			return false;
		}
		pos += bytes;
	}
	return true;
}

int gcda_merge(unsigned char *into, const unsigned char *from, size_t len)
{
	size_t start, unit;

	if (len < 12 || word(into) != MAGIC || memcmp(into, from, 12) ||
	    !layout(into, len, &start, &unit) || (start < len && memcmp(into + 12, from + 12,
									start - 12)))
		return -1;
	/* checked whole first: a mismatch half way leaves into as it was */
	if (!walk(into, from, len, start, unit, false))
		return -1;
	walk(into, from, len, start, unit, true);
	return 0;
}
