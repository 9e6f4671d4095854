# chaindata: nginx module, loader (chaindata-load) and mirror
# (chaindata-mirror).  `make` builds the three into build/, `make test`
# runs every test, `make run` serves a demo index on 127.0.0.1:8080
# (PORT=N for another) in the foreground, `make install` and `make deb`
# install and package it (below).  Missing Debian packages are installed
# as root (tools/deps.sh).

NGX_SRC     ?= /usr/share/nginx/src
NGINX       ?= /usr/sbin/nginx
CC          ?= cc
CFLAGS      ?= -O2 -g
CPPFLAGS    ?=
LDFLAGS     ?=
WARNINGS    := -Wall -Wextra -Wno-unused-parameter
PROVE       ?= prove

BUILD       := build
MODULE      := $(BUILD)/ngx_http_chaindata_module.so
LOADER      := $(BUILD)/chaindata-load
MIRROR      := $(BUILD)/chaindata-mirror
UNIT        := $(BUILD)/chaindata-unit

# Sources are found by their folders, never listed (./config finds the
# module's the same way): src/core/ is the nginx-free core, src/ingest/
# the record kinds the loader and the mirror validate and store,
# src/stream/ the NATS transport, src/load/ the loader, src/mirror/ the
# mirror, src/ngx/ the module.  Programs link the core, the ingest side
# and the stream as archives, so each takes only the objects it uses.
CORE_SRCS   := $(wildcard src/core/*.c)
INGEST_SRCS := $(wildcard src/ingest/*.c)
STREAM_SRCS := $(wildcard src/stream/*.c)
LOAD_SRCS   := $(wildcard src/load/*.c)
MIRROR_SRCS := $(wildcard src/mirror/*.c)
# the mirror but its main (src/NAME/chaindata_NAME.c): what fuzz_mirror takes
MIRROR_MAIN := src/mirror/chaindata_mirror.c
MIRROR_LIB  := $(filter-out $(MIRROR_MAIN),$(MIRROR_SRCS))
MODULE_SRCS := $(wildcard src/ngx/*.c)
HEADERS     := $(wildcard src/*/*.h)
# the unit tests: unit_main.c, and the test_*.c of the rooms that have one
UNIT_SRCS   := $(wildcard t/unit/*.c)
UNIT_HDRS   := $(wildcard t/unit/*.h)
INCS        := -Isrc/core -Isrc/ingest -Isrc/stream -Isrc/mirror
LIBS        := -llmdb -lyajl -lcrypto -lz -ldeflate -lnats -lpthread

# The version is debian/changelog's, the programs' --version prints it.
VERSION     := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)

# The programs: src/NAME/chaindata_NAME.c is the main of chaindata-NAME
# (src/load, src/mirror).  Install, man pages and packages take this list.
PROGRAMS    := $(patsubst src/%/,chaindata-%,$(dir $(wildcard \
                   $(foreach d,$(wildcard src/*/),$(d)chaindata_$(notdir \
                   $(d:/=)).c))))

.PHONY: all deps deps-test deps-fuzz module loader mirror unit test \
        test-upstream check-layout check-rooms run bench bench-mirror bench-runes-catchup \
        bench-gzip bench-gzip-runes bench-tx-v3 bench-mempool-v3 bench-fanout bench-bulk \
        bench-metrics bench-cold bench-runes-fill-disk bench-mainnet \
        bench-runes-routes gen-mainnet clean

all: module loader mirror

deps:
	@sh tools/deps.sh build

deps-test:
	@sh tools/deps.sh test

deps-fuzz:
	@sh tools/deps.sh fuzz

module: $(MODULE)
loader: $(LOADER)
mirror: $(MIRROR)
unit: $(UNIT)

