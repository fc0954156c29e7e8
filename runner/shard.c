/*
 * shard: the guest suite of one boot split over several guests at once.
 *
 * A TCG guest spends most of the suite waiting (a test's timeouts, the
 * error handler's delays), keeping one CPU about a third busy, while its
 * boot to /init keeps one CPU busy throughout.  So k guests booted at once,
 * each running a k-th of the suite, end sooner than one: k boots cost
 * k * boot / cpus of CPU time, the suite's wait is divided by k (but never
 * below the longest test's), and the guests' own CPU time competes again
 * past cpus / (a third) guests.  shard_count takes the k (at most
 * SHARD_MAX) that minimises
 *
 *     k * boot / cpus  +  max(suite / k, longest) * max(1, k * 0.35 / cpus)
 *
 * with boot, suite and longest measured on this host: the first full run of
 * a suite keeps what each test took and the time to /init in
 * <cache>/suite/<hash>/test-times, and that file is never rewritten, so
 * the same suite on the same host is always dealt the same way.  Without
 * it (a suite's first run) the defaults are those measured on the 2-core
 * reference host under TCG (2 s to /init, 70 tests in 18 s).
 *
 * Every guest has its own copy of every device (fresh disk images, its
 * own scsi_debug and scsi_bbtest), so no device is shared between shards;
 * within a shard the tests run in the scenario's order, as a subsequence
 * of one guest's.  The tests that judge the whole boot (kernel-log-clean:
 * the boot's kernel log) run in every shard, and a test's result comes
 * from the one shard that ran it (boot.c).
 */
#include "shard.h"
#include "scenario.h"
#include "verdict.h"
#include "buf.h"
#include "log.h"
#include "paths.h"
#include "apply.h"
#include "wfile.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BOOT 2.0	/* seconds to /init, TCG, 2-core reference host */
#define DEFAULT_TEST 0.26	/* 70 tests in 18 s there */
#define GUEST_CPU 0.35		/* of a CPU that a guest running the suite keeps busy */
#define TIMES_FILE "test-times"

static const char *const whole_boot_tests[] = { "kernel-log-clean", NULL };

bool shard_whole_boot(const char *name)
{
	for (int i = 0; whole_boot_tests[i]; i++)
		if (!strcmp(name, whole_boot_tests[i]))
			return true;
	return false;
}

/* What test took here, or the mean of the measured ones (the default without any). */
static double test_seconds(const struct shard_times *t, const char *name)
{
	double sum = 0;

	for (int i = 0; i < t->n; i++) {
		if (!strcmp(t->names[i], name))
			return t->seconds[i];
		sum += t->seconds[i];
	}
	return t->n ? sum / t->n : DEFAULT_TEST;
}

int shard_count(const struct shard_times *t, const struct scenario_boot *sb, double cpus)
{
	double boot = t->boot > 0 ? t->boot : DEFAULT_BOOT, suite = 0, longest = 0, best = 0;
	int dealt = 0, k_best = 1;

	if (cpus < 1)
		cpus = 1;
	for (int i = 0; i < sb->ntests; i++) {
		double s = test_seconds(t, sb->tests[i]);

		if (shard_whole_boot(sb->tests[i]))
			continue;
		suite += s;
		longest = s > longest ? s : longest;
		dealt++;
	}
	for (int k = 1; k <= SHARD_MAX && k <= (dealt > 0 ? dealt : 1); k++) {
		double wait = suite / k > longest ? suite / k : longest;
		double contention = k * GUEST_CPU / cpus > 1 ? k * GUEST_CPU / cpus : 1;
		double cost = k * boot / cpus + wait * contention;

		if (k == 1 || cost < best - 0.05) {	/* a tie keeps the fewer guests */
			best = cost;
			k_best = k;
		}
	}
	return k_best;
}

/* Where name stands in order[] (norder + seen: not there, after them as they came). */
static int rank(const char *name, char *const *order, int norder, int seen)
{
	for (int i = 0; i < norder; i++)
		if (!strcmp(order[i], name))
			return i;
	return norder + seen;
}

void shard_merge_tests(struct vtest *all, int *nall, int first, char *const *order, int norder)
{
	struct vtest *t = all + first;	/* this boot's; the earlier boots' stay as they are */
	int n = *nall - first, *key, m = 0;

	for (int i = 0; i < n; i++) {
		int j = 0;

		while (j < m && strcmp(t[j].name, t[i].name))
			j++;
		if (j == m) {
			t[m++] = t[i];
			continue;
		}
		/* the same test from another shard: a failure anywhere stands */
		if (strcmp(t[j].status, "fail") && !strcmp(t[i].status, "fail")) {
			struct vtest keep = t[j];

			t[j] = t[i];
			t[i] = keep;
		}
		free(t[i].name);
		free(t[i].status);
		free(t[i].diag);
	}
	key = xcalloc(m + 1, sizeof(*key));
	for (int i = 0; i < m; i++)
		key[i] = rank(t[i].name, order, norder, i);
	/* insertion sort: stable, and the tests come nearly in order */
	for (int i = 1; i < m; i++) {
		struct vtest x = t[i];
		int kx = key[i], j = i - 1;

		for (; j >= 0 && key[j] > kx; j--) {
			t[j + 1] = t[j];
			key[j + 1] = key[j];
		}
		t[j + 1] = x;
		key[j + 1] = kx;
	}
	free(key);
	*nall = first + m;
}

struct dealt {
	int index;		/* in the scenario's order */
	double seconds;
};

static int longest_first(const void *a, const void *b)
{
	const struct dealt *x = a, *y = b;

	if (x->seconds != y->seconds)
		return x->seconds > y->seconds ? -1 : 1;
	return x->index - y->index;
}

