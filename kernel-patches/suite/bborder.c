/*
 * bborder.c: the order the tests run in.
 *
 * Without bbsuite.shuffle, the table's (bbsuite.c).  With
 * bbsuite.shuffle=SEED (a number, decimal or 0x hex), an order drawn from
 * SEED: splitmix64 into a Fisher-Yates shuffle, the same order for the
 * same seed and table, so the seed the KTAP header names replays a
 * failure.  Tests placed FIRST or LAST keep their places, in table order
 * (the table says why each is).  The selections (only, tests, skip) are
 * made from this order, so a replay of a few tests keeps their order.
 */
#include "bbsuite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* bbsuite.shuffle=SEED on the kernel command line into *seed. */
static bool cmdline_seed(uint64_t *seed)
{
	char buf[4096], *end;
	const char *v = cmdline_arg("bbsuite.shuffle=", buf, sizeof(buf));

	if (!v)
		return false;
	errno = 0;
	*seed = strtoull(v, &end, 0);
	if (!*v || *end || errno) {
		printf("# bbsuite.shuffle=%s is not a number: the table's order\n", v);
		return false;
	}
	return true;
}

bool test_order(const enum place *place, size_t n, size_t *order, uint64_t *seed)
{
	static const enum place places[] = { FIRST, ANY, LAST };
	bool shuffle = cmdline_seed(seed);
	size_t k = 0, any = 0, nany = 0;
	uint64_t x = *seed;

	if (!shuffle) {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		return false;
	}
	for (size_t p = 0; p < sizeof(places) / sizeof(places[0]); p++) {
		size_t from = k;

		for (size_t i = 0; i < n; i++)
			if (place[i] == places[p])
				order[k++] = i;
		if (places[p] == ANY) {
			any = from;
			nany = k - from;
		}
	}
	for (size_t i = nany; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&x) % i), t = order[any + i - 1];

		order[any + i - 1] = order[any + j];
		order[any + j] = t;
	}
	return true;
}