# nginx's configure learns the module's files when it runs: it runs again
# when ./config changes or a file joins or leaves src/ngx or src/core
SRC_LIST    := $(BUILD)/module-sources.txt
$(shell mkdir -p $(BUILD); \
    echo '$(MODULE_SRCS) $(CORE_SRCS) $(HEADERS)' | cmp -s - $(SRC_LIST) \
    || echo '$(MODULE_SRCS) $(CORE_SRCS) $(HEADERS)' > $(SRC_LIST))

# One build of everything in DIR with CFLAGS and LDFLAGS: nginx's
# configure in a copy of Debian's nginx-dev tree, with the flags Debian's
# nginx was built with (so the module loads into it), the module, the
# core, ingest and stream archives, the loader and the unit tests.
#   $(call chaindata_build,DIR,CFLAGS,LDFLAGS)
define chaindata_build
$(1)/nginx/Makefile: config $(SRC_LIST) debian/changelog | deps
	rm -rf $(1)/nginx-src $(1)/nginx
	mkdir -p $(1)
	cp -r $(NGX_SRC) $(1)/nginx-src
	cd $(1)/nginx-src && bash -c '. ./conf_flags && ./configure \
	    "$$$${NGX_CONF_FLAGS[@]}" --with-cc-opt="$(2) -fPIC" \
	    --with-ld-opt="$(3)" \
	    --add-dynamic-module=$(CURDIR) \
	    --builddir=$(CURDIR)/$(1)/nginx' \
	    > $(CURDIR)/$(1)/configure.log 2>&1 \
	    || { tail -20 $(CURDIR)/$(1)/configure.log; exit 1; }

$(1)/ngx_http_chaindata_module.so: $(1)/nginx/Makefile $(MODULE_SRCS) \
                                   $(CORE_SRCS) $(HEADERS)
	$$(MAKE) -C $(1)/nginx-src -f $(CURDIR)/$(1)/nginx/Makefile modules
	@# a new file renamed over the old: a running nginx keeps its mapping
	cp $(1)/nginx/ngx_http_chaindata_module.so $$@.tmp && mv -f $$@.tmp $$@

$(1)/obj/%.o: src/%.c $(HEADERS) debian/changelog | deps
	@mkdir -p $$(@D)
	$(CC) $(2) $(WARNINGS) $$(INCS) -DCHAINDATA_VERSION='"$(VERSION)"' \
	    -c -o $$@ $$<

# chaindata-mirror --config makes options of a file's variables as the
# unit's ExecStart= does: its command line, taken from the unit
$(1)/gen/chaindata_mirror_exec.h: systemd/chaindata-mirror@.service.in \
                                  tools/exec-start-h
	@mkdir -p $$(@D)
	tools/exec-start-h $$< CHAINDATA_MIRROR_EXEC_START > $$@.tmp
	mv -f $$@.tmp $$@

$(1)/obj/mirror/chaindata_mirror.o: $(1)/gen/chaindata_mirror_exec.h
$(1)/obj/mirror/chaindata_mirror.o: INCS += -I$(1)/gen

$(1)/libchaindata_core.a: $(patsubst src/%.c,$(1)/obj/%.o,$(CORE_SRCS))
	rm -f $$@ && ar rcs $$@ $$^

$(1)/libchaindata_ingest.a: $(patsubst src/%.c,$(1)/obj/%.o,$(INGEST_SRCS))
	rm -f $$@ && ar rcs $$@ $$^

$(1)/libchaindata_stream.a: $(patsubst src/%.c,$(1)/obj/%.o,$(STREAM_SRCS))
	rm -f $$@ && ar rcs $$@ $$^

$(1)/chaindata-load: $(patsubst src/%.c,$(1)/obj/%.o,$(LOAD_SRCS)) \
                     $(1)/libchaindata_stream.a $(1)/libchaindata_ingest.a \
                     $(1)/libchaindata_core.a
	$(CC) $(2) $(3) -o $$@ $$^ $(LIBS)

