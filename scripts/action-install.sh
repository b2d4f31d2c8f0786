#!/usr/bin/env bash
# The pull-request check's install step (action.yml): puffin-lens on PATH,
# from a release's binary when VERSION names a tag of ACTION_REPO (needs
# GH_TOKEN), else built from the action's own source (ACTION_PATH) by cargo.
set -euo pipefail
if command -v puffin-lens >/dev/null 2>&1; then
  echo "puffin-lens already installed: $(command -v puffin-lens)"
  exit 0
fi
if [[ -n ${VERSION:-} ]]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
    Darwin-arm64) target=aarch64-apple-darwin ;;
    Darwin-x86_64) target=x86_64-apple-darwin ;;
    *) echo "::error::no puffin-lens release binary for $(uname -s)-$(uname -m): leave version empty to build it" >&2; exit 1 ;;
  esac
  name="puffin-lens-$VERSION-$target"
  dir=$(mktemp -d)
  gh release download "$VERSION" --repo "$ACTION_REPO" --pattern "$name.tar.gz*" --dir "$dir"
  (cd "$dir" && sha256sum -c "$name.tar.gz.sha256")
  tar xzf "$dir/$name.tar.gz" -C "$dir"
  mkdir -p "$HOME/.local/bin"
  install "$dir/$name/puffin-lens" "$HOME/.local/bin/puffin-lens"
  echo "$HOME/.local/bin" >>"${GITHUB_PATH:-/dev/null}"
else
  cargo install --locked --path "$ACTION_PATH" --bin puffin-lens
fi
