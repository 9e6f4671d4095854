
/*
 * chaindata: the strings of the loader's document tree (chaindata_jdoc).
 *
 * JSON lets a string carry a lone UTF-16 surrogate ("\ud800"), and
 * upstream's Node serves it back as JSON.stringify writes it ("\ud800").
 * yajl cannot keep one: it decodes "\ud800" to "?" and "\ud800\u00e9" to
 * another character.  So a string whose text has a surrogate escape is
 * decoded here from the text as given: a proper pair to its character, a
 * lone surrogate to its 3-byte form (ED A0..BF 80..BF, never valid UTF-8,
 * so nothing else in the tree looks like it), and written back as
 * "\udxxx".  Every other byte of a string must be valid UTF-8.
 *
 * No nginx headers, no yajl.
 */


#ifndef _CHAINDATA_JSTR_H_INCLUDED_
#define _CHAINDATA_JSTR_H_INCLUDED_


#include <stddef.h>


/* text has a "\u" escape of a surrogate somewhere (maybe "\\ud800") */
int chaindata_jstr_maybe_surrogates(const unsigned char *text,
    size_t len);

/*
 * The next string token at or after p, in JSON text that yajl has taken
 * apart up to there: its contents between the quotes in *raw and *raw_len,
 * whether they have a surrogate escape in *surrogates.  Returns the end of
 * the token, or NULL when there is none.
 */
const unsigned char *chaindata_jstr_next(const unsigned char *p,
    const unsigned char *end, const unsigned char **raw, size_t *raw_len,
    int *surrogates);

/*
 * The contents of a string token (escapes checked by yajl) decoded into
 * dst, which has room for len bytes: as above for surrogates.  Returns the
 * length, or (size_t) -1 when a byte outside the escapes is not valid
 * UTF-8.
 */
size_t chaindata_jstr_decode(unsigned char *dst, const unsigned char *raw,
    size_t len);

/*
 * A tree's string as JSON.stringify writes it: chaindata_json_escape's
 * escapes, and a lone surrogate as "\udxxx".  The size, then the bytes
 * (returns the end).
 */
size_t chaindata_jstr_escape_len(const unsigned char *s, size_t len);
unsigned char *chaindata_jstr_escape(unsigned char *dst,
    const unsigned char *s, size_t len);


#endif /* _CHAINDATA_JSTR_H_INCLUDED_ */