# the mirror also needs libcurl (doc/developer.md, "Build")
$(1)/chaindata-mirror: $(patsubst src/%.c,$(1)/obj/%.o,$(MIRROR_SRCS)) \
                       $(1)/libchaindata_stream.a $(1)/libchaindata_ingest.a \
                       $(1)/libchaindata_core.a
	$(CC) $(2) $(3) -o $$@ $$^ $(LIBS) -lcurl -lm

$(1)/chaindata-unit: $(UNIT_SRCS) $(HEADERS) $(UNIT_HDRS) \
                     $(1)/libchaindata_stream.a $(1)/libchaindata_ingest.a \
                     $(1)/libchaindata_core.a
	$(CC) $(2) $(3) $(WARNINGS) $(INCS) -o $$@ $(UNIT_SRCS) \
	    $(1)/libchaindata_stream.a $(1)/libchaindata_ingest.a \
	    $(1)/libchaindata_core.a $(LIBS)
endef

$(eval $(call chaindata_build,$(BUILD),$(CPPFLAGS) $(CFLAGS),$(LDFLAGS)))

# The folders include down only (core nothing else of ours; ngx core;
# ingest core; stream core and ingest; load and mirror core, ingest and
# stream, never each other) and
# nginx stays in src/ngx/: the rules are tools/check-layout's table.
check-layout:
	@tools/check-layout

# Each source file a room that holds one thing: at most 800 lines, no
# function over 120, no circle of files using each other's functions
# (two may, but not in src/mirror/ nor the module's store and threads):
# tools/check-rooms; -v says which names tie a circle
check-rooms:
	@tools/check-rooms

# prove, its summary as it is, then which checks were skipped and why
# (t/lib/ChainData/Harness.pm)
PROVE_T      = PERL5LIB=t/lib$(if $(PERL5LIB),:$(PERL5LIB)) $(PROVE) \
               -I t/lib --harness ChainData::Harness
# the suite: t/*.t (t/upstream/ needs the real upstreams: test-upstream)
TESTS        = t/*.t

# (gen-mainnet: t/44 runs bench/mainnet at CI's size)
test: deps-test check-layout check-rooms all unit gen-mainnet
	$(PROVE_T) $(TESTS)

# the mirror against the real Runes and Stacks APIs that ../shared/upstream
# runs on loopback, the edge compared with upstream answer for answer over
# growth and reorgs; not in `make test` nor CI: each file says what it
# needs and skips, saying why, without it (doc/developer.md)
test-upstream: all
	$(PROVE_T) t/upstream/

# the demo: an index built from the fixtures, with the members v3 needs
# made up where the mirror asks upstream (tools/v3-stand-ins), served
# with nginx.conf.example (paths pointed into build/demo) on
# 127.0.0.1:PORT; DEMO_TX: the transaction it suggests
PORT        ?= 8080
DEMO_TX      = $(shell sed -n '1s/.*"tx_id":"\(0x[0-9a-f]*\)".*/\1/p' \
                   t/fixtures/tx-many-events.ndjson)

