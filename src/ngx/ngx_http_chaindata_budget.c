
/*
 * chaindata: the memory the workers hold for replies in flight
 * (doc/operations.md, "Memory").  A reply's body is assembled in its request's
 * pool and stays there until the request ends, however slowly the client
 * reads it; the bytes of those bodies are counted for all the workers
 * together, each in a slot of its own in shared memory, and a new body
 * that would take the sum over chaindata_body_budget is refused (503,
 * Retry-After: 1).  A body larger than the whole budget is served by a
 * worker that holds no other, so that no document becomes unservable.
 *
 *     chaindata_body_budget  SIZE;    (default 256m)
 *
 * A slot is a worker's pid and the bytes it holds.  A worker takes a free
 * slot, or the slot of one that is gone (killed, or exited during a
 * reload, whose slots the zone keeps), when it starts and frees it when
 * it exits; a sum that looks full is taken again without the slots of
 * workers that are gone.  Workers that find no slot count alone.  The
 * zone keeps how many slots were ever taken, and a sum reads only those:
 * a reply costs a few cache lines, not the 1,024 slots.
 */


#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "ngx_http_chaindata_budget.h"
#include "ngx_http_chaindata_module.h"
#include "ngx_http_chaindata_reply.h"


#define NGX_HTTP_CHAINDATA_BUDGET_SLOTS  1024


typedef struct {
    ngx_atomic_t  pid;               /* 0: free */
    ngx_atomic_t  held;
} ngx_http_chaindata_budget_slot_t;


typedef struct {
    ngx_atomic_t                      used;    /* slots ever taken */
    ngx_http_chaindata_budget_slot_t  slots[NGX_HTTP_CHAINDATA_BUDGET_SLOTS];
} ngx_http_chaindata_budget_zone_t;


/* this worker's slot; NULL: it counts alone, in held */
static ngx_http_chaindata_budget_slot_t  *ngx_http_chaindata_budget_slot;
static ngx_http_chaindata_budget_zone_t  *ngx_http_chaindata_budget_zone;
static ngx_atomic_t                       ngx_http_chaindata_body_held;


static ngx_int_t
ngx_http_chaindata_budget_zone_init(ngx_shm_zone_t *zone, void *data)
{
    ngx_slab_pool_t  *shpool;

    /* a reload: the old workers' slots go on counting */
    if (data) {
        zone->data = data;
        return NGX_OK;
    }

    shpool = (ngx_slab_pool_t *) zone->shm.addr;

    zone->data = ngx_slab_calloc(shpool,
                                 sizeof(ngx_http_chaindata_budget_zone_t));

    return zone->data ? NGX_OK : NGX_ERROR;
}


/* at configuration: the zone, kept over reloads (same name and size) */

ngx_int_t
ngx_http_chaindata_budget_conf(ngx_conf_t *cf,
    ngx_http_chaindata_main_conf_t *mcf)
{
    size_t     size;
    ngx_str_t  name = ngx_string("chaindata_body_budget");

    /* the slots, with room for the slab allocator's own pages */
    size = sizeof(ngx_http_chaindata_budget_zone_t) + 8 * ngx_pagesize;

    mcf->budget_zone = ngx_shared_memory_add(cf, &name, size,
                                             &ngx_http_chaindata_module);
    if (mcf->budget_zone == NULL) {
        return NGX_ERROR;
    }

    mcf->budget_zone->init = ngx_http_chaindata_budget_zone_init;

    return NGX_OK;
}


static ngx_uint_t
ngx_http_chaindata_budget_gone(ngx_atomic_uint_t pid)
{
    return kill((ngx_pid_t) pid, 0) == -1 && ngx_errno == NGX_ESRCH;
}


/* the slots a sum reads: at least up to slot i */

static void
ngx_http_chaindata_budget_use(ngx_http_chaindata_budget_zone_t *zone,
    ngx_uint_t i)
{
    ngx_atomic_uint_t  used;

    do {
        used = zone->used;

        if (used > i) {
            return;
        }

    } while (!ngx_atomic_cmp_set(&zone->used, used, i + 1));
}


/* in every worker, before it serves */

void
ngx_http_chaindata_budget_init(ngx_cycle_t *cycle,
    ngx_http_chaindata_main_conf_t *mcf)
{
    ngx_uint_t                         i;
    ngx_atomic_uint_t                  pid;
    ngx_http_chaindata_budget_slot_t  *slot;
    ngx_http_chaindata_budget_zone_t  *zone;

    ngx_http_chaindata_budget_slot = NULL;
    ngx_http_chaindata_budget_zone = NULL;

    if (mcf->budget_zone == NULL || mcf->budget_zone->data == NULL) {
        return;
    }

    zone = mcf->budget_zone->data;

    for (i = 0; i < NGX_HTTP_CHAINDATA_BUDGET_SLOTS; i++) {
        slot = &zone->slots[i];
        pid = slot->pid;

        if ((pid == 0 || ngx_http_chaindata_budget_gone(pid))
            && ngx_atomic_cmp_set(&slot->pid, pid, ngx_pid))
        {
            slot->held = 0;
            ngx_http_chaindata_budget_use(zone, i);
            ngx_http_chaindata_budget_slot = slot;
            ngx_http_chaindata_budget_zone = zone;
            return;
        }
    }

    ngx_log_error(NGX_LOG_NOTICE, cycle->log, 0,
                  "chaindata: no free slot for \"chaindata_body_budget\" "
                  "among %d workers: this one counts its bodies alone",
                  NGX_HTTP_CHAINDATA_BUDGET_SLOTS);
}


