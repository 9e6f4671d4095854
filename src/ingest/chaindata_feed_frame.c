
/*
 * chaindata: the framing records themselves (lmdb-schema/feed.md,
 * "Framing records"): which one a line is, its fields, checked by the
 * field table every record kind uses, and their writers.
 */


#include <string.h>

#include "chaindata_feed.h"


static const char *chaindata_check_source(const chaindata_jv_t *v);
static const char *chaindata_check_hash(const chaindata_jv_t *v);
static const char *chaindata_check_parent(const chaindata_jv_t *v);


static const chaindata_field_t  chaindata_block_fields[] = {
    { "kind",   CHAINDATA_T_STR, CHAINDATA_REQUIRED, NULL, NULL },
    { "source", CHAINDATA_T_STR, CHAINDATA_REQUIRED, NULL,
      chaindata_check_source },
    { "height", CHAINDATA_T_U64, CHAINDATA_REQUIRED, NULL, NULL },
    { "hash",   CHAINDATA_T_STR, CHAINDATA_REQUIRED, NULL,
      chaindata_check_hash },
    { "parent", CHAINDATA_T_STR, CHAINDATA_REQUIRED, NULL,
      chaindata_check_parent },
    { "time",   CHAINDATA_T_U64, CHAINDATA_REQUIRED, NULL, NULL },
    { NULL, 0, 0, NULL, NULL }
};

/* block_end and rollback */
static const chaindata_field_t  chaindata_mark_fields[] = {
    { "kind",   CHAINDATA_T_STR, CHAINDATA_REQUIRED, NULL, NULL },
    { "source", CHAINDATA_T_STR, CHAINDATA_REQUIRED, NULL,
      chaindata_check_source },
    { "height", CHAINDATA_T_U64, CHAINDATA_REQUIRED, NULL, NULL },
    { NULL, 0, 0, NULL, NULL }
};


int
chaindata_feed_peek(chaindata_feed_t *f, const unsigned char *line,
    size_t len)
{
    chaindata_jv_t  *kind;

    chaindata_arena_reset(f->arena);

    f->root = chaindata_jdoc_parse(f->arena, line, len, f->err,
                                   sizeof(f->err));

    if (f->root == NULL) {
        return -1;
    }

    if (f->root->type != CHAINDATA_JV_OBJECT) {
        return CHAINDATA_FRAME_NONE;
    }

    kind = chaindata_jv_get(f->root, "kind");

    if (kind == NULL || kind->type != CHAINDATA_JV_STRING) {
        return CHAINDATA_FRAME_NONE;
    }

    if (chaindata_jv_is(kind, "block")) {
        return CHAINDATA_FRAME_BLOCK;
    }

    if (chaindata_jv_is(kind, "block_end")) {
        return CHAINDATA_FRAME_END;
    }

    if (chaindata_jv_is(kind, "rollback")) {
        return CHAINDATA_FRAME_ROLLBACK;
    }

    return CHAINDATA_FRAME_NONE;
}


/* a source name: 1 to 32 of [a-z0-9_-] */

static const char *
chaindata_check_source(const chaindata_jv_t *v)
{
    size_t  i;

    if (v->len == 0 || v->len > CHAINDATA_FEED_SOURCE_MAX) {
        return "1 to 32 characters long";
    }

    for (i = 0; i < v->len; i++) {
        if (!((v->str[i] >= 'a' && v->str[i] <= 'z')
              || (v->str[i] >= '0' && v->str[i] <= '9')
              || v->str[i] == '_' || v->str[i] == '-'))
        {
            return "made of a-z, 0-9, _ and -";
        }
    }

    return NULL;
}


/* a block hash: 0 (parent only) to 128 of [0-9A-Za-z], the one check */

static const char *
chaindata_check_parent(const chaindata_jv_t *v)
{
    size_t  i;

    if (v->len > CHAINDATA_FEED_HASH_MAX) {
        return "at most 128 characters long";
    }

    for (i = 0; i < v->len; i++) {
        if (!((v->str[i] >= 'a' && v->str[i] <= 'z')
              || (v->str[i] >= 'A' && v->str[i] <= 'Z')
              || (v->str[i] >= '0' && v->str[i] <= '9')))
        {
            return "made of letters and digits";
        }
    }

    return NULL;
}


