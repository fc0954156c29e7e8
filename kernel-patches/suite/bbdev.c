/*
 * bbdev.c: the suite's devices, found by role.
 *
 * A role is where a device sits and what it says it is: its host's driver
 * (the host's proc_name), channel, target and LUN, and its INQUIRY vendor
 * and model.  Never its name: a disk removed and scanned again may come
 * back as sdf where it was sde (the kernel frees a name only when the last
 * reference to the old disk goes), so a name an earlier test saw means
 * nothing.  dev_scan() runs before every test (bbsuite.c) and after every
 * removal a test makes (dev_readd), and maps each role to the block device
 * that holds it now.  bbsuite.rename=1 makes every removed device come
 * back under a new name (dev_readd), to show that nothing depends on one.
 */
#include "bbsuite.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct role_def {
	const char *what;		/* for messages */
	const char *host;		/* the host's proc_name */
	int channel, target, lun;
	const char *vendor, *model;	/* INQUIRY, trailing blanks cut */
};

/* The QEMU side is declared in suite/scenarios, scsi_bbtest's in its patch. */
static const struct role_def roles[ROLE_MAX] = {
	[ROLE_SDEBUG] = { "scsi_debug disk", "scsi_debug", 0, 0, 0, "Linux", "scsi_debug" },
	[ROLE_QDISK] = { "QEMU disk (target 1)", "virtio_scsi", 0, 1, 0, "QEMU", "QEMU HARDDISK" },
	[ROLE_CDALIAS] = { "QEMU cdsmall alias (target 2)", "virtio_scsi", 0, 2, 0, "QEMU",
			   "QEMU HARDDISK" },
	[ROLE_CDBIG] = { "QEMU cdbig (target 3)", "virtio_scsi", 0, 3, 0, "QEMU", "QEMU CD-ROM" },
	[ROLE_CDSMALL] = { "QEMU cdsmall (target 4)", "virtio_scsi", 0, 4, 0, "QEMU",
			   "QEMU CD-ROM" },
	[ROLE_QLIMITS] = { "QEMU qlimits disk (target 5)", "virtio_scsi", 0, 5, 0, "QEMU",
			   "QEMU HARDDISK" },
	[ROLE_BBDISK] = { "scsi_bbtest disk", "scsi_bbtest", 0, 0, 0, "BBTEST", "LYING DISK" },
	[ROLE_BBCD] = { "scsi_bbtest cdrom", "scsi_bbtest", 0, 0, 1, "BBTEST", "LYING CDROM" },
};

static char dev_names[ROLE_MAX][NAME_MAX + 1];
static char dev_nodes[ROLE_MAX][NAME_MAX + 8];
static struct hctl dev_where[ROLE_MAX];	/* where each was last seen */
static bool dev_seen[ROLE_MAX];

/* The first line of a small file, trailing blanks cut: 0 or -1. */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	n = (ssize_t)strlen(buf);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

/* H:C:T:L of block device name (the basename of /sys/block/NAME/device). */
static int name_hctl(const char *name, struct hctl *at)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;

	snprintf(path, sizeof(path), "/sys/block/%s/device", name);
	if (!realpath(path, link))
		return -1;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	return sscanf(base, "%d:%d:%d:%d", &at->host, &at->channel, &at->target,
		      &at->lun) == 4 ? 0 : -1;
}

/* The role block device name holds, or -1. */
static int role_of(const char *name, struct hctl *at)
{
	char path[PATH_MAX], host[64], vendor[64], model[64];

	if (name_hctl(name, at))
		return -1;
	snprintf(path, sizeof(path), "/sys/class/scsi_host/host%d/proc_name", at->host);
	if (read_small(path, host, sizeof(host)))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/vendor", name);
	if (read_small(path, vendor, sizeof(vendor)))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/model", name);
	if (read_small(path, model, sizeof(model)))
		return -1;
	for (int r = 0; r < ROLE_MAX; r++)
		if (!strcmp(host, roles[r].host) && at->channel == roles[r].channel &&
		    at->target == roles[r].target && at->lun == roles[r].lun &&
		    !strcmp(vendor, roles[r].vendor) && !strcmp(model, roles[r].model))
			return r;
	return -1;
}

