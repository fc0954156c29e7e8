# bugbridge: a plain Makefile with pkg-config.
#
#   make              build bugbridged, bugbridge, bugbridge-runner (into $(O))
#   make check        install missing Debian packages, build, run every test,
#                     also under AddressSanitizer + UBSan (T=tests/t2*.sh: a subset)
#   make check-slow   make check with the long tests too (BUGBRIDGE_SLOW=1: the
#                     100 MiB console flood, bisections and back-tests with real
#                     kernels, a kernel per mutant, the suite booted 20 times)
#   make demo         the main job end to end (tools/demo.sh)
#   make bench        the benchmark report (tools/bench.sh)
#   make mutants      the mutation campaign over every function of the completion
#                     stack (tools/mutant-functions, checked against the code first;
#                     1 sampled mutant per function; one schemata build, a boot per mutant
#                     with the tests that reach it, four at once; kernel-patches/
#                     tools/mutants.py, report in $(O)/mutants-report.txt);
#                     MUTANTS_FILE=sd.c runs one file's mutants only
#   make coverage     line and branch coverage of the completion path by the suite
#   make install      PREFIX=/usr/local DESTDIR= (programs, data, units, manual pages)
#   make deps         apt-get install what the build, demo and tests need, if missing
#                     (make demo installs only the demo's: tools/deps.sh demo)
#   make deb          the Debian package, bugbridge_<version>_amd64.deb in $(O)/deb
#
# Sources are found by wildcard: a new module is a new .c file, a new unit
# test is tests/unit/test_*.c, a new integration test is tests/tNNNN-*.sh.

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
DATADIR = $(PREFIX)/share/bugbridge
CC ?= gcc
PKGS = libcurl json-c sqlite3 libmicrohttpd

OPT ?= -O2
ifeq ($(SAN),1)
OPT = -O1
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
ifeq ($(SAN),fuzz)
CC = clang
OPT = -O1
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
endif

CFLAGS ?= $(OPT) -g
ALL_CFLAGS = -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror $(CPPFLAGS) $(CFLAGS) $(SANFLAGS) \
	$(LAYER_INC) -iquote $(O)/gen -DBB_DATADIR='"$(DATADIR)"' \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

# One folder per concern (README, "Architecture"); tools/layers says which
# folders each may use.  A folder is compiled with only those on its
# include path and archived on its own, so a forbidden include fails the
# build; tools/check-layers.sh names it in one line.
LAYERS = tools/layers
SRC_DIRS := $(shell sed -n 's/^\([a-z]*\):.*/\1/p' $(LAYERS))
uses = $(shell sed -n 's/^$(1):[[:space:]]*//p' $(LAYERS))
$(foreach d,$(SRC_DIRS),$(eval $(O)/obj/$(d)/%.o: LAYER_INC = \
	$(foreach u,$(d) $(call uses,$(d)),-iquote $(u))))
# Tests see every folder; the stand-in tracker is built on lib/ alone.
LAYER_INC = $(SRC_DIRS:%=-iquote %)
$(O)/obj/tests/tracker/%.o: LAYER_INC = -iquote lib
$(O)/obj/gen/%.o: LAYER_INC = -iquote lib