run:
	@perl -MIO::Socket::INET -e 'exit !!IO::Socket::INET->new(shift)' \
	    127.0.0.1:$(PORT) && exit 0; echo "chaindata: something listens" \
	    "on 127.0.0.1:$(PORT); make run PORT=N serves on another port"; \
	    exit 1
	$(MAKE) all
	rm -rf $(BUILD)/demo
	mkdir -p $(BUILD)/demo/logs
	tools/v3-stand-ins t/fixtures/*.ndjson > $(BUILD)/demo/records.ndjson
	$(LOADER) --db $(BUILD)/demo/index $(BUILD)/demo/records.ndjson
	sed -e 's|/usr/lib/nginx/modules/ngx_http_chaindata_module.so|$(CURDIR)/$(MODULE)|' \
	    -e 's|/var/lib/chaindata|$(CURDIR)/$(BUILD)/demo/index|' \
	    -e 's|/var/log/nginx/|$(CURDIR)/$(BUILD)/demo/logs/|' \
	    -e 's|^user .*;|user $(shell id -un);|' \
	    -e 's|listen 127\.0\.0\.1:8080;|listen 127.0.0.1:$(PORT);|' \
	    nginx.conf.example > $(BUILD)/demo/nginx.conf
	@grep -q 'listen 127.0.0.1:$(PORT);' $(BUILD)/demo/nginx.conf || { \
	    echo "chaindata: nginx.conf.example listens elsewhere than" \
	         "127.0.0.1:8080, PORT not applied"; exit 1; }
	@echo "chaindata: serving on http://127.0.0.1:$(PORT)/ (Ctrl-C stops)"
	@echo "chaindata: try curl -i http://127.0.0.1:$(PORT)/extended/v1/tx/$(DEMO_TX)"
	@echo "chaindata:  or curl -i http://127.0.0.1:$(PORT)/extended/v3/transactions/$(DEMO_TX)"
	$(NGINX) -p $(CURDIR)/$(BUILD)/demo -c $(CURDIR)/$(BUILD)/demo/nginx.conf \
	    -g 'daemon off; pid $(CURDIR)/$(BUILD)/demo/nginx.pid;'

# the benchmarks: chaindata against a Node.js baseline serving the same
# documents, figures printed and written to build/bench/results.txt
# (bench/run; BENCH_* variables make it longer or larger)
bench: all
	@sh tools/deps.sh bench
	bench/run

# chaindata-mirror against the recorded upstream: catching up and following
# (bench/mirror; BENCH_* variables make it longer or larger)
bench-mirror: all
	bench/mirror

# the Runes feed's catch-up, fill against replay and against a one-pass
# export (bench/runes-catchup; BENCH_RUNES_* variables set the data set)
bench-runes-catchup: all
	bench/runes-catchup

# what a Runes catch-up fill leaves on disk: data.mdb, pages used and free
# (bench/runes-fill-disk; BENCH_RUNES_*, BENCH_BASE_MIRROR for a before)
bench-runes-fill-disk: all
	bench/runes-fill-disk

bench-gzip: all
	@sh tools/deps.sh bench
	bench/gzip

bench-gzip-runes: all
	@sh tools/deps.sh bench
	bench/gzip-runes

# chaindata_runes' eleven routes against the real Runes API, deep pages
# and holders, the index's bytes per rune transaction (bench/runes-routes;
# BENCH_* variables, BENCH_SMALL=1 for a quick run)
bench-runes-routes: all
	@sh tools/deps.sh bench
	bench/runes-routes

# the v3 transaction routes against v1: worker CPU per answer, index size
bench-tx-v3: all
	@sh tools/deps.sh bench
	bench/tx-v3

# what the v3 documents of pending transactions cost upstream, per
# transaction, with and without --mempool-v3-batch's batches
bench-mempool-v3: all
	@sh tools/deps.sh bench
	bench/mempool-v3

# the traffic counters' cost: chaindata_metrics on against off, one run
bench-metrics: all
	@sh tools/deps.sh bench
	bench/metrics

# the NATS fan-out: a block's time from the mirror to two followers' edges
bench-fanout: all
	@sh tools/deps.sh bench
	bench/fanout

# an index bigger than memory: chaindata_threads off and on, hot and cold
# clients, the index paged out of the worker (bench/cold; BENCH_COLD_*)
bench-cold: all
	@sh tools/deps.sh bench
	bench/cold

# the mainnet-shaped data generator (bench/gen-mainnet.c), a bench tool
GEN_MAINNET := $(BUILD)/gen-mainnet

gen-mainnet: $(GEN_MAINNET)

$(GEN_MAINNET): $(wildcard bench/gen-mainnet*.c) bench/gen-mainnet.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARNINGS) -o $@ $(filter %.c,$^) -lm

# an index of mainnet's size, 10M Stacks and 2M rune transactions streamed
# from gen-mainnet into chaindata-load --bulk, against a tenth of it in
# the same run: load, size, memory, serving and scrapes as ratios
# (bench/mainnet; BENCH_TXS, BENCH_RUNE_TXS, BENCH_SMALL=1 for CI's size)
bench-mainnet: all $(GEN_MAINNET)
	@sh tools/deps.sh bench
	bench/mainnet

# the first fill: chaindata-load --bulk against the normal loader on a
# 1,000,000-transaction NDJSON (bench/bulk; BENCH_BULK_* variables)
bench-bulk: loader
	bench/bulk

clean:
	rm -rf $(BUILD)

# The same tests with the module, the loader and the unit tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer.  Debian's nginx loads
# the module with the sanitizer runtimes preloaded; the harness fails any
# test whose error log, sanitizer log or loader stderr carries a report.
ASAN        := $(BUILD)/asan
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer \
               -fno-sanitize-recover=undefined
SAN_PRELOAD  = $(shell $(CC) -print-file-name=libasan.so) \
               $(shell $(CC) -print-file-name=libubsan.so)

$(eval $(call chaindata_build,$(ASAN),-g -O1 $(SAN_FLAGS),$(SAN_FLAGS)))

.PHONY: asan test-asan

asan: $(ASAN)/ngx_http_chaindata_module.so $(ASAN)/chaindata-load \
      $(ASAN)/chaindata-mirror $(ASAN)/chaindata-unit

test-asan: deps-test asan fuzzers
	CHAINDATA_BUILD=$(ASAN) CHAINDATA_PRELOAD="$(SAN_PRELOAD)" \
	    $(PROVE_T) $(TESTS)
	t/fuzz/run --seconds $(FUZZ_SMOKE)

# The loader and the unit tests under valgrind (memcheck, leaks included):
# the loader tests run with every loader call wrapped, and any report fails;
# and nginx with the module under valgrind, reloaded and stopped at debug.
VALGRIND    := valgrind -q --error-exitcode=99 --leak-check=full \
               --show-leak-kinds=definite,indirect,possible \
               --errors-for-leak-kinds=definite,indirect,possible

.PHONY: test-valgrind

test-valgrind: deps-test all unit
	@command -v valgrind >/dev/null || { \
	    echo "chaindata: valgrind is missing (apt-get install valgrind)"; \
	    exit 1; }
	$(VALGRIND) $(UNIT) > /dev/null
	CHAINDATA_LOADER_WRAPPER="$(VALGRIND)" \
	    $(PROVE_T) t/12-loader.t t/11-tx-live-update.t \
	    t/77-nats-units.t t/78-nats-signed.t t/29-tx-one-block.t \
	    t/37-runes-records.t
	CHAINDATA_NGINX_VALGRIND=1 $(PROVE_T) t/53-debug-log-exit.t

# libFuzzer targets (clang) for every parser that takes outside input:
# ingest records and NDJSON streams, the codecs and query lookup, the
# request target (path and query) of every route, and the mirror's checks
# of upstream's answers (fuzz_mirror.c is compiled with the mirror's files
# but its main in front: FUZZ_WITH).
# `make fuzz` runs each for FUZZ_SECONDS; test-asan runs each for
# FUZZ_SMOKE.
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 60
FUZZ_SMOKE   ?= 10
FUZZERS      := $(patsubst t/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard t/fuzz/fuzz_*.c))

.PHONY: fuzzers fuzz

fuzzers: $(FUZZERS)

# what a target is compiled with, in one unit before its own lines (the
# unit, written at each build into fuzz-units/ where t/fuzz/run looks for
# no target, includes them and the target)
$(BUILD)/fuzz/fuzz_mirror: FUZZ_WITH := $(MIRROR_LIB)

$(BUILD)/fuzz/fuzz_%: t/fuzz/fuzz_%.c $(CORE_SRCS) $(INGEST_SRCS) \
                      $(STREAM_SRCS) $(MIRROR_SRCS) $(HEADERS) | deps-fuzz
	@mkdir -p $(BUILD)/fuzz $(BUILD)/fuzz-units
	printf '#include "$(CURDIR)/%s"\n' $(FUZZ_WITH) $< \
	    > $(BUILD)/fuzz-units/$(@F).c
	$(FUZZ_CC) $(FUZZ_FLAGS) $(INCS) -o $@ $(BUILD)/fuzz-units/$(@F).c \
	    $(CORE_SRCS) $(INGEST_SRCS) $(STREAM_SRCS) \
	    $(LIBS) -lcurl -lm

fuzz: fuzzers
	t/fuzz/run --seconds $(FUZZ_SECONDS)

# Install and packages (doc/operations.md, "Install").  `make install`
# puts the module where Debian's nginx modules go (nginx's modules
# directory, which Debian's configure flags name), its load_module snippet
# in modules-available with the modules-enabled link a package makes, the
# site in front of upstream in sites-available, disabled (kept when there
# already: it is the operator's to edit), the programs and their man
# pages, chaindata(8), the docs of each package where the package has
# them (the module's: README.md, doc/module.md, doc/api.md,
# doc/operations.md, lmdb-schema, nginx.conf.example, the example,
# doc/monitoring's alert rules and dashboard; the tools':
# doc/loader.md, doc/mirror.md, doc/operations.md, lmdb-schema, the units'
# example configurations), the systemd units and the index directory,
# owned by the index writer.  PREFIX is for the programs, man pages, docs,
# units and tmpfiles.d; nginx's own directories stay nginx's.
PREFIX         ?= /usr/local
DESTDIR        ?=
BINDIR         ?= $(PREFIX)/bin
MANDIR         ?= $(PREFIX)/share/man
MODULE_DOCDIR  ?= $(PREFIX)/share/doc/libnginx-mod-http-chaindata
TOOLS_DOCDIR   ?= $(PREFIX)/share/doc/chaindata-tools
UNITDIR        ?= $(if $(filter /usr,$(PREFIX)),,$(PREFIX))/lib/systemd/system
TMPFILESDIR    ?= $(PREFIX)/lib/tmpfiles.d
CONFDIR        ?= /etc/chaindata
INDEX_DIR      ?= /var/lib/chaindata
INDEX_OWNER    ?= chaindata
INDEX_GROUP    ?= www-data
SYSUSERSDIR    ?= $(PREFIX)/lib/sysusers.d
INDEX_CHOWN    ?= yes
NGX_MODDIR      = $(shell sed -n 's/.*--modules-path=\([^ ]*\).*/\1/p' \
                      $(NGX_SRC)/conf_flags)