void dev_scan(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;

	memset(dev_names, 0, sizeof(dev_names));
	memset(dev_nodes, 0, sizeof(dev_nodes));
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		struct hctl at;
		int r;

		if (strncmp(de->d_name, "sd", 2) && strncmp(de->d_name, "sr", 2))
			continue;
		r = role_of(de->d_name, &at);
		if (r < 0 || dev_names[r][0])
			continue;
		snprintf(dev_names[r], sizeof(dev_names[r]), "%s", de->d_name);
		snprintf(dev_nodes[r], sizeof(dev_nodes[r]), "/dev/%s", de->d_name);
		dev_where[r] = at;
		dev_seen[r] = true;
	}
	closedir(d);
}

const char *dev_node(enum role r)
{
	return dev_nodes[r][0] ? dev_nodes[r] : NULL;
}

const char *dev_name(enum role r)
{
	return dev_names[r][0] ? dev_names[r] : NULL;
}

const char *dev_what(enum role r)
{
	return roles[r].what;
}

int dev_require(enum role r)
{
	if (!dev_node(r))
		return fail("device missing: %s", roles[r].what);
	return 0;
}

int dev_hctl(enum role r, struct hctl *at)
{
	if (dev_require(r))
		return -1;
	*at = dev_where[r];
	return 0;
}

long long dev_sectors(enum role r)
{
	char path[PATH_MAX], buf[64];

	if (!dev_name(r))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/size", dev_name(r));
	if (read_small(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

long long dev_counter(enum role r, const char *name)
{
	char path[PATH_MAX], buf[64];

	if (!dev_name(r))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/device/%s", dev_name(r), name);
	if (read_small(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

long long dev_sysfs_number(enum role r, const char *rel)
{
	char path[PATH_MAX];

	if (!dev_name(r))
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%s/%s", dev_name(r), rel);
	return knob_number(path);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Is role r a block device with a node again (with a size, if sized)?
 * sd and sr probe asynchronously; devtmpfs adds the node after them. */
static bool dev_back(enum role r, bool sized)
{
	dev_scan();
	return dev_node(r) && access(dev_node(r), F_OK) == 0 &&
	       (!sized || dev_sectors(r) > 0);
}

int dev_add(enum role r, bool sized)
{
	const struct hctl *at = &dev_where[r];
	char scan[64];
	double t0 = mono();

	if (!dev_seen[r])
		return fail("%s was never seen: nowhere to scan for it", roles[r].what);
	snprintf(scan, sizeof(scan), "/sys/class/scsi_host/host%d/scan", at->host);
	if (knob_writef(scan, "%d %d %d", at->channel, at->target, at->lun))
		return -1;
	while (!dev_back(r, sized)) {
		if (mono() - t0 > 10)
			return fail("%s (%d:%d:%d:%d) did not come back within 10 s of a scan",
				    roles[r].what, at->host, at->channel, at->target, at->lun);
		usleep(10000);
	}
	diag("%s is %s again after %.2f s", roles[r].what, dev_name(r), mono() - t0);
	return 0;
}

/*
 * bbsuite.rename=1: a device removed and scanned again comes back under a
 * new name, every time.  The old one is held open meanwhile, so the kernel
 * cannot free its name (it does with the last reference to the old disk:
 * the trigger of issue 32, which a busy boot hits now and then, made
 * certain).  The suite must not care.
 */
static bool rename_forced(void)
{
	static int on = -1;
	char buf[4096];

	if (on < 0) {
		const char *v = cmdline_arg("bbsuite.rename=", buf, sizeof(buf));

		on = v && !strcmp(v, "1");
	}
	return on;
}

int dev_readd(enum role r, bool sized)
{
	char path[PATH_MAX];
	int hold = -1, ret;

	if (dev_require(r))
		return -1;
	if (rename_forced())
		hold = open(dev_node(r), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	snprintf(path, sizeof(path), "/sys/block/%s/device/delete", dev_name(r));
	ret = knob_write(path, "1");
	dev_nodes[r][0] = dev_names[r][0] = '\0';
	if (!ret)
		ret = dev_add(r, sized);
	if (hold >= 0)
		close(hold);
	return ret;
}
