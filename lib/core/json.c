/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "internal.h"

/* No overlong form, no surrogate, at most U+10FFFF. */
size_t upmc_utf8_length(const unsigned char *p)
{
	size_t n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1fu;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, cp = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07u;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* a NUL ends it here too */
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * JSON text is UTF-8 (RFC 8259). A byte that does not belong to a
 * well-formed sequence (a file name in Latin-1, say) is written as the code
 * point of the same number, \u00XX: the document stays valid, and Latin-1
 * text reads as meant.
 */
void upmc_json_string(FILE *out, const char *s)
{
	const unsigned char *p;
	size_t n;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p += n ? n : 1) {
		n = upmc_utf8_length(p);
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || !n)
			fprintf(out, "\\u%04x", *p);
		else
			fwrite(p, 1, n, out);
	}
	fputc('"', out);
}