NGX_AVAILABLE  ?= /usr/share/nginx/modules-available
NGX_ENABLED    ?= /etc/nginx/modules-enabled
NGX_SNIPPET    := mod-http-chaindata.conf
NGX_SITES      ?= /etc/nginx/sites-available
NGX_SITE       := doc/examples/front-of-upstream.conf

# the docs each package installs
MODULE_DOCS    := README.md doc/module.md doc/api.md doc/operations.md \
                  nginx.conf.example
TOOLS_DOCS     := doc/loader.md doc/mirror.md doc/first-fill.md \
                  doc/operations.md nats-server-chaindata.conf

# the man pages, each from its doc page (tools/md2man): chaindata(8) from
# doc/module.md, chaindata-NAME(1) from doc/NAME.md (MAN_PAGE_NAME says
# otherwise); a link of a page becomes the man page it names or the file
# its package installs
MANPAGES       := $(patsubst %,$(BUILD)/man/%.1,$(PROGRAMS)) \
                  $(BUILD)/man/chaindata.8 \
                  $(BUILD)/man/chaindata-operations.7
MAN_PAGE_load  := doc/loader.md
man_page        = $(or $(MAN_PAGE_$(1)),doc/$(1).md)
MAN_LINKS       = --man doc/module.md=chaindata.8 \
                  --man doc/operations.md=chaindata-operations.7 \
                  $(foreach p,$(PROGRAMS:chaindata-%=%), \
                      --man $(call man_page,$(p))=chaindata-$(p).1)
