
/*
 * chaindata: the letters field tables are written with (chaindata_field_t,
 * chaindata_record.h), so that a field reads as one short line:
 *
 *     { "block_height", U, R, NULL, NULL },
 *
 * A record kind's file includes it last, after every other header, and
 * its tables use it; the letters stay defined to the end of that file, so
 * nothing else there may be called by one.  Shapes of "required" other
 * than R are a kind's own (chaindata_record_tx_check.c: C and M).
 */


#ifndef _CHAINDATA_FIELD_LETTERS_H_INCLUDED_
#define _CHAINDATA_FIELD_LETTERS_H_INCLUDED_


#include "chaindata_record.h"


#define S  CHAINDATA_T_STR
#define U  CHAINDATA_T_U64
#define I  CHAINDATA_T_INT
#define N  CHAINDATA_T_NUM
#define B  CHAINDATA_T_BOOL
#define Z  CHAINDATA_T_NULL
#define O  CHAINDATA_T_OBJ
#define A  CHAINDATA_T_ARR

#define R  CHAINDATA_REQUIRED


#endif /* _CHAINDATA_FIELD_LETTERS_H_INCLUDED_ */
