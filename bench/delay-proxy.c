
/*
 * bench/delay-proxy: a TCP proxy that adds latency, for the mirror's
 * benchmark (bench/mirror): nothing changed on the machine's network.
 *
 *   delay-proxy UPSTREAM_PORT DELAY_MS
 *
 * Listens on an ephemeral port of 127.0.0.1 (printed on standard output,
 * one line), forwards each connection to 127.0.0.1:UPSTREAM_PORT, passes
 * what the client sends at once and holds what upstream answers DELAY_MS
 * milliseconds before passing it on: each response arrives DELAY_MS
 * later, as over a link of that much more round-trip time.  One thread,
 * poll(); exits on SIGTERM.  Its CPU time is the benchmark's to report.
 */


#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#define PAIRS_MAX   1024
#define CHUNK       65536


typedef struct chunk_s  chunk_t;

struct chunk_s {
    chunk_t   *next;
    double     due;
    size_t     len;
    size_t     off;
    char       data[];
};

typedef struct {
    int        client;          /* -1: free */
    int        up;
    int        up_eof;
    chunk_t   *head;            /* upstream's bytes, held */
    chunk_t   *tail;
} pair_t;


static pair_t         pairs[PAIRS_MAX];
static volatile int   stop;


static double
now(void)
{
    struct timespec  ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);

    return ts.tv_sec + ts.tv_nsec / 1e9;
}


static void
on_term(int sig)
{
    (void) sig;
    stop = 1;
}


static void
pair_close(pair_t *p)
{
    chunk_t  *c;

    close(p->client);
    close(p->up);
    p->client = -1;

    while ((c = p->head) != NULL) {
        p->head = c->next;
        free(c);
    }

    p->tail = NULL;
}


static void
pair_open(int listener, int port)
{
    int                  fd, up, one;
    size_t               i;
    struct sockaddr_in   sa;

    fd = accept(listener, NULL, NULL);
    if (fd < 0) {
        return;
    }

    up = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    if (up < 0 || connect(up, (struct sockaddr *) &sa, sizeof(sa)) != 0) {
        close(fd);
        if (up >= 0) {
            close(up);
        }
        return;
    }

    one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fcntl(fd, F_SETFL, O_NONBLOCK);

    for (i = 0; i < PAIRS_MAX; i++) {
        if (pairs[i].client < 0) {
            pairs[i].client = fd;
            pairs[i].up = up;
            pairs[i].up_eof = 0;
            return;
        }
    }

    close(fd);
    close(up);
}


/* the client's bytes to upstream at once (a request is small) */

static int
pass_request(pair_t *p)
{
    char     buf[CHUNK];
    ssize_t  n, w, off;

    n = read(p->client, buf, sizeof(buf));
    if (n <= 0) {
        return -1;
    }

    for (off = 0; off < n; off += w) {
        w = write(p->up, buf + off, n - off);
        if (w <= 0) {
            return -1;
        }
    }

    return 0;
}


/* upstream's bytes, held until DELAY later */

static void
hold_answer(pair_t *p, double delay)
{
    ssize_t   n;
    chunk_t  *c;

    c = malloc(sizeof(chunk_t) + CHUNK);
    if (c == NULL) {
        p->up_eof = 1;
        return;
    }

    n = read(p->up, c->data, CHUNK);
    if (n <= 0) {
        free(c);
        p->up_eof = 1;
        return;
    }

    c->next = NULL;
    c->due = now() + delay;
    c->len = (size_t) n;
    c->off = 0;

    if (p->tail) {
        p->tail->next = c;
    } else {
        p->head = c;
    }

    p->tail = c;
}


/* what is due, to the client: -1 when it is gone */

static int
pass_answer(pair_t *p, double t)
{
    ssize_t   w;
    chunk_t  *c;

    while ((c = p->head) != NULL && c->due <= t) {
        w = write(p->client, c->data + c->off, c->len - c->off);

        if (w < 0) {
            return errno == EAGAIN ? 0 : -1;
        }

        c->off += (size_t) w;

        if (c->off < c->len) {
            return 0;
        }

        p->head = c->next;
        if (p->head == NULL) {
            p->tail = NULL;
        }
        free(c);
    }

    return 0;
}


int
main(int argc, char **argv)
{
    int                  listener, port, one, timeout;
    size_t               i, n, idx[PAIRS_MAX];
    double               delay, t, next;
    socklen_t            len;
    struct pollfd        fds[1 + 2 * PAIRS_MAX];
    struct sockaddr_in   sa;

    if (argc != 3) {
        fprintf(stderr, "usage: delay-proxy UPSTREAM_PORT DELAY_MS\n");
        return 2;
    }

    port = atoi(argv[1]);
    delay = atof(argv[2]) / 1000;

    signal(SIGTERM, on_term);
    signal(SIGPIPE, SIG_IGN);

    for (i = 0; i < PAIRS_MAX; i++) {
        pairs[i].client = -1;
    }

    listener = socket(AF_INET, SOCK_STREAM, 0);
    one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof(sa);

    if (bind(listener, (struct sockaddr *) &sa, sizeof(sa)) != 0
        || listen(listener, 512) != 0
        || getsockname(listener, (struct sockaddr *) &sa, &len) != 0)
    {
        perror("delay-proxy");
        return 1;
    }

    printf("%d\n", ntohs(sa.sin_port));
    fflush(stdout);

    while (!stop) {
        t = now();
        next = t + 1;
        fds[0].fd = listener;
        fds[0].events = POLLIN;
        n = 1;

        for (i = 0; i < PAIRS_MAX; i++) {
            if (pairs[i].client < 0) {
                continue;
            }

            if (pairs[i].head == NULL && pairs[i].up_eof) {
                pair_close(&pairs[i]);
                continue;
            }

            idx[(n - 1) / 2] = i;
            fds[n].fd = pairs[i].client;
            fds[n].events = POLLIN;

            if (pairs[i].head && pairs[i].head->due <= t) {
                fds[n].events |= POLLOUT;

            } else if (pairs[i].head && pairs[i].head->due < next) {
                next = pairs[i].head->due;
            }

            fds[n + 1].fd = pairs[i].up;
            fds[n + 1].events = pairs[i].up_eof ? 0 : POLLIN;
            n += 2;
        }

        timeout = (int) ((next - t) * 1000 + 0.999);
        timeout = timeout < 0 ? 0 : timeout;

        if (poll(fds, n, timeout) < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("delay-proxy: poll");
            return 1;
        }

        t = now();

        for (i = 1; i < n; i += 2) {
            pair_t  *p = &pairs[idx[(i - 1) / 2]];

            if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) {
                hold_answer(p, delay);
            }

            if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR))
                && pass_request(p) != 0)
            {
                pair_close(p);
                continue;
            }

            if (pass_answer(p, t) != 0) {
                pair_close(p);
            }
        }

        if (fds[0].revents & POLLIN) {
            pair_open(listener, port);
        }
    }

    return 0;
}