MAN_DOCS_MODULE = $(foreach f,$(MODULE_DOCS), \
                      --doc $(f)=$(MODULE_DOCDIR)/$(notdir $(f))) \
                  --doc lmdb-schema/=$(MODULE_DOCDIR)/lmdb-schema/ \
                  --doc doc/examples/=$(MODULE_DOCDIR)/examples/ \
                  --doc doc/monitoring/=$(MODULE_DOCDIR)/monitoring/
MAN_DOCS_TOOLS  = $(foreach f,$(TOOLS_DOCS), \
                      --doc $(f)=$(TOOLS_DOCDIR)/$(notdir $(f))) \
                  --doc lmdb-schema/=$(TOOLS_DOCDIR)/lmdb-schema/ \
                  --doc systemd/=$(TOOLS_DOCDIR)/examples/

# what an installed file names: the paths of this install
SUBST           = sed -e 's|@BINDIR@|$(BINDIR)|g' \
                      -e 's|@CONFDIR@|$(CONFDIR)|g' \
                      -e 's|@INDEX_DIR@|$(INDEX_DIR)|g' \
                      -e 's|@INDEX_OWNER@|$(INDEX_OWNER)|g' \
                      -e 's|@INDEX_GROUP@|$(INDEX_GROUP)|g'

.PHONY: man install deb