MAINS = server/bugbridged.c cli/bugbridge.c runner/main.c
dir_objs = $(patsubst %.c,$(O)/obj/%.o,$(filter-out $(MAINS),$(wildcard $(1)/*.c)))
archive = $(O)/libbb-$(1).a
# A program links its folder's archive and those of every folder it uses.
link_archives = $(foreach u,$(1) $(call uses,$(1)),$(call archive,$(u)))
ARCHIVES = $(foreach d,$(SRC_DIRS),$(call archive,$(d)))
TRACKER_SRC = $(wildcard tests/tracker/*.c)
TRACKER_OBJ = $(TRACKER_SRC:%.c=$(O)/obj/%.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
SCHEMA = $(sort $(wildcard schema/[0-9]*.sql))

PROGRAMS = $(O)/bugbridged $(O)/bugbridge $(O)/bugbridge-runner
ifneq ($(TRACKER_SRC),)
PROGRAMS += $(O)/bz-standin
endif

all: $(PROGRAMS) man

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/embed-schema: tools/embed-schema.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O1 -Wall -Wextra -Werror -o $@ $<

$(O)/gen/schema.c: $(O)/embed-schema $(SCHEMA)
	@mkdir -p $(dir $@)
	$(O)/embed-schema $(SCHEMA) > $@.tmp && mv $@.tmp $@

$(O)/obj/gen/schema.o: $(O)/gen/schema.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The stylesheet is built into the binary (.incbin in page_static.c).
$(O)/obj/web/page_static.o: web/style.css

$(foreach d,$(SRC_DIRS),$(eval $(call archive,$(d)): $(call dir_objs,$(d))))
$(call archive,lib): $(O)/obj/gen/schema.o
$(O)/libbb-%.a:
	rm -f $@ && ar rcs $@ $^

LINK = $(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--start-group \
	$(filter %.a,$^) -Wl,--end-group $(LIBS)

$(O)/bugbridged: $(O)/obj/server/bugbridged.o $(call link_archives,server)
	$(LINK)

$(O)/bugbridge: $(O)/obj/cli/bugbridge.o $(call link_archives,cli)
	$(LINK)

$(O)/bugbridge-runner: $(O)/obj/runner/main.o $(call link_archives,runner)
	$(LINK)

$(O)/bz-standin: $(TRACKER_OBJ) $(call archive,lib)
	$(LINK)

# Unit tests link every archive whole (so test_sql sees every DB_SQL statement).
$(O)/tests/%: tests/unit/%.c $(ARCHIVES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< -Wl,--whole-archive \
		$(ARCHIVES) -Wl,--no-whole-archive $(LIBS) -lcmocka

unit: $(UNIT_BIN)

# Fuzz targets (libFuzzer, clang): tests/fuzz/fuzz_*.c, seeds in tests/fuzz/corpus/<name>/.
FUZZ_SRC = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN = $(FUZZ_SRC:tests/fuzz/%.c=$(O)/fuzz/%)
FUZZ_TIME ?= 60

$(O)/fuzz/%: tests/fuzz/%.c $(ARCHIVES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(ALL_LDFLAGS) -o $@ $< -Wl,--start-group \
		$(ARCHIVES) -Wl,--end-group $(LIBS)

fuzzers: $(FUZZ_BIN)

# `make fuzz`: each target for FUZZ_TIME seconds; crashes land in build/fuzz-crashes/.
fuzz:
	$(MAKE) O=$(O)/fuzzlib SAN=fuzz fuzzers
	BB_FUZZ_DIR=$(CURDIR)/$(O)/fuzzlib/fuzz FUZZ_TIME=$(FUZZ_TIME) tools/fuzz.sh

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)

# --- tests --------------------------------------------------------------
T ?= $(sort $(wildcard tests/t[0-9]*.sh))
PROVE ?= prove
TEST_ENV = BB_SRC=$(CURDIR) CMOCKA_MESSAGE_OUTPUT=TAP \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The demo's packages, or everything the tests and benchmarks need besides.
deps:
	@tools/deps.sh check

deps-demo:
	@tools/deps.sh demo

# Unit tests run in the plain and the sanitizer build; integration tests run
# the sanitizer build's binaries (leak checks off: daemons are killed).
# The house rules a compiler does not see: the layers' edges (tools/layers)
# the size of files and functions, the documentation's links, the manual pages.
lint: man
	tools/check-layers.sh
	tools/check-size.sh
	tools/check-suite-list.sh
	tools/check-links.py .
	cd $(O)/man && mandoc -T lint $(MAN_NAMES)

check: deps lint
	$(MAKE) all unit
	$(MAKE) O=$(O)/san SAN=1 all unit
	$(MAKE) O=$(O)/fuzzlib SAN=fuzz fuzzers
	$(TEST_ENV) $(PROVE) $(PROVE_FLAGS) $(UNIT_BIN) $(UNIT_BIN:$(O)/%=$(O)/san/%)
	$(TEST_ENV) BB_BUILD=$(CURDIR)/$(O)/san BB_FUZZ_DIR=$(CURDIR)/$(O)/fuzzlib/fuzz \
		ASAN_OPTIONS=detect_leaks=0:exitcode=23 $(PROVE) $(PROVE_FLAGS) $(T)

check-slow:
	BUGBRIDGE_SLOW=1 $(MAKE) check

# Integration tests alone, against an existing build (quick iteration).
test-integration: all
	$(TEST_ENV) BB_BUILD=$(CURDIR)/$(O) $(PROVE) $(PROVE_FLAGS) $(T)

demo: deps-demo all
	tools/demo.sh

bench: deps all
	tools/bench.sh

# Issue 15: verdicts that can be trusted.  Both boot real kernels (the
# campaign one per mutant), so neither is part of `make check`; t3520 runs
# a fixed sample of the campaign there.
mutants: all
	python3 kernel-patches/tools/mutants.py --report $(O)/mutants-report.txt \
		$(if $(MUTANTS_FILE),--file $(MUTANTS_FILE))

coverage: all
	python3 kernel-patches/tools/coverage.py --out $(O)/coverage-report.txt

# --- manual pages, install, Debian package -------------------------------
# bugbridge.conf(5) is written on every build from man/bugbridge.conf.5.in
# and the key table the programs read (tools/conf-man.c links
# lib/config_keys.c), so it cannot drift from them; the others are copied
# beside it, where mandoc's lint finds the pages they refer to.
MANDIR = $(PREFIX)/share/man
DOCDIR = $(PREFIX)/share/doc/bugbridge
UNITDIR ?= $(PREFIX)/lib/systemd/system
MAN_NAMES = bugbridge.1 bugbridge.conf.5 bugbridged.8 bugbridge-runner.8
MAN_PAGES = $(MAN_NAMES:%=$(O)/man/%)

$(O)/conf-man: tools/conf-man.c lib/config_keys.c lib/config.h
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O1 -Wall -Wextra -Werror -iquote lib -o $@ tools/conf-man.c lib/config_keys.c

$(O)/man/bugbridge.conf.5: $(O)/conf-man man/bugbridge.conf.5.in
	@mkdir -p $(dir $@)
	$(O)/conf-man man/bugbridge.conf.5.in > $@.tmp && mv $@.tmp $@

$(O)/man/%: man/%
	@mkdir -p $(dir $@)
	cp $< $@

man: $(MAN_PAGES)

install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DATADIR)/schema \
		$(DESTDIR)$(DATADIR)/web $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)/docs \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 644 $(O)/man/bugbridge.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(O)/man/bugbridge.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 $(O)/man/bugbridged.8 $(O)/man/bugbridge-runner.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 755 $(O)/bugbridged $(O)/bugbridge $(O)/bugbridge-runner $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(SCHEMA) $(DESTDIR)$(DATADIR)/schema/
	install -m 644 web/style.css $(DESTDIR)$(DATADIR)/web/
	cp -R kernel-patches $(DESTDIR)$(DATADIR)/
	install -m 644 bugbridge.conf.example $(DESTDIR)$(DATADIR)/
	for unit in bugbridged bugbridge-runner; do \
		sed 's|@PREFIX@|$(PREFIX)|g' tools/$$unit.service.in \
			> $(DESTDIR)$(UNITDIR)/$$unit.service; \
	done
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/

# `make deb`: bugbridge_$(VERSION)_amd64.deb in $(O)/deb, built by
# dpkg-buildpackage (debian/) from a copy of this tree, so the package
# build's clean step never touches the tree or its build directory.
VERSION = $(shell sed -n 's/^\#define BUGBRIDGE_VERSION "\(.*\)"/\1/p' lib/app.h)
DEB_SRC = $(O)/deb/bugbridge-$(VERSION)

deb:
	@test "$$(dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
		{ echo "deb: debian/changelog is not at version $(VERSION) (lib/app.h)" >&2; exit 1; }
	rm -rf $(O)/deb && mkdir -p $(DEB_SRC)
	tar -c --exclude-vcs --exclude-vcs-ignores --exclude=./$(O) . | tar -x -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	@ls $(O)/deb/bugbridge_$(VERSION)_*.deb

clean:
	rm -rf $(O)

.PHONY: all unit fuzzers fuzz deps deps-demo lint check check-slow test-integration demo bench mutants coverage \
	man install deb clean
.DELETE_ON_ERROR:
