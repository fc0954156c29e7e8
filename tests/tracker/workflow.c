/*
 * workflow: Bugzilla 5.x's default bug workflow, in one table that both
 * GET /rest/field/bug/bug_status prints and PUT /rest/bug/{id} enforces.
 *
 * Statuses UNCONFIRMED, CONFIRMED, IN_PROGRESS (open), RESOLVED, VERIFIED
 * (closed); NEW, ASSIGNED, REOPENED and CLOSED do not exist here, as on a
 * fresh 5.x install.  Resolutions FIXED, INVALID, WONTFIX, DUPLICATE,
 * WORKSFORME.
 */
#include "standin.h"

#include <string.h>

/* The default workflow; the first row (no name) is "a new bug". */
static const struct {
	const char *name;
	int sortkey;
	bool open;
	const char *to[4];
} workflow[] = {
	{ NULL, 0, true, { "UNCONFIRMED", "CONFIRMED", "IN_PROGRESS", NULL } },
	{ "UNCONFIRMED", 100, true, { "CONFIRMED", "IN_PROGRESS", "RESOLVED", NULL } },
	{ "CONFIRMED", 200, true, { "IN_PROGRESS", "RESOLVED", NULL } },
	{ "IN_PROGRESS", 300, true, { "CONFIRMED", "RESOLVED", NULL } },
	{ "RESOLVED", 400, false, { "UNCONFIRMED", "CONFIRMED", "VERIFIED", NULL } },
	{ "VERIFIED", 500, false, { "UNCONFIRMED", "CONFIRMED", NULL } },
};

static const char *const resolution_values[] = {
	"", "FIXED", "INVALID", "WONTFIX", "DUPLICATE", "WORKSFORME"
};

static struct json_object *value(const char *name, int sortkey)
{
	struct json_object *v = json_object_new_object();

	json_object_object_add(v, "name", name ? json_object_new_string(name) : NULL);
	json_object_object_add(v, "sortkey", json_object_new_int(sortkey));
	json_object_object_add(v, "sort_key", json_object_new_int(sortkey));
	json_object_object_add(v, "visibility_values", json_object_new_array());
	return v;
}

struct json_object *sa_status_values(void)
{
	struct json_object *values = json_object_new_array();

	for (size_t i = 0; i < sizeof(workflow) / sizeof(workflow[0]); i++) {
		struct json_object *v = value(workflow[i].name, workflow[i].sortkey);
		struct json_object *to = json_object_new_array();

		for (int j = 0; j < 4 && workflow[i].to[j]; j++) {
			struct json_object *t = json_object_new_object();
			json_object_object_add(t, "name",
					       json_object_new_string(workflow[i].to[j]));
			json_object_object_add(t, "comment_required",
					       json_object_new_boolean(0));
			json_object_array_add(to, t);
		}
		json_object_object_add(v, "is_open", json_object_new_boolean(workflow[i].open));
		json_object_object_add(v, "can_change_to", to);
		json_object_array_add(values, v);
	}
	return values;
}

struct json_object *sa_resolution_values(bool names_only)
{
	struct json_object *values = json_object_new_array();

	for (size_t i = 0; i < sizeof(resolution_values) / sizeof(resolution_values[0]); i++)
		json_object_array_add(values, names_only ?
			json_object_new_string(resolution_values[i]) :
			value(resolution_values[i], (int)i * 100));
	return values;
}

static int status_row(const char *name)
{
	for (size_t i = 1; i < sizeof(workflow) / sizeof(workflow[0]); i++)
		if (!strcmp(workflow[i].name, name))
			return (int)i;
	return -1;
}

bool sa_status_known(const char *status)
{
	return status_row(status) > 0;
}

bool sa_status_open(const char *status)
{
	int i = status_row(status);

	return i < 0 || workflow[i].open;
}

bool sa_transition_ok(const char *from, const char *to)
{
	int i = status_row(from);

	if (i < 0)
		return false;
	for (int j = 0; j < 4 && workflow[i].to[j]; j++)
		if (!strcmp(workflow[i].to[j], to))
			return true;
	return false;
}

bool sa_resolution_known(const char *resolution)
{
	for (size_t i = 1; i < sizeof(resolution_values) / sizeof(resolution_values[0]); i++)
		if (!strcmp(resolution_values[i], resolution))
			return true;
	return false;
}

void sa_status_names(struct json_object *list)
{
	for (size_t i = 1; i < sizeof(workflow) / sizeof(workflow[0]); i++)
		json_object_array_add(list, json_object_new_string(workflow[i].name));
}

bool sa_can_confirm(const struct sa_user *u)
{
	return sa_can_edit(u) || sa_in_group(u, "canconfirm");
}
