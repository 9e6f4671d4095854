
/*
 * chaindata: query integers as upstream's validator (Node.js) sees them.
 * Upstream coerces a query value with JavaScript's Number() and then checks
 * for an integer; a page echoes the number it made of the value.  These
 * are that coercion and that echo, for chaindata_paths.c.
 *
 * No nginx headers, no libm.
 */


#ifndef _CHAINDATA_JSNUM_H_INCLUDED_
#define _CHAINDATA_JSNUM_H_INCLUDED_


#include <stddef.h>
#include <stdint.h>


/* the longest integer_text: "1.7976931348623157e+308" */
#define CHAINDATA_JS_TEXT_LEN  24


/*
 * Number(s) (ECMAScript StringToNumber): JavaScript's white space trimmed
 * (Unicode's too, in UTF-8); a decimal literal with a sign, a fraction
 * and an exponent ("+2", "1.0", "1e1", ".5e1"), "Infinity" with a sign,
 * or "0x", "0o", "0b" and digits, without a sign.  0 with the double in
 * out, -1 for NaN, and for an empty or all-space s (0 to Number(), but
 * upstream's validator refuses an empty value).  s[len] must be a NUL.
 */
int chaindata_js_number(const unsigned char *s, size_t len,
    double *out);

/* finite and without a fraction (Number.isInteger) */
int chaindata_js_is_integer(double d);

/* a whole number from 0, saturated at 2^64 - 1; 0 for -0 */
uint64_t chaindata_js_to_u64(double d);

/*
 * A whole number from 0 as JavaScript writes it (Number::toString, as
 * JSON.stringify does): "0" for -0, the shortest digits that read back as
 * d, zeros up to 21 digits ("100000000000000000000"), then an exponent
 * ("1e+21").  Returns the length, at most CHAINDATA_JS_TEXT_LEN - 1.
 */
size_t chaindata_js_integer_text(unsigned char *buf, double d);


#endif /* _CHAINDATA_JSNUM_H_INCLUDED_ */
