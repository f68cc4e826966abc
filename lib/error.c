/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "internal.h"

static _Thread_local char last_error[512];

UPMC_API const char *upmc_last_error(void)
{
	return last_error;
}

int upmc_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err;
}

void upmc_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}
