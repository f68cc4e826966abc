/* SPDX-License-Identifier: MIT */
/* Small helpers the subcommands share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

void cli_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

void cli_thousands(char *buf, size_t size, uint64_t n)
{
	char digits[32];
	size_t len, i, o = 0;

	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	len = strlen(digits);
	for (i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

const char *cli_after_quoted_name(const char *reason, const char *name)
{
	size_t len = strlen(name);

	if (reason[0] == '\'' && !strncmp(reason + 1, name, len) && reason[len + 1] == '\'')
		return reason + len + 2;
	return reason;
}
