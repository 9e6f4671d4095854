
/*
 * chaindata: the files of an index directory, opened by the tools as
 * their own (doc/operations.md, "Files in the index directory"): never
 * through a symbolic link, never one owned by another user than the
 * directory's owner, created without world access whatever the umask,
 * and, when a tool runs as root on a directory of another user, created
 * as that user.
 */


#ifndef _CHAINDATA_INDEX_FILES_H_INCLUDED_
#define _CHAINDATA_INDEX_FILES_H_INCLUDED_


#include <stddef.h>
#include <sys/types.h>


/* data.mdb: nginx's workers read it through the group */
#define CHAINDATA_INDEX_DATA_MODE   0640
/* lock.mdb: LMDB's readers write their slots in it, so the group too */
#define CHAINDATA_INDEX_LOCK_MODE   0660
/* the directory, and a snapshot's */
#define CHAINDATA_INDEX_DIR_MODE    0750

#define CHAINDATA_INDEX_FILES_ERR_LEN  512


typedef struct {
    uid_t  uid;                   /* the ids to return to */
    gid_t  gid;
    int    switched;
} chaindata_index_owner_t;


/*
 * Before LMDB opens the index in dir: data.mdb and lock.mdb, where they
 * exist, are regular files (no symbolic link) of the directory's owner;
 * as root on a directory of another user, the process takes that user's
 * ids (chaindata_index_owner_end gives root back), so what LMDB creates is
 * the owner's; lock.mdb, and data.mdb for a writer, are created here with
 * their modes.  0, or -1 with the reason in err.
 */
int chaindata_index_files_prepare(const char *dir, int writer,
    chaindata_index_owner_t *own, char *err, size_t len);

/*
 * As root on a directory of another user: that user's ids; else nothing.
 * The end gives the ids of before back; a process that cannot take them
 * back stops there (abort(), saying why) rather than go on as the owner.
 */
int chaindata_index_owner_begin(const char *dir, chaindata_index_owner_t *own);
void chaindata_index_owner_end(chaindata_index_owner_t *own);

/*
 * dir/name opened without following a link, created (with flags holding
 * O_CREAT) with exactly mode; a file found owned by another user than
 * the directory's owner is refused (EPERM).  A descriptor, or -1 (errno).
 */
int chaindata_index_files_open(const char *dir, const char *name, int flags,
    mode_t mode);

/* the tools' umask: never world access, whatever they were started with */
void chaindata_index_files_umask(void);


#endif /* _CHAINDATA_INDEX_FILES_H_INCLUDED_ */
