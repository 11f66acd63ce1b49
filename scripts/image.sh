#!/usr/bin/env bash
# Builds Pier's OCI image without a registry or a Docker daemon (docs/image.md):
#   1. the base: a root filesystem of the Debian bookworm packages in scripts/image/packages and
#      what they depend on (mmdebstrap), less the packages in scripts/image/not-at-runtime and
#      everything else the install needed: no shell, no Perl, no package manager. Cached under
#      ${XDG_CACHE_HOME:-$HOME/.cache}/pier/image-base-<hash of those files and this script>/;
#   2. Pier's layer: the fat jar, conf/jvm.options, conf/pier.yaml as the default config, the SBOMs,
#      the user pier (UID and GID 10001), and a class-data sharing archive dumped by the base's own
#      JVM (run in a chroot) for the jar at its final path, /opt/pier/pier.jar;
#   3. the image: `podman build` of a FROM scratch Containerfile that adds the two as layers, with
#      the OCI labels and the Debian packages' resolved versions as labels.
# Runs as root (podman's own storage, chroot, mount); installs podman and mmdebstrap with apt-get
# when they are missing. Prints the image's ID on its last line.
#
#   scripts/image.sh                       # mvn package, then the image localhost/pier:<version>
#   scripts/image.sh --jar target/pier.jar # an already built jar (its pier.cdx.json beside it)
#   scripts/image.sh --archive pier.tar    # also save it as a docker-archive named pier:<version>
#   scripts/image.sh --base-only           # only make (or find) the cached base; prints its path
# Options: --tag REF (default localhost/pier:<version>), --out DIR (default target/image: the SBOMs
# and the package list beside the image). PIER_IMAGE_SOURCE sets the source label (default: the
# git remote origin's URL); PIER_IMAGE_OFFLINE=1 fails instead of building a base that is not cached.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
UID_GID=10001

log() { printf '[image] %s\n' "$*" >&2; }
die() { log "*** $*"; exit 1; }

jar="" tag="" out="$root/target/image" archive="" base_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --jar) jar="$(realpath "$2")"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --out) out="$(realpath -m "$2")"; shift 2 ;;
    --archive) archive="$(realpath -m "$2")"; shift 2 ;;
    --base-only) base_only=1; shift ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

[ "$(id -u)" = 0 ] || die "run as root (sudo $0): podman's storage, chroot and mount need it"

