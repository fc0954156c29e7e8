/*
 * gcda (pure): two gcov data files of the same kernel object added up, as
 * if one guest had run what both ran: the suite's shards each hand back
 * their own counters (boot.c), and a changed line that any of them ran was
 * reached.
 */
#ifndef BB_GCDA_H
#define BB_GCDA_H

#include <stddef.h>

/*
 * Add from's arc counters to into's (len bytes each, the format the
 * kernel's gcov writes: kernel/gcov/gcc_4_7.c).  -1, into untouched, when
 * the two are not of the same object (another layout, function or stamp).
 */
int gcda_merge(unsigned char *into, const unsigned char *from, size_t len);

#endif
