# chaindata: nginx module + loader.  `make` builds both into build/,
# `make test` runs every test, `make run` serves a demo index on
# 127.0.0.1:8080 in the foreground.  Missing Debian packages are installed
# as root (tools/deps.sh).

NGX_SRC     ?= /usr/share/nginx/src
NGINX       ?= /usr/sbin/nginx
CC          ?= cc
CFLAGS      ?= -O2 -g
WARNINGS    := -Wall -Wextra -Wno-unused-parameter
PROVE       ?= prove

BUILD       := build
MODULE      := $(BUILD)/ngx_http_chaindata_module.so
LOADER      := $(BUILD)/chaindata-load
UNIT        := $(BUILD)/chaindata-unit

# the module's sources (also listed in ./config) and the shared,
# nginx-free ones the loader and the unit tests link
MODULE_SRCS := $(wildcard src/ngx_http_chaindata_module.c \
                          src/ngx_http_chaindata_store.c \
                          src/ngx_http_chaindata_reply.c \
                          src/ngx_http_chaindata_tx.c \
                          src/ngx_http_chaindata_chainhook.c \
                          src/ngx_http_chaindata_runes.c \
                          src/ngx_http_chaindata_deprecation.c \
                          src/ngx_http_chaindata_migration.c \
                          src/ngx_http_chaindata_error.c)
SHARED_SRCS := src/ngx_http_chaindata_codec.c \
               src/ngx_http_chaindata_address.c \
               src/ngx_http_chaindata_paths.c \
               src/ngx_http_chaindata_chainhook_path.c \
               src/ngx_http_chaindata_migration_map.c \
               src/ngx_http_chaindata_jdoc.c \
               src/ngx_http_chaindata_record.c \
               src/ngx_http_chaindata_record_tx.c \
               src/ngx_http_chaindata_record_chainhook.c \
               src/ngx_http_chaindata_record_runes.c
