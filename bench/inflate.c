
/*
 * chaindata bench (bench/gzip): what inflating costs a plain answer, and
 * what storing the plain bytes beside the pieces would cost the index.
 *
 * For every transaction of the index at argv[1]: its default answer's
 * pieces (the document's and its first chunk of events, as the module
 * serves GET /extended/v1/tx/{id}) inflated, ROUNDS times over the whole
 * index, timed (CLOCK_PROCESS_CPUTIME_ID), their stored CRC-32s checked
 * alone too (what a gzip answer does instead); the sums of the plain and the
 * stored bytes of every piece of tx and tx_event (a value kept in parts
 * joined first, as the module joins it).  Prints:
 *
 *   inflate_us=<µs a default answer, the check included>
 *   check_us=<µs its stored CRC-32s alone> pieces=<per answer> plain=<bytes>
 *   stored=<bytes of pieces> plain_all=<bytes if inflated, all records>
 *   overflow=<values of tx and tx_event over LMDB's node limit, in
 *   overflow pages> overflow_slack=<bytes of their pages they leave
 *   unused: a value of 2,100 bytes takes a 4 KiB page>
 *
 * usage: inflate DB_DIR [ROUNDS]
 */


#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lmdb.h>

#include "chaindata_chunks.h"
#include "chaindata_layout.h"
#include "chaindata_parts.h"
#include "chaindata_piece.h"
#include "chaindata_schema.h"


static double
cpu_us(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);

    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}


/*
 * A value over the node limit (chaindata_layout.h) lies in overflow
 * pages of its own, after their 16-byte header: the bytes it leaves
 * unused of the last one.
 */

static size_t  page = 4096;

static void
overflow_add(const MDB_val *v, size_t *n, size_t *slack)
{
    size_t  pages;

    if (v->mv_size <= CHAINDATA_NODE_MAX) {
        return;
    }

    pages = (v->mv_size + 16 + page - 1) / page;
    *n += 1;
    *slack += pages * page - 16 - v->mv_size;
}


/*
 * A value read with cur under k, made whole when it is kept in parts
 * (lmdb-schema/README.md, "Values in parts"): joined into buf, the cursor
 * left on its last part; 0, or -1 when its parts are damaged.
 */

static int
whole(MDB_cursor *cur, chaindata_dbi_e db, const MDB_val *k, MDB_val *v,
    unsigned char *buf)
{
    size_t   n, len;
    MDB_val  part[CHAINDATA_PARTS_MAX - 1];

    if (!chaindata_parts_has(db, k->mv_size, v->mv_size)) {
        return 0;
    }

    if (chaindata_parts_read(cur, db, k, part, &n, &len) != 0) {
        return -1;
    }

    chaindata_parts_join(buf, v, part, n);
    v->mv_data = buf;
    v->mv_size = len;

    return 0;
}