man: $(MANPAGES)

# the pages cite the docs where this install puts them: made again when
# the directories change (make man, then make install PREFIX=/usr)
$(BUILD)/man/docdirs: FORCE
	@mkdir -p $(@D)
	@echo '$(MODULE_DOCDIR) $(TOOLS_DOCDIR)' | cmp -s - $@ \
	    || echo '$(MODULE_DOCDIR) $(TOOLS_DOCDIR)' > $@

.PHONY: FORCE
FORCE:

.SECONDEXPANSION:
$(BUILD)/man/chaindata-%.1: $$(call man_page,$$*) tools/md2man \
                            debian/changelog $(BUILD)/man/docdirs
	@mkdir -p $(@D)
	tools/md2man --name chaindata-$* --section 1 --version $(VERSION) \
	    $(MAN_LINKS) $(MAN_DOCS_TOOLS) $< > $@.tmp
	mv $@.tmp $@

$(BUILD)/man/chaindata.8: doc/module.md tools/md2man debian/changelog \
                          $(BUILD)/man/docdirs
	@mkdir -p $(@D)
	tools/md2man --name chaindata --section 8 --version $(VERSION) \
	    $(MAN_LINKS) $(MAN_DOCS_MODULE) $< > $@.tmp
	mv $@.tmp $@

# the operator's overview (metrics, alerts, health checks): in the
# module's package, with the files it cites
$(BUILD)/man/chaindata-operations.7: doc/operations.md tools/md2man \
                                     debian/changelog $(BUILD)/man/docdirs
	@mkdir -p $(@D)
	tools/md2man --name chaindata-operations --section 7 \
	    --version $(VERSION) $(MAN_LINKS) $(MAN_DOCS_MODULE) \
	    --doc nats-server-chaindata.conf=$(TOOLS_DOCDIR)/nats-server-chaindata.conf \
	    $< > $@.tmp
	mv $@.tmp $@

