#!/usr/bin/env bash
# Times README's two commands on a fresh Debian 12 (issue #47 item 1): a base system made by
# debootstrap in DIR (nothing else installed, no ccache, no CUDA Toolkit), a clone of this
# repository's HEAD in it, then in a chroot the first command (apt, configure, build,
# chapter_gpu: each phase timed) and, with --all, the second (tools/install_deps.sh &&
# tools/run_tests.sh) after it, as a new user would run them.
#
# usage (root, on Debian, with network access to the mirror):
#   tools/time_fresh_machine.sh DIR [--all]
# Needs debootstrap (apt install debootstrap). Leaves DIR in place (its logs: DIR/root/*.log);
# unmount with `umount -R DIR/proc DIR/sys DIR/dev` before removing it.
set -euo pipefail
dir="${1:?usage: tools/time_fresh_machine.sh DIR [--all]}"
all="${2:-}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
[ "$(id -u)" -eq 0 ] || { echo "time_fresh_machine: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "time_fresh_machine: apt install debootstrap" >&2; exit 2; }
[ -e "$dir" ] && { echo "time_fresh_machine: $dir exists" >&2; exit 2; }

debootstrap bookworm "$dir" http://deb.debian.org/debian >"$dir.debootstrap.log" 2>&1
# The host's sources (bookworm, -updates, -security) and name resolution.
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$dir/etc/apt/sources.list.d/"
  rm -f "$dir/etc/apt/sources.list"
fi
cp /etc/resolv.conf "$dir/etc/resolv.conf"
mount -t proc proc "$dir/proc"
mount --rbind /sys "$dir/sys"
mount --rbind /dev "$dir/dev"
git clone -q "$repo" "$dir/root/hetero"
echo "time_fresh_machine: commit $(git -C "$dir/root/hetero" log --oneline -1)"

cat >"$dir/root/first.sh" <<'EOF'
#!/bin/bash
set -e
cd /root/hetero
t0=$(date +%s.%N)
tools/install_deps.sh --main >/root/deps.log 2>&1
t1=$(date +%s.%N)
cmake -S . -B build -G Ninja >/root/configure.log 2>&1
t2=$(date +%s.%N)
cmake --build build -j2 --target chapter_gpu >/root/build.log 2>&1
t3=$(date +%s.%N)
build/bin/chapter_gpu >/root/chapter_gpu.log 2>&1
t4=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" 'BEGIN {
  printf "first command: apt %.0f s, configure %.0f s, build %.0f s, chapter_gpu %.1f s, total %.0f s\n",
         b - a, c - b, d - c, e - d, e - a }'
EOF
cat >"$dir/root/second.sh" <<'EOF'
#!/bin/bash
cd /root/hetero
t0=$(date +%s)
tools/install_deps.sh >/root/deps_all.log 2>&1 && tools/run_tests.sh >/root/tests.log 2>&1
rc=$?
echo "second command: $(( $(date +%s) - t0 )) s, exit status $rc"
exit $rc
EOF
chmod +x "$dir/root/first.sh" "$dir/root/second.sh"
chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin /root/first.sh
if [ "$all" = "--all" ]; then
  chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin /root/second.sh
fi
