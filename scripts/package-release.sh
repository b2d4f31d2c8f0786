#!/usr/bin/env bash
# Release workflow: the `dist` binary of TARGET (Cargo.toml's [profile.dist]) as
# release/puffin-lens-TAG-TARGET.ARCHIVE (tar.gz or zip, with README and the
# licences) and its .sha256 beside it.
# Usage: scripts/package-release.sh TARGET tar.gz|zip TAG
set -euo pipefail
cd "$(dirname "$0")/.."
target=$1 archive=$2 tag=$3
name="puffin-lens-$tag-$target"
exe=puffin-lens
[[ $target == *windows* ]] && exe=puffin-lens.exe
stage="release/$name"
mkdir -p "$stage"
cp "target/$target/dist/$exe" README.md LICENSE-MIT LICENSE-APACHE "$stage/"
cd release
case $archive in
  tar.gz) tar czf "$name.tar.gz" "$name" ;;
  zip) 7z a -tzip "$name.zip" "$name" >/dev/null ;;
  *) echo "package-release.sh: unknown archive $archive (tar.gz or zip)" >&2; exit 2 ;;
esac
rm -rf "$name"
if command -v sha256sum >/dev/null 2>&1; then
  sha256sum "$name.$archive" > "$name.$archive.sha256"
else
  shasum -a 256 "$name.$archive" > "$name.$archive.sha256"
fi
echo "release/$name.$archive"
