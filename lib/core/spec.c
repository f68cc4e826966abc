/* SPDX-License-Identifier: MIT */
/*
 * Event specs: "cycles,instructions:u,task-clock,IPC". Each item is an
 * event (lib/core/events.c) or names metrics (lib/core/metrics.c), whose
 * events join the spec's.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Control bytes are never part of an event's name: refused before any
 * sentence quotes the item (a terminal would act on them). */
static int control_byte(const char *p, size_t len, unsigned position)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return upmc_fail(
			        -EINVAL,
			        "event %u of the spec has a control byte (0x%02x) at offset "
			        "%zu: event names are printable",
			        position, (unsigned char)p[i], i);
	return 0;
}

/* Where the item starting at p ends: the next ',' outside a pmu/terms/ spec,
 * whose terms are separated by commas too; NULL at the end of the spec. */
static const char *item_end(const char *p)
{
	unsigned slashes = 0;

	for (; *p; p++) {
		if (*p == '/')
			slashes++;
		else if (*p == ',' && slashes % 2 == 0)
			return p;
	}
	return NULL;
}

/* An event the spec's metrics already added: named again, it is the same. */
static int needed_by_a_metric(struct upmc_spec *out, const char *item)
{
	unsigned i;

	for (i = 0; i < out->n; i++)
		if ((out->for_metrics >> i & 1) && !strcmp(upmc_spec_event(out, i)->name, item))
			return 1;
	return 0;
}

/* Every item of spec into out: an event, or the metrics it names. */
static int parse_spec(const char *spec, unsigned flags, struct upmc_spec *out)
{
	const char *p = spec;

	if (!spec)
		return upmc_fail(-EINVAL, "event spec is NULL");
	for (unsigned position = 1;; position++) {
		char item[UPMC_NAME_MAX + 1];
		const char *end = item_end(p);
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int err;

		while (len && isspace((unsigned char)*p))
			p++, len--;
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (!len && !end && position == 1)
			return upmc_fail(-EINVAL, "event spec is empty: name at least one event, "
			                          "e.g. 'cycles,instructions'");
		err = control_byte(p, len, position);
		if (err < 0)
			return err;
		if (!len) {
			char shown[2 * UPMC_NAME_MAX];
			upmc_printable(shown, sizeof(shown), spec);
			return upmc_fail(-EINVAL,
			                 "event spec '%s' has an empty item at position %u", shown,
			                 position);
		}
		if (len > UPMC_NAME_MAX)
			len = UPMC_NAME_MAX; /* parse_item() reports it */
		memcpy(item, p, len);
		item[len] = '\0';
		if (out->metrics && upmc_is_metric(item))
			err = upmc_spec_add_metrics(out, item, flags);
		else if (!needed_by_a_metric(out, item))
			err = upmc_spec_add(out, item, flags);
		if (err < 0)
			return err;
		if (!end)
			return (int)out->n;
		p = end + 1;
	}
}

int upmc_parse_spec(const char *spec, unsigned flags, struct upmc_event *events, unsigned max)
{
	struct upmc_spec out = {events, NULL, 0, max, NULL, 0, 0};

	return parse_spec(spec, flags, &out);
}

int upmc_parse_spec_metrics(const char *spec, unsigned flags, struct upmc_event *events,
                            unsigned max, struct upmc_metric *metrics, unsigned *n_metrics)
{
	struct upmc_spec out = {events, NULL, 0, max, metrics, 0, 0};
	int n = parse_spec(spec, flags, &out);

	*n_metrics = out.n_metrics;
	return n;
}

int upmc_parse_counters(const char *spec, unsigned flags, struct upmc_set_state *st)
{
	struct upmc_spec out = {NULL, st->counter, 0, UPMC_MAX_COUNTERS, st->metric, 0, 0};
	int n = parse_spec(spec, flags, &out);

	st->n_metrics = out.n_metrics;
	return n;
}
