
/*
 * chaindata: whether an index's data.mdb holds every page its meta pages
 * name, read before LMDB maps it.  LMDB maps the whole map size and
 * trusts the meta page: a file shorter than the pages it names (a copy
 * cut short, a disk that filled while it was written) faults (SIGBUS) on
 * the first read of a missing page.  Empty files, files too short for
 * their meta pages and files of no LMDB are refused here too, each with
 * its reason.
 */


#ifndef _CHAINDATA_DATA_FILE_H_INCLUDED_
#define _CHAINDATA_DATA_FILE_H_INCLUDED_


#include <stddef.h>


#define CHAINDATA_DATA_FILE_ERR_LEN  160

/* a meta page: the page header, then the meta record; its transaction id */
#define CHAINDATA_META_OFF          16
#define CHAINDATA_META_TXNID        128         /* from the meta record */


/*
 * dir/data.mdb: 0 when it holds the pages its newest valid meta page
 * names, -1 with the reason in err (len bytes)
 */
int chaindata_data_file_check(const char *dir, char *err, size_t len);

/* the same of an open data.mdb, from its descriptor */
int chaindata_data_file_check_fd(int fd, char *err, size_t len);


#endif /* _CHAINDATA_DATA_FILE_H_INCLUDED_ */
