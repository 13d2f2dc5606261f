#!/usr/bin/env bash
# Compile one device-tree source the way the kernel does: the C preprocessor first
# (cpp -nostdinc -undef -x assembler-with-cpp -D__DTS__, our include dirs), then dtc.
#
# Usage: dts/compile.sh IN.dts OUT.dtb [EXTRA_CPP_ARGS...]
#   EXTRA_CPP_ARGS (for example -I DIR) go before this project's include dirs, so a kernel
#   tree's include/ can take precedence over the minimal headers in dts/include.
#   DTC_FLAGS (environment) is passed to dtc as extra arguments.
# dtc warnings are printed on stderr; the exit status is non-zero if cpp or dtc fails.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 IN.dts OUT.dtb [EXTRA_CPP_ARGS...]" >&2
	exit 2
fi
in=$1
out=$2
shift 2

if ! command -v cpp >/dev/null 2>&1; then
	echo "$0: cpp (the C preprocessor) not found; install cpp (apt-get install cpp)" >&2
	exit 127
fi
if ! command -v dtc >/dev/null 2>&1; then
	echo "$0: dtc not found; install device-tree-compiler (apt-get install device-tree-compiler)" >&2
	exit 127
fi
if [ ! -f "$in" ]; then
	echo "$0: $in: no such file" >&2
	exit 2
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck disable=SC2086 # DTC_FLAGS is a list of words
cpp -nostdinc -undef -x assembler-with-cpp -D__DTS__ "$@" -I "$here/include" -I "$here" "$in" |
	dtc -I dts -O dtb -Wno-interrupt_provider ${DTC_FLAGS:-} -o "$out" -