int
main(int argc, char **argv)
{
    int                    rc, rounds, r;
    size_t                 ntx, npieces, plain, stored, plain_all, i;
    size_t                 overflow, slack;
    double                 t0, spent, checked;
    MDB_env               *env;
    MDB_stat               st;
    MDB_txn               *txn;
    MDB_dbi                dtx, dev;
    MDB_val                k, v, ek, ev;
    MDB_cursor            *cur, *ecur;
    unsigned char         *out, *bufv, *bufe, key[CHAINDATA_TXID_LEN + 4];
    chaindata_txh_t        h;
    chaindata_chunk_t      c;
    chaindata_inflater_t  *in;

    if (argc < 2) {
        fprintf(stderr, "usage: inflate DB_DIR [ROUNDS]\n");
        return 2;
    }

    rounds = argc > 2 ? atoi(argv[2]) : 3;
    out = malloc(64 << 20);
    bufv = malloc(1 << 20);
    bufe = malloc(1 << 20);
    in = chaindata_inflater_create();

    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, CHAINDATA_MAX_DBS)
        || mdb_env_open(env, argv[1], MDB_RDONLY, 0)
        || mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)
        || mdb_dbi_open(txn, "tx", 0, &dtx)
        || mdb_dbi_open(txn, "tx_event", 0, &dev)
        || mdb_cursor_open(txn, dev, &ecur)
        || out == NULL || bufv == NULL || bufe == NULL || in == NULL)
    {
        fprintf(stderr, "inflate: cannot open %s\n", argv[1]);
        return 1;
    }

    ntx = npieces = plain = stored = plain_all = overflow = slack = 0;

    if (mdb_env_stat(env, &st) == 0) {
        page = st.ms_psize;
    }
    spent = 0;
    checked = 0;

    for (r = 0; r < rounds; r++) {
        mdb_cursor_open(txn, dtx, &cur);

        for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
             rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
        {
            if (whole(cur, CHAINDATA_DBI_TX, &k, &v, bufv) != 0
                || chaindata_txh_decode(&h, v.mv_data, v.mv_size) != 0)
            {
                continue;
            }

            c.n = 0;

            if (h.chunk0) {
                /* chunk 0 inside the value (lmdb-schema/pieces.md) */
                if (chaindata_chunk_decode(&c, h.chunk0, h.chunk0_len) != 0) {
                    continue;
                }

            } else if (h.event_count) {
                memcpy(key, k.mv_data, CHAINDATA_TXID_LEN);
                memset(key + CHAINDATA_TXID_LEN, 0, 4);
                ek.mv_data = key;
                ek.mv_size = sizeof(key);

                if (mdb_cursor_get(ecur, &ek, &ev, MDB_SET_KEY) != 0
                    || whole(ecur, CHAINDATA_DBI_TX_EVENT, &ek, &ev, bufe)
                       != 0
                    || chaindata_chunk_decode(&c, ev.mv_data, ev.mv_size)
                       != 0)
                {
                    continue;
                }
            }

            t0 = cpu_us();

            for (i = 0; i < h.npieces; i++) {
                (void) chaindata_piece_inflate(in, &h.piece[i], out);
            }

            if (c.n) {
                (void) chaindata_piece_inflate(in, &c.piece, out);
            }

            spent += cpu_us() - t0;

            /* the stored CRC-32s alone: what a gzip answer checks */
            t0 = cpu_us();

            for (i = 0; i < h.npieces; i++) {
                (void) chaindata_piece_check(&h.piece[i]);
            }

            if (c.n) {
                (void) chaindata_piece_check(&c.piece);
            }

            checked += cpu_us() - t0;

            if (r == 0) {
                ntx++;
                npieces += h.npieces + (c.n != 0);
                plain += h.doc_len + (c.n ? c.piece.plain_len : 0);

                for (i = 0; i < h.npieces; i++) {
                    stored += h.piece[i].deflate_len;
                }

                stored += c.n ? c.piece.deflate_len : 0;
            }
        }

        mdb_cursor_close(cur);
    }

    /* every record's plain bytes: what keeping both encodings adds */
    mdb_cursor_open(txn, dtx, &cur);

    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
    {
        overflow_add(&v, &overflow, &slack);

        if (whole(cur, CHAINDATA_DBI_TX, &k, &v, bufv) == 0
            && chaindata_txh_decode(&h, v.mv_data, v.mv_size) == 0)
        {
            plain_all += h.doc_len;

            if (h.chunk0
                && chaindata_chunk_decode(&c, h.chunk0, h.chunk0_len) == 0)
            {
                plain_all += c.piece.plain_len;
            }
        }
    }

    mdb_cursor_close(cur);
    mdb_cursor_open(txn, dev, &cur);

    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
    {
        overflow_add(&v, &overflow, &slack);

        if (whole(cur, CHAINDATA_DBI_TX_EVENT, &k, &v, bufe) == 0
            && chaindata_chunk_decode(&c, v.mv_data, v.mv_size) == 0)
        {
            plain_all += c.piece.plain_len;
        }
    }

    mdb_cursor_close(cur);

    printf("inflate_us=%.2f check_us=%.3f pieces=%.2f plain=%.0f "
           "stored=%.0f plain_all=%zu overflow=%zu overflow_slack=%zu\n",
           spent / (ntx * rounds), checked / (ntx * rounds),
           (double) npieces / ntx,
           (double) plain / ntx, (double) stored / ntx, plain_all,
           overflow, slack);

    mdb_cursor_close(ecur);
    mdb_txn_abort(txn);
    mdb_env_close(env);

    return 0;
}
