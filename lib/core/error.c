/* SPDX-License-Identifier: MIT */
#include <errno.h>
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

/* Beyond this, a size is not a struct's, whatever version the caller has. */
#define STRUCT_SIZE_MAX 4096

int upmc_check_struct_size(const void *s, size_t size, size_t known, const char *what)
{
	const unsigned char *extra = (const unsigned char *)s + known;
	size_t i;

	if (size <= known)
		return 0;
	if (size > STRUCT_SIZE_MAX)
		return upmc_fail(-E2BIG,
		                 "%s.size is %zu: no version of the struct is that large; set it "
		                 "to sizeof(struct %s)",
		                 what, size, what);
	for (i = 0; i < size - known; i++)
		if (extra[i])
			return upmc_fail(
			        -E2BIG,
			        "%s.size is %zu and byte %zu is not zero: this library knows "
			        "the first %zu bytes only and cannot ignore a field it does not "
			        "know",
			        what, size, known + i, known);
	return 0;
}

void upmc_printable(char *out, size_t size, const char *s)
{
	size_t len = 0;

	for (; *s && len + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			len += (size_t)snprintf(out + len, size - len, "\\x%02x", c);
		else
			out[len++] = (char)c;
	}
	if (size)
		out[len < size ? len : size - 1] = '\0';
}