void shard_plan(const struct shard_times *t, const struct scenario_boot *sb, int n,
		char ***out, int *nout)
{
	struct dealt *d = xcalloc(sb->ntests + 1, sizeof(*d));
	int *owner = xcalloc(sb->ntests + 1, sizeof(*owner)), nd = 0;
	double load[SHARD_MAX] = { 0 };

	if (n < 1)
		n = 1;
	if (n > SHARD_MAX)
		n = SHARD_MAX;
	for (int i = 0; i < sb->ntests; i++) {
		owner[i] = -1;		/* every shard */
		if (!shard_whole_boot(sb->tests[i]))
			d[nd++] = (struct dealt){ i, test_seconds(t, sb->tests[i]) };
	}
	qsort(d, nd, sizeof(*d), longest_first);
	for (int j = 0; j < nd; j++) {
		int k_min = 0;

		for (int k = 1; k < n; k++)
			if (load[k] < load[k_min])
				k_min = k;
		load[k_min] += d[j].seconds;
		owner[d[j].index] = k_min;
	}
	for (int k = 0; k < n; k++) {
		out[k] = NULL;
		nout[k] = 0;
		for (int i = 0; i < sb->ntests; i++) {
			if (owner[i] != k && owner[i] != -1)
				continue;
			out[k] = xreallocarray(out[k], nout[k] + 1, sizeof(*out[k]));
			out[k][nout[k]++] = xstrdup(sb->tests[i]);
		}
	}
	free(d);
	free(owner);
}

void shard_plan_free(char ***out, int *nout, int n)
{
	for (int k = 0; k < n; k++) {
		strv_free(out[k], nout[k]);
		out[k] = NULL;
		nout[k] = 0;
	}
}

static void times_add(struct shard_times *t, const char *name, size_t len, double seconds)
{
	for (int i = 0; i < t->n; i++)
		if (strlen(t->names[i]) == len && !strncmp(t->names[i], name, len))
			return;
	t->names = xreallocarray(t->names, t->n + 1, sizeof(*t->names));
	t->seconds = xreallocarray(t->seconds, t->n + 1, sizeof(*t->seconds));
	t->names[t->n] = xstrndup(name, len);
	t->seconds[t->n++] = seconds;
}

/* "[    2.132097] Run /init as init process": the guest's seconds at /init. */
static void boot_seconds(const char *line, size_t len, struct shard_times *t, double *at)
{
	const char *run = memmem(line, len, "] Run /init as init process", 27);
	double s;

	if (!run || *line != '[' || sscanf(line + 1, "%lf", &s) != 1 || s <= 0)
		return;
	*at = s;
	if (t->boot <= 0 || s < t->boot)	/* the least: the boot least slowed by others */
		t->boot = s;
}

double shard_times_from_console(const char *console, struct shard_times *t)
{
	const char *p = console;
	double boot = -1, tests = 0;

	while (*p) {
		const char *nl = strchrnul(p, '\n');
		size_t len = nl - p;
		char line[256], name[128];
		double s;
		int end = 0;

		while (len && p[len - 1] == '\r')
			len--;
		boot_seconds(p, len, t, &boot);
		if (len > 11 && !strncmp(p, "# bbsuite: ", 11))
			/* re-runs and gcov follow: the suite's own times end here */
			return boot >= 0 ? boot + tests : tests;
		if (len < sizeof(line) && !strncmp(p, "# ", 2)) {
			memcpy(line, p, len);
			line[len] = '\0';
			/* "# NAME took 0.21 s", the whole line ("# the rescan took" is a test's own) */
			if (sscanf(line, "# %127s took %lf s%n", name, &s, &end) == 2 &&
			    end == (int)len && s >= 0) {
				times_add(t, name, strlen(name), s);
				tests += s;
			}
		}
		p = *nl ? nl + 1 : nl;
	}
	return -1;
}

void shard_times_release(struct shard_times *t)
{
	strv_free(t->names, t->n);
	free(t->seconds);
	memset(t, 0, sizeof(*t));
}

void shard_times_load(const char *dir, struct shard_times *t)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	memset(t, 0, sizeof(*t));
	buf_addf(&path, "%s/%s", dir, TIMES_FILE);
	if (!buf_read_file(&text, path.ptr)) {
		for (const char *p = text.ptr; *p;) {
			const char *nl = strchrnul(p, '\n');
			char name[128];
			double s;

			if (nl - p < (long)sizeof(name) && sscanf(p, "%127s %lf", name, &s) == 2) {
				if (!strcmp(name, "/init"))
					t->boot = s;
				else
					times_add(t, name, strlen(name), s);
			}
			p = *nl ? nl + 1 : nl;
		}
		t->measured = t->n > 0;
	}
	buf_release(&path);
	buf_release(&text);
}

void shard_times_save(const char *dir, const struct shard_times *t)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	buf_addf(&path, "%s/%s", dir, TIMES_FILE);
	if (path_exists(path.ptr) || !t->n || t->boot <= 0)
		goto out;
	buf_addf(&text, "/init %.2f\n", t->boot);
	for (int i = 0; i < t->n; i++)
		buf_addf(&text, "%s %.2f\n", t->names[i], t->seconds[i]);
	/* another runner may read it meanwhile: whole or not at all */
	if (write_file(path.ptr, text.ptr, text.len, WF_ATOMIC))
		log_warn("runner: cannot keep the suite's times in '%s': %s", path.ptr,
			 strerror(errno));
out:
	buf_release(&path);
	buf_release(&text);
}