need=()
command -v podman >/dev/null || need+=(podman)
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v dpkg-query >/dev/null || die "needs a Debian or Ubuntu machine (dpkg-query)"
if [ ${#need[@]} -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi

# shellcheck source=image/base.sh
source "$here/image/base.sh"

arch="$(dpkg --print-architecture)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/pier"
key="$(cat "$here/image/packages" "$here/image/not-at-runtime" "$here/image/base.sh" |
  { cat; echo "$SUITE $arch"; } | sha256sum | cut -c1-16)"
base="$cache_root/image-base-$key"

mkdir -p "$cache_root"
exec 8>"$cache_root/image-base.lock"
flock 8
if [ ! -f "$base/rootfs.tar" ]; then
  # The test forks have no network: they ask for a base that scripts/provision.sh made before.
  [ "${PIER_IMAGE_OFFLINE:-0}" = 0 ] ||
    die "no cached base at $base, and PIER_IMAGE_OFFLINE is set: run scripts/image.sh --base-only" \
      "(scripts/provision.sh does) where Debian's mirror is reachable"
  build_base
fi
flock -u 8
if [ "$base_only" = 1 ]; then
  echo "$base"
  exit 0
fi

# --- Pier's layer ------------------------------------------------------------------------------

if [ -z "$jar" ]; then
  log "building the fat jar (mvn package, tests skipped)"
  (cd "$root" && mvn -B -q -DskipTests package >&2)
  jar="$root/target/pier.jar"
fi
[ -f "$jar" ] || die "no jar at $jar"
sbom="$(dirname "$jar")/pier.cdx.json"
[ -f "$sbom" ] || die "no SBOM beside the jar ($sbom): build it with mvn package"

work="$out/work"
rm -rf "$work" && mkdir -p "$work/layer" "$work/upper-work" "$work/merged" "$work/context"
trap 'rm -rf "$work"' EXIT
layer="$work/layer"
install -d -m 0755 "$layer/opt/pier/sbom" "$layer/etc/pier"
install -m 0644 "$jar" "$layer/opt/pier/pier.jar"
install -m 0644 "$root/conf/jvm.options" "$layer/opt/pier/jvm.options"
install -m 0644 "$root/conf/pier.yaml" "$layer/etc/pier/pier.yaml"
install -m 0644 "$sbom" "$layer/opt/pier/sbom/pier.cdx.json"
install -m 0644 "$root/src/main/cds/pier.classlist" "$layer/opt/pier/pier.classlist"
cp "$base/rootfs/etc/passwd" "$base/rootfs/etc/group" "$layer/etc/"
echo "pier:x:$UID_GID:$UID_GID:Pier:/nonexistent:/usr/sbin/nologin" >> "$layer/etc/passwd"
echo "pier:x:$UID_GID:" >> "$layer/etc/group"
chmod 0644 "$layer/etc/passwd" "$layer/etc/group"

# Runs a command of the base's JVM over base + layer (an overlay whose upper is the layer), as the
# image will: its own /proc and /dev, chrooted.
in_image() {
  unshare --mount --pid --fork --propagation private -- /bin/sh -ec '
    r=$1; shift
    mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$LAYER,workdir=$WORKDIR" "$r"
    mount -t proc proc "$r/proc"
    mount -t tmpfs -o mode=0755 dev "$r/dev"
    for d in null zero full random urandom; do touch "$r/dev/$d"; mount --bind "/dev/$d" "$r/dev/$d"; done
    mount -t tmpfs tmp "$r/tmp"
    exec chroot "$r" "$@"' sh "$work/merged" "$@"
}
export BASE="$base/rootfs" LAYER="$layer" WORKDIR="$work/upper-work"
log "dumping the class-data sharing archive with the image's JVM for /opt/pier/pier.jar"
in_image /usr/bin/java -Xshare:dump -XX:SharedClassListFile=/opt/pier/pier.classlist \
  -XX:SharedArchiveFile=/opt/pier/pier.jsa -cp /opt/pier/pier.jar > "$out/pier.jsa.log" 2>&1 ||
  die "the class-data dump failed: $out/pier.jsa.log"
rm -f "$layer/opt/pier/pier.classlist"
chmod 0644 "$layer/opt/pier/pier.jsa"
# -Xshare:on refuses to start when the archive does not map: proof it fits this JVM and jar path.
version_line="$(in_image /usr/bin/java -Xshare:on -XX:SharedArchiveFile=/opt/pier/pier.jsa \
  -jar /opt/pier/pier.jar --version)" || die "the image's JVM does not run the jar with its archive"
# Only the layer's own files: the overlay leaves the mount points' directories in the upper.
for d in proc dev tmp; do rmdir "$layer/$d" 2>/dev/null || true; done
unexpected="$(cd "$layer" && find . ! -type d | grep -v -e '^./opt/pier/' -e '^./etc/pier/' \
  -e '^./etc/passwd$' -e '^./etc/group$' || true)"
[ -z "$unexpected" ] || die "the JVM left files in the layer: $unexpected"
version="$(sed -n 's/^pier \([^ ]*\) (\(.*\))$/\1/p' <<< "$version_line")"
revision="$(sed -n 's/^pier \([^ ]*\) (\(.*\))$/\2/p' <<< "$version_line")"
[ -n "$version" ] || die "'java -jar pier.jar --version' said '$version_line'"

# --- SBOM of the Debian packages, labels ------------------------------------------------------

cp "$base/packages.tsv" "$out/debian-packages.tsv"
debian_sbom() {
  local first=1 name ver a purl_ver
  printf '{\n  "bomFormat": "CycloneDX",\n  "specVersion": "1.6",\n  "version": 1,\n'
  printf '  "metadata": {"component": {"type": "operating-system", "name": "debian", "version": "%s"}},\n' \
    "$(cat "$base/rootfs/etc/debian_version")"
  printf '  "components": [\n'
  while IFS=$'\t' read -r name ver a; do
    purl_ver="${ver//:/%3A}"
    [ $first = 1 ] || printf ',\n'
    first=0
    printf '    {"type": "library", "name": "%s", "version": "%s", "purl": "pkg:deb/debian/%s@%s?arch=%s&distro=%s"}' \
      "$name" "$ver" "$name" "${purl_ver//+/%2B}" "$a" "$SUITE"
  done < "$base/packages.tsv"
  printf '\n  ]\n}\n'
}
debian_sbom > "$layer/opt/pier/sbom/debian.cdx.json"
chmod 0644 "$layer/opt/pier/sbom/debian.cdx.json"
cp "$layer/opt/pier/sbom/debian.cdx.json" "$sbom" "$out/"

named=""
for p in $(words "$here/image/packages"); do
  named+="$p=$(awk -F'\t' -v p="$p" '$1 == p { print $2 }' "$base/packages.tsv") "
done
source_url="${PIER_IMAGE_SOURCE:-$(git -C "$root" remote get-url origin 2>/dev/null | sed 's#//[^/@]*@#//#' || true)}"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}"
tag="${tag:-localhost/pier:$version}"

# --- the image -------------------------------------------------------------------------------

tar --numeric-owner --owner=0 --group=0 --sort=name --mtime="@$epoch" -C "$layer" \
  -cf "$work/context/pier.tar" .
ln "$base/rootfs.tar" "$work/context/base.tar" 2>/dev/null || cp "$base/rootfs.tar" "$work/context/base.tar"
cat > "$work/context/Containerfile" <<EOF
FROM scratch
ADD base.tar /
ADD pier.tar /
LABEL org.opencontainers.image.title="pier" \\
      org.opencontainers.image.description="A reactive Kubernetes service controller: load balancers for LoadBalancer Services" \\
      org.opencontainers.image.version="$version" \\
      org.opencontainers.image.revision="$revision" \\
      org.opencontainers.image.licenses="Apache-2.0" \\
      org.opencontainers.image.source="${source_url:-unknown}" \\
      dev.pier.image.debian.suite="$SUITE" \\
      dev.pier.image.debian.packages="${named% }"
USER $UID_GID:$UID_GID
EXPOSE 9080
ENTRYPOINT ["/usr/bin/java", "@/opt/pier/jvm.options", "-XX:SharedArchiveFile=/opt/pier/pier.jsa", "-jar", "/opt/pier/pier.jar"]
CMD ["--config", "/etc/pier/pier.yaml"]
EOF
log "podman build -t $tag"
podman build --quiet --timestamp "$epoch" --format oci -t "$tag" "$work/context" >&2
id="$(podman image inspect --format '{{.Id}}' "$tag")"
size="$(podman image inspect --format '{{.Size}}' "$tag")"
log "built $tag ($id), $((size / 1000000)) MB; SBOMs and the package list in $out"
if [ -n "$archive" ]; then
  # Named as Kubernetes resolves the manifests' "pier:<version>": docker.io/library/pier.
  podman tag "$tag" "docker.io/library/pier:$version"
  rm -f "$archive"
  podman save --quiet --format docker-archive -o "$archive" "docker.io/library/pier:$version"
  log "saved as $archive (docker.io/library/pier:$version)"
fi
echo "$id"
