#!/usr/bin/env bash
# The pull-request check's comment (action.yml): posts REPORT (Markdown) as
# one comment on pull request PR of REPO, or updates the one an earlier run
# posted (found by its marker). Needs GH_TOKEN and the GitHub CLI.
# Usage: scripts/pr-comment.sh REPO PR REPORT.md   (REPO: owner/name, as github.repository)
set -euo pipefail
repo=$1 pr=$2 report=$3
marker='<!-- puffin-lens-report -->'
# A comment holds at most 65,536 characters.
body=$(printf '%s\n%s' "$marker" "$(head -c 60000 "$report")")
existing=$(gh api "repos/$repo/issues/$pr/comments" --paginate \
  --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | head -n 1)
if [[ -n $existing ]]; then
  gh api --method PATCH "repos/$repo/issues/comments/$existing" -f body="$body" >/dev/null
  echo "updated comment $existing on $repo#$pr"
else
  gh api --method POST "repos/$repo/issues/$pr/comments" -f body="$body" >/dev/null
  echo "commented on $repo#$pr"
fi
