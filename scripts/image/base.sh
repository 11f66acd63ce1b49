# The base of Pier's image, sourced by scripts/image.sh: build_base makes $base (rootfs/, its tar
# and packages.tsv) from the Debian packages in packages, less not-at-runtime. The cache key of a
# base is a hash of this file and the two lists, so a change here builds the base again. Uses
# image.sh's here, arch, base, log and die.
# shellcheck shell=bash disable=SC2154

SUITE=bookworm
# Names the image must not contain anywhere: shells and interpreters (ImageIT checks the image).
FORBIDDEN_NAMES=(sh bash dash rbash busybox 'perl*' 'python*' awk mawk gawk)

# The words of a list file: its lines without comments and blanks.
words() { sed 's/#.*//' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d'; }

# dpkg-query against the root filesystem in $1.
dq() { local r=$1; shift; dpkg-query --admindir="$r/var/lib/dpkg" "$@"; }

# The packages to keep in root $1: those named in scripts/image/packages and, recursively, the
# installed packages their Pre-Depends and Depends name (the first installed alternative, or an
# installed package that provides it), never one in scripts/image/not-at-runtime.
runtime_closure() {
  local r=$1
  local -A seen=() skip=() provider=()
  local p name _ provides q a c n
  for p in $(words "$here/image/not-at-runtime"); do skip[$p]=1; done
  while IFS=$'\t' read -r name provides; do
    provides="$(sed 's/([^)]*)//g; s/,/ /g' <<< "$provides")"
    for q in $provides; do provider[$q]=${provider[$q]:-$name}; done
  done < <(dq "$r" -W -f='${Package}\t${Provides}\n')
  local -a queue
  mapfile -t queue < <(words "$here/image/packages")
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    [ -z "${seen[$p]:-}" ] && [ -z "${skip[$p]:-}" ] || continue
    dq "$r" -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
      die "$p is not installed in the base (scripts/image/packages)"
    seen[$p]=1
    local deps
    deps="$(dq "$r" -W -f='${Pre-Depends}, ${Depends}' "$p")"
    IFS=',' read -ra alts <<< "$deps"
    for a in "${alts[@]}"; do
      IFS='|' read -ra choices <<< "$a"
      for c in "${choices[@]}"; do
        n="$(sed 's/([^)]*)//g; s/:any//; s/[[:space:]]//g' <<< "$c")"
        [ -n "$n" ] || continue
        if dq "$r" -W -f='${db:Status-Status}' "$n" 2>/dev/null | grep -qx installed; then
          queue+=("$n"); break
        elif [ -n "${provider[$n]:-}" ]; then
          queue+=("${provider[$n]}"); break
        fi
      done
    done
  done
  printf '%s\n' "${!seen[@]}" | sort
}

# The paths a package's .list file in root $1 names.
owned() { cat "$1/var/lib/dpkg/info/$2.list" "$1/var/lib/dpkg/info/$2:$arch.list" 2>/dev/null || true; }

# Makes $base: mmdebstrap's essential variant with the packages, then everything but the runtime
# closure removed: its files, its dpkg entries, and the caches and docs the install left.
build_base() {
  local tmp="$base.tmp" started=$SECONDS
  rm -rf "$tmp" && mkdir -p "$tmp"
  local include
  include="$(words "$here/image/packages" | paste -sd, -)"
  log "building the base: Debian $SUITE ($arch) with $include (a minute or two)"
  # No mirror given: mmdebstrap's Debian mirror with the suite's updates and security archives.
  mmdebstrap --quiet --variant=essential --include="$include" --format=directory \
    --architectures="$arch" "$SUITE" "$tmp/rootfs" >&2
  local r="${tmp:?}/rootfs"
  runtime_closure "$r" > "$tmp/keep"
  dq "$r" -W -f='${Package}\n' | sort > "$tmp/installed"
  comm -23 "$tmp/installed" "$tmp/keep" > "$tmp/drop"
  log "keeping $(wc -l < "$tmp/keep") of $(wc -l < "$tmp/installed") packages; dropping: $(paste -sd' ' "$tmp/drop")"
  local p
  for p in $(cat "$tmp/keep"); do owned "$r" "$p"; done | sort -u > "$tmp/kept-paths"
  for p in $(cat "$tmp/drop"); do owned "$r" "$p"; done | sort -u > "$tmp/drop-paths"
  # Files and links first (never one a kept package also lists), then the directories left empty.
  local path
  comm -23 "$tmp/drop-paths" "$tmp/kept-paths" | while IFS= read -r path; do
    if [ -L "$r$path" ] || { [ -e "$r$path" ] && [ ! -d "$r$path" ]; }; then rm -f "$r$path"; fi
  done
  comm -23 "$tmp/drop-paths" "$tmp/kept-paths" | sort -r | while IFS= read -r path; do
    if [ -d "$r$path" ] && [ ! -L "$r$path" ]; then rmdir "$r$path" 2>/dev/null || true; fi
  done
  # The dpkg database lists the kept packages only, for image scanners.
  for p in $(cat "$tmp/drop"); do
    rm -f "$r/var/lib/dpkg/info/$p".* "$r/var/lib/dpkg/info/$p:$arch".*
  done
  awk -v keep="$tmp/keep" 'BEGIN { while ((getline k < keep) > 0) want[k] = 1; RS = ""; ORS = "\n\n" }
    { split($0, l, "\n"); name = substr(l[1], 10); if (name in want) print }' \
    "$r/var/lib/dpkg/status" > "$tmp/status"
  mv "$tmp/status" "$r/var/lib/dpkg/status"
  # What only the install needed: apt's and debconf's state, logs, alternatives of dropped
  # programs (as dangling links), docs but each package's copyright, device nodes (a container
  # runtime mounts its own /dev).
  rm -rf "$r"/var/lib/dpkg/*-old "$r"/var/lib/dpkg/triggers "$r"/var/lib/dpkg/updates \
    "$r"/var/lib/apt "$r"/var/cache/* "$r"/var/log/* "$r"/etc/apt "$r"/var/lib/dpkg/alternatives \
    "$r"/usr/share/man "$r"/usr/share/info "$r"/usr/share/lintian "$r"/usr/share/bug \
    "${r:?}"/dev/* "$r"/run/* "$r"/tmp/* "$r"/etc/ld.so.cache
  find "$r/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
  find "$r/usr/share/doc" -mindepth 1 -depth -type d -empty -delete 2>/dev/null || true
  remove_dangling_links "$r"
  # /etc/ld.so.cache again, for the kept libraries (ldconfig of the machine, on the tree).
  ldconfig -r "$r" 2>/dev/null || true
  check_no_interpreter "$r"
  dq "$r" -W -f='${Package}\t${Version}\t${Architecture}\n' | sort > "$tmp/packages.tsv"
  tar --numeric-owner --sort=name -C "$r" -cf "$tmp/rootfs.tar" .
  rm -f "$tmp/keep" "$tmp/installed" "$tmp/drop" "$tmp/kept-paths" "$tmp/drop-paths"
  rm -rf "$base" && mv "$tmp" "$base"
  log "base cached at $base in $((SECONDS - started)) s ($(du -sh "$base/rootfs" | cut -f1))"
}

# Removes the links in root $1 whose target is not in the tree (an absolute target read inside it),
# again until none is left: alternatives of dropped programs end in a chain of two.
remove_dangling_links() {
  local r=$1 link target dir removed=1
  while [ $removed = 1 ]; do
    removed=0
    while IFS= read -r -d '' link; do
      target="$(readlink "$link")"
      case "$target" in /*) target="$r$target" ;; *) dir="$(dirname "$link")"; target="$dir/$target" ;; esac
      if [ ! -L "$target" ] && [ ! -e "$target" ]; then rm -f "$link"; removed=1; fi
    done < <(find "$r" -xdev -type l -print0)
  done
}

check_no_interpreter() {
  local r=$1 args=() n
  for n in "${FORBIDDEN_NAMES[@]}"; do args+=(-name "$n" -o); done
  unset 'args[${#args[@]}-1]'
  local found
  found="$(find "$r" -xdev \( "${args[@]}" \) ! -type d -printf '/%P\n')"
  [ -z "$found" ] || die "a shell or interpreter is left in $r: $found"
}