void
ngx_http_chaindata_budget_done(void)
{
    ngx_http_chaindata_budget_slot_t  *slot;

    slot = ngx_http_chaindata_budget_slot;

    if (slot) {
        ngx_http_chaindata_budget_slot = NULL;
        slot->held = 0;
        (void) ngx_atomic_cmp_set(&slot->pid, ngx_pid, 0);
    }
}


/* the bytes all the workers hold; forget: free the slots of the gone */

static size_t
ngx_http_chaindata_budget_sum(ngx_uint_t forget)
{
    size_t                             sum;
    ngx_uint_t                         i, used;
    ngx_atomic_uint_t                  pid;
    ngx_http_chaindata_budget_slot_t  *slots;

    if (ngx_http_chaindata_budget_slot == NULL) {
        return ngx_http_chaindata_body_held;
    }

    slots = ngx_http_chaindata_budget_zone->slots;
    used = ngx_min(ngx_http_chaindata_budget_zone->used,
                   NGX_HTTP_CHAINDATA_BUDGET_SLOTS);
    sum = 0;

    for (i = 0; i < used; i++) {
        pid = slots[i].pid;

        if (pid == 0) {
            continue;
        }

        if (forget && pid != (ngx_atomic_uint_t) ngx_pid
            && ngx_http_chaindata_budget_gone(pid))
        {
            (void) ngx_atomic_cmp_set(&slots[i].pid, pid, 0);
            continue;
        }

        sum += slots[i].held;
    }

    return sum;
}


static void
ngx_http_chaindata_budget_add(size_t size, ngx_uint_t take)
{
    ngx_atomic_t  *held;

    held = ngx_http_chaindata_budget_slot
           ? &ngx_http_chaindata_budget_slot->held
           : &ngx_http_chaindata_body_held;

    (void) ngx_atomic_fetch_add(held, take ? (ngx_atomic_int_t) size
                                           : -(ngx_atomic_int_t) size);
}


typedef struct {
    size_t                             size;
    ngx_http_chaindata_budget_slot_t  *slot;
} ngx_http_chaindata_budget_held_t;


static void
ngx_http_chaindata_budget_release(void *data)
{
    ngx_http_chaindata_budget_held_t  *h = data;

    /* the slot it was counted in, if this worker still has it */
    if (h->slot == ngx_http_chaindata_budget_slot) {
        ngx_http_chaindata_budget_add(h->size, 0);
    }
}


ngx_int_t
ngx_http_chaindata_budget_take(ngx_http_request_t *r, size_t size)
{
    size_t                             sum, own;
    ngx_pool_cleanup_t                *cln;
    ngx_http_chaindata_loc_conf_t     *lcf;
    ngx_http_chaindata_budget_held_t  *h;

    lcf = ngx_http_get_module_loc_conf(r, ngx_http_chaindata_module);

    own = ngx_http_chaindata_budget_slot
          ? ngx_http_chaindata_budget_slot->held
          : ngx_http_chaindata_body_held;

    sum = ngx_http_chaindata_budget_sum(0);

    if (sum + size > lcf->body_budget) {
        sum = ngx_http_chaindata_budget_sum(1);
    }

    /* over the budget, unless larger than all of it and the worker idle */
    if (sum + size > lcf->body_budget
        && (size <= lcf->body_budget || own != 0))
    {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "chaindata: a body of %uz bytes is over "
                      "\"chaindata_body_budget\" %uz: %uz bytes are held "
                      "by replies in flight", size, lcf->body_budget, sum);
        return NGX_BUSY;
    }

    /* given back when the request's pool goes, sent or not */
    cln = ngx_pool_cleanup_add(r->pool,
                               sizeof(ngx_http_chaindata_budget_held_t));
    if (cln == NULL) {
        return NGX_ERROR;
    }

    h = cln->data;
    h->size = size;
    h->slot = ngx_http_chaindata_budget_slot;
    cln->handler = ngx_http_chaindata_budget_release;

    ngx_http_chaindata_budget_add(size, 1);

    ngx_log_debug2(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "chaindata: a body of %uz bytes, %uz held in all",
                   size, sum + size);

    return NGX_OK;
}