int
chaindata_jv_hash(const chaindata_jv_t *obj, const char *name,
    unsigned char *out, size_t *len)
{
    const chaindata_jv_t  *m;

    m = chaindata_jv_get(obj, name);

    if (m == NULL || m->type != CHAINDATA_JV_STRING
        || chaindata_check_parent(m) != NULL)
    {
        return -1;
    }

    memcpy(out, m->str, m->len);
    *len = m->len;

    return 0;
}


static const char *
chaindata_check_hash(const chaindata_jv_t *v)
{
    return v->len == 0 ? "1 to 128 characters long"
                       : chaindata_check_parent(v);
}


/* holds the framing record peek() parsed to its fields */

static int
chaindata_feed_fields(chaindata_feed_t *f, const chaindata_field_t *fields,
    const char *kind)
{
    chaindata_rules_t    rules;
    chaindata_record_t   rec;

    memset(&rules, 0, sizeof(rules));
    rules.shape = CHAINDATA_REQUIRED;
    rules.closed = 1;
    rules.note = "";

    if (chaindata_record_fields(&rec, f->root, fields, kind, &rules) != 0) {
        memcpy(f->err, rec.err, sizeof(f->err));
        return -1;
    }

    return 0;
}


static void
chaindata_feed_string(chaindata_feed_t *f, const char *name,
    unsigned char *out, size_t *len)
{
    const chaindata_jv_t  *v;

    v = chaindata_jv_get(f->root, name);

    memcpy(out, v->str, v->len);
    *len = v->len;
}


static uint64_t
chaindata_feed_u64(chaindata_feed_t *f, const char *name)
{
    uint64_t  n;

    (void) chaindata_jv_u64(f->root, name, &n);

    return n;
}


int
chaindata_feed_read_mark(chaindata_feed_t *f, char *source, uint64_t *height)
{
    size_t       len;
    const char  *kind;

    kind = chaindata_jv_is(chaindata_jv_get(f->root, "kind"), "rollback")
           ? "rollback" : "block_end";

    if (chaindata_feed_fields(f, chaindata_mark_fields, kind) != 0) {
        return -1;
    }

    chaindata_feed_string(f, "source", (unsigned char *) source, &len);
    source[len] = '\0';

    *height = chaindata_feed_u64(f, "height");

    return 0;
}


int
chaindata_feed_read_block(chaindata_feed_t *f)
{
    size_t  len;

    if (chaindata_feed_fields(f, chaindata_block_fields, "block") != 0) {
        return -1;
    }

    chaindata_feed_string(f, "source", (unsigned char *) f->source, &len);
    f->source[len] = '\0';

    f->height = chaindata_feed_u64(f, "height");
    f->time = chaindata_feed_u64(f, "time");
    chaindata_feed_string(f, "hash", f->hash, &f->hash_len);
    chaindata_feed_string(f, "parent", f->parent, &f->parent_len);

    return 0;
}


int
chaindata_feed_write_block(chaindata_line_t *l, const char *source,
    uint64_t height, const unsigned char *hash, size_t hash_len,
    const unsigned char *parent, size_t parent_len, uint64_t time)
{
    chaindata_line_open(l, "block", hash_len + parent_len);
    chaindata_line_str(l, "source", source, strlen(source));
    chaindata_line_u64(l, "height", height);
    chaindata_line_str(l, "hash", hash, hash_len);
    chaindata_line_str(l, "parent", parent, parent_len);
    chaindata_line_u64(l, "time", time);

    return chaindata_line_close(l);
}


int
chaindata_feed_write_mark(chaindata_line_t *l, chaindata_frame_e frame,
    const char *source, uint64_t height)
{
    chaindata_line_open(l, frame == CHAINDATA_FRAME_END ? "block_end"
                                                        : "rollback", 0);
    chaindata_line_str(l, "source", source, strlen(source));
    chaindata_line_u64(l, "height", height);

    return chaindata_line_close(l);
}
