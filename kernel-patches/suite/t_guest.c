/*
 * t_guest.c: what the guest must not have.
 *
 * guest-no-network: the guest is the patch author's kernel, so the runner
 * gives QEMU -nodefaults and -nic none.  No network interface but lo in
 * /sys/class/net (absent in a kernel without networking), and no PCI
 * device of class 0x02 (network controller), which a patch that enabled a
 * NIC driver would otherwise find: nothing to reach 10.0.2.2 or the host
 * with.  The PCI check works without CONFIG_NET.
 */
#include "bbsuite.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int net_interfaces(void)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *de;
	int bad = 0;

	if (!d) {
		diag("no /sys/class/net: a kernel without networking");
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		diag("/sys/class/net/%s", de->d_name);
		if (strcmp(de->d_name, "lo"))
			bad++;
	}
	closedir(d);
	return bad;
}

static int pci_network_devices(int *seen)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *de;
	int bad = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[300], cls[32] = "";
		FILE *f;
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(cls, sizeof(cls), f))
			(*seen)++;
		fclose(f);
		if ((strtoul(cls, NULL, 16) >> 16) == 0x02) {
			diag("PCI %s is a network controller (class %.8s)", de->d_name, cls);
			bad++;
		}
	}
	closedir(d);
	return bad;
}

int t_guest_no_network(void)
{
	int seen = 0, ifs = net_interfaces(), nics = pci_network_devices(&seen);

	if (nics < 0)
		return fail("cannot read /sys/bus/pci/devices");
	if (!seen)
		return fail("no PCI device at all: the check proves nothing");
	if (ifs || nics)
		return fail("%d network interface(s) besides lo, %d network controller(s):"
			    " QEMU must give the guest none", ifs, nics);
	diag("%d PCI devices, none of them a network controller", seen);
	return 0;
}