HEADERS     := $(wildcard src/*.h)
LIBS        := -llmdb -lyajl -lcrypto

.PHONY: all deps deps-test deps-fuzz module loader unit test run bench clean

all: module loader

deps:
	@sh tools/deps.sh build

deps-test:
	@sh tools/deps.sh test

deps-fuzz:
	@sh tools/deps.sh fuzz

module: $(MODULE)
loader: $(LOADER)
unit: $(UNIT)

# nginx's configure runs in a copy of Debian's nginx-dev tree, with the
# flags Debian's nginx was built with, so the module loads into it
$(BUILD)/nginx/Makefile: config | deps
	rm -rf $(BUILD)/nginx-src $(BUILD)/nginx
	mkdir -p $(BUILD)
	cp -r $(NGX_SRC) $(BUILD)/nginx-src
	cd $(BUILD)/nginx-src && bash -c '. ./conf_flags && ./configure \
	    "$${NGX_CONF_FLAGS[@]}" --with-cc-opt="-g -O2 -fPIC" \
	    --add-dynamic-module=$(CURDIR) \
	    --builddir=$(CURDIR)/$(BUILD)/nginx' \
	    > $(CURDIR)/$(BUILD)/configure.log 2>&1 \
	    || { tail -20 $(CURDIR)/$(BUILD)/configure.log; exit 1; }

$(MODULE): $(BUILD)/nginx/Makefile $(MODULE_SRCS) $(SHARED_SRCS) $(HEADERS)
	$(MAKE) -C $(BUILD)/nginx-src -f $(CURDIR)/$(BUILD)/nginx/Makefile \
	    modules
	@# a new file renamed over the old: a running nginx keeps its mapping
	cp $(BUILD)/nginx/ngx_http_chaindata_module.so $@.tmp && mv -f $@.tmp $@

$(LOADER): src/ngx_http_chaindata_loader.c $(SHARED_SRCS) $(HEADERS) | deps
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARNINGS) -o $@ src/ngx_http_chaindata_loader.c \
	    $(SHARED_SRCS) $(LIBS)

$(UNIT): t/unit/chaindata_unit.c $(SHARED_SRCS) $(HEADERS) | deps
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARNINGS) -Isrc -o $@ t/unit/chaindata_unit.c \
	    $(SHARED_SRCS) $(LIBS)

test: deps-test all unit
	$(PROVE) -I t/lib -r t/

# the demo: an index built from the fixtures, served with
# nginx.conf.example (paths pointed into build/demo)
run: all
	rm -rf $(BUILD)/demo
	mkdir -p $(BUILD)/demo/logs
	$(LOADER) --db $(BUILD)/demo/index t/fixtures/*.ndjson
	sed -e 's|/usr/lib/nginx/modules/ngx_http_chaindata_module.so|$(CURDIR)/$(MODULE)|' \
	    -e 's|/var/lib/chaindata|$(CURDIR)/$(BUILD)/demo/index|' \
	    -e 's|/var/log/nginx/|$(CURDIR)/$(BUILD)/demo/logs/|' \
	    -e 's|^user .*;|user $(shell id -un);|' \
	    nginx.conf.example > $(BUILD)/demo/nginx.conf
	@echo "chaindata: serving on http://127.0.0.1:8080/ (Ctrl-C stops)"
	@echo "chaindata: try curl -i http://127.0.0.1:8080/extended/v1/tx/$$(sed -n '1s/.*"tx_id":"\(0x[0-9a-f]*\)".*/\1/p' t/fixtures/tx-many-events.ndjson)"
	$(NGINX) -p $(CURDIR)/$(BUILD)/demo -c $(CURDIR)/$(BUILD)/demo/nginx.conf \
	    -g 'daemon off; pid $(CURDIR)/$(BUILD)/demo/nginx.pid;'

# the benchmarks: chaindata against a Node.js baseline serving the same
# documents, figures printed and written to build/bench/results.txt
# (bench/run; BENCH_* variables make it longer or larger)
bench: all
	@sh tools/deps.sh bench
	bench/run

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

.PHONY: asan test-asan

asan: $(ASAN)/ngx_http_chaindata_module.so $(ASAN)/chaindata-load \
      $(ASAN)/chaindata-unit

$(ASAN)/nginx/Makefile: config | deps
	rm -rf $(ASAN)/nginx-src $(ASAN)/nginx
	mkdir -p $(ASAN)
	cp -r $(NGX_SRC) $(ASAN)/nginx-src
	cd $(ASAN)/nginx-src && bash -c '. ./conf_flags && ./configure \
	    "$${NGX_CONF_FLAGS[@]}" --with-cc-opt="-g -O1 -fPIC $(SAN_FLAGS)" \
	    --with-ld-opt="$(SAN_FLAGS)" \
	    --add-dynamic-module=$(CURDIR) \
	    --builddir=$(CURDIR)/$(ASAN)/nginx' \
	    > $(CURDIR)/$(ASAN)/configure.log 2>&1 \
	    || { tail -20 $(CURDIR)/$(ASAN)/configure.log; exit 1; }

$(ASAN)/ngx_http_chaindata_module.so: $(ASAN)/nginx/Makefile $(MODULE_SRCS) \
                                      $(SHARED_SRCS) $(HEADERS)
	$(MAKE) -C $(ASAN)/nginx-src -f $(CURDIR)/$(ASAN)/nginx/Makefile modules
	cp $(ASAN)/nginx/ngx_http_chaindata_module.so $@.tmp && mv -f $@.tmp $@

$(ASAN)/chaindata-load: src/ngx_http_chaindata_loader.c $(SHARED_SRCS) \
                        $(HEADERS) | deps
	@mkdir -p $(ASAN)
	$(CC) -g -O1 $(SAN_FLAGS) $(WARNINGS) -o $@ \
	    src/ngx_http_chaindata_loader.c $(SHARED_SRCS) $(LIBS)

$(ASAN)/chaindata-unit: t/unit/chaindata_unit.c $(SHARED_SRCS) $(HEADERS) \
                        | deps
	@mkdir -p $(ASAN)
	$(CC) -g -O1 $(SAN_FLAGS) $(WARNINGS) -Isrc -o $@ \
	    t/unit/chaindata_unit.c $(SHARED_SRCS) $(LIBS)

test-asan: deps-test asan fuzzers
	CHAINDATA_BUILD=$(ASAN) CHAINDATA_PRELOAD="$(SAN_PRELOAD)" \
	    $(PROVE) -I t/lib -r t/
	t/fuzz/run --seconds $(FUZZ_SMOKE)

# The loader and the unit tests under valgrind (memcheck, leaks included):
# the loader tests run with every loader call wrapped, and any report fails.
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
	    $(PROVE) -I t/lib t/12-loader.t t/11-tx-live-update.t

# libFuzzer targets (clang) for every parser that takes outside input:
# ingest records and NDJSON streams, the codecs and query lookup, and the
# request target (path and query) of every route.  `make fuzz` runs each
# for FUZZ_SECONDS; test-asan runs each for FUZZ_SMOKE.
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 60
FUZZ_SMOKE   ?= 10
FUZZERS      := $(patsubst t/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard t/fuzz/fuzz_*.c))

.PHONY: fuzzers fuzz

fuzzers: $(FUZZERS)

$(BUILD)/fuzz/fuzz_%: t/fuzz/fuzz_%.c $(SHARED_SRCS) $(HEADERS) | deps-fuzz
	@mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -Isrc -o $@ $< $(SHARED_SRCS) -lyajl -lcrypto

fuzz: fuzzers
	t/fuzz/run --seconds $(FUZZ_SECONDS)