install: all man
	@test -n "$(NGX_MODDIR)" || { echo "chaindata: no --modules-path" \
	    "in $(NGX_SRC)/conf_flags"; exit 1; }
	install -d $(DESTDIR)$(NGX_MODDIR) $(DESTDIR)$(NGX_AVAILABLE) \
	    $(DESTDIR)$(NGX_ENABLED) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(MANDIR)/man8 \
	    $(addprefix $(DESTDIR)$(MODULE_DOCDIR)/,lmdb-schema examples \
	        monitoring) \
	    $(addprefix $(DESTDIR)$(TOOLS_DOCDIR)/,lmdb-schema examples) \
	    $(DESTDIR)$(UNITDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(CONFDIR) \
	    $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(NGX_SITES)
	install -m 644 $(MODULE) $(DESTDIR)$(NGX_MODDIR)/
	test -e $(DESTDIR)$(NGX_SITES)/chaindata \
	    || install -m 644 $(NGX_SITE) $(DESTDIR)$(NGX_SITES)/chaindata
	echo 'load_module $(NGX_MODDIR)/$(notdir $(MODULE));' \
	    > $(DESTDIR)$(NGX_AVAILABLE)/$(NGX_SNIPPET)
	ln -sf $(NGX_AVAILABLE)/$(NGX_SNIPPET) \
	    $(DESTDIR)$(NGX_ENABLED)/50-$(NGX_SNIPPET)
	install -m 755 $(addprefix $(BUILD)/,$(PROGRAMS)) $(DESTDIR)$(BINDIR)/
	install -m 644 $(filter %.1,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(filter %.7,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man7/
	install -m 644 $(filter %.8,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man8/
	install -m 644 $(MODULE_DOCS) $(DESTDIR)$(MODULE_DOCDIR)/
	install -m 644 $(TOOLS_DOCS) $(DESTDIR)$(TOOLS_DOCDIR)/
	install -m 644 lmdb-schema/*.md $(DESTDIR)$(MODULE_DOCDIR)/lmdb-schema/
	install -m 644 lmdb-schema/*.md $(DESTDIR)$(TOOLS_DOCDIR)/lmdb-schema/
	install -m 644 doc/examples/* $(DESTDIR)$(MODULE_DOCDIR)/examples/
	install -m 644 doc/monitoring/* $(DESTDIR)$(MODULE_DOCDIR)/monitoring/
	for f in systemd/*.example; do \
	    $(SUBST) $$f > $(DESTDIR)$(TOOLS_DOCDIR)/examples/$${f#systemd/}; done
	for f in systemd/*.service.in; do \
	    $(SUBST) $$f > $(DESTDIR)$(UNITDIR)/$$(basename $$f .in); done
	$(SUBST) systemd/chaindata.tmpfiles.in \
	    > $(DESTDIR)$(TMPFILESDIR)/chaindata.conf
	$(SUBST) systemd/chaindata.sysusers.in \
	    > $(DESTDIR)$(SYSUSERSDIR)/chaindata.conf
	install -d -m 2750 $(DESTDIR)$(INDEX_DIR)
	@if [ "$(INDEX_CHOWN)" = yes ]; then \
	    if [ -z "$(DESTDIR)" ] && ! getent passwd $(INDEX_OWNER) >/dev/null \
	       && command -v systemd-sysusers >/dev/null; then \
	        systemd-sysusers $(SYSUSERSDIR)/chaindata.conf; fi; \
	    chown $(INDEX_OWNER):$(INDEX_GROUP) $(DESTDIR)$(INDEX_DIR) && \
	    chmod 2750 $(DESTDIR)$(INDEX_DIR) || \
	    echo "chaindata: give $(INDEX_DIR) to $(INDEX_OWNER) as root" \
	         "(systemd-sysusers makes the user):" \
	         "chown $(INDEX_OWNER):$(INDEX_GROUP) $(INDEX_DIR) &&" \
	         "chmod 2750 $(INDEX_DIR)"; fi

# Debian packages, built by debian/rules (debhelper, dh_nginx) in a copy
# of the tree under build/deb, left in build/ and checked with lintian.
DEB_DIR        := $(BUILD)/deb
DEB_SRC        := $(DEB_DIR)/chaindata-$(VERSION)

deb:
	@sh tools/deps.sh deb
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	tar -c --exclude=./build --exclude=./.git . | tar -x -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	cp $(DEB_DIR)/*.deb $(BUILD)/
	lintian --fail-on error,warning $(DEB_DIR)/*.changes
