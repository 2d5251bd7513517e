#!/bin/sh
# hetero-smi --json with a HETERO_PLUGIN_PATH entry that is not UTF-8 (issue #25: the JSON
# writer threw, untyped, and the tool aborted): the entry is reported, exit status 0.
# Usage: smi_non_utf8_path.sh /path/to/hetero-smi
set -eu
HETERO_PLUGIN_PATH="/nonexistent/$(printf '\377')" exec "$1" --json
