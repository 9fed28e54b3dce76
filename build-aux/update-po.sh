#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates po/pacer.pot from the files in po/POTFILES.in, merges it into every po/<lang>.po
# of po/LINGUAS and checks each translation with `msgfmt -c`. Safe to run again: a template
# whose messages did not change is left as it is (only its creation date would differ).
#
#   build-aux/update-po.sh               regenerate, merge and check
#   build-aux/update-po.sh --pot FILE    only write a fresh template to FILE (used by the tests)
#
# Needs GNU gettext (Debian package `gettext`) and perl.
#
# The Rust sources go through xgettext's C parser (gettext 0.21 has no Rust one), after a
# small rewrite that keeps every line where it was but removes what C reads differently from
# Rust: attribute lines that begin with `#` (C would skip them as preprocessor directives, and
# with them the `#[error("{}", gettext("…"))]` messages), `\`-newline continuations inside
# strings (C would keep the next line's indentation), literal newlines and `\u{…}` escapes in
# strings, raw strings, and lifetimes such as `'a` (C would read a character constant).
# Run this script rather than meson's `pacer-pot` target, which feeds the files to xgettext
# unchanged.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

domain=pacer
pot_only=""
case "${1:-}" in
  "") ;;
  --pot)
    [ $# -eq 2 ] || { echo "usage: $0 [--pot FILE]" >&2; exit 2; }
    pot_only="$2"
    ;;
  *)
    echo "usage: $0 [--pot FILE]" >&2
    exit 2
    ;;
esac

for tool in xgettext msgmerge msgfmt perl; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "update-po: $tool is missing (Debian: apt install gettext perl)" >&2
    exit 1
  fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The files to scan: POTFILES.in without comments and blank lines.
rust_files=()
other_files=()
while IFS= read -r line || [ -n "$line" ]; do
  line="${line%%#*}"
  line="$(printf '%s' "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')"
  [ -n "$line" ] || continue
  if [ ! -f "$line" ]; then
    echo "update-po: po/POTFILES.in lists $line, which does not exist" >&2
    exit 1
  fi
  case "$line" in
    *.rs) rust_files+=("$line") ;;
    *) other_files+=("$line") ;;
  esac
done < po/POTFILES.in

# Rust → something xgettext's C lexer reads as Rust means it. Every newline is kept, so the
# line numbers in the template's references stay right.
read -r -d '' rust_to_c <<'PERL' || true
use strict; use warnings;
local $/; my $s = <STDIN>; my $o = '';
sub nl_split { my ($t) = @_; $t =~ s/\n/\\n"\n"/g; return $t; }
pos($s) = 0;
while (pos($s) < length($s)) {
  if ($s =~ /\G(\/\/[^\n]*)/gc) {                       # line comment: no `\` splice
    (my $c = $1) =~ s/\\+$//; $o .= $c;
  } elsif ($s =~ /\G(\/\*.*?\*\/)/gcs) {                 # block comment
    $o .= $1;
  } elsif ($s =~ /\Gb?r(#*)"(.*?)"\1/gcs) {             # raw string
    (my $t = $2) =~ s/([\\"])/\\$1/g; $o .= '"' . nl_split($t) . '"';
  } elsif ($s =~ /\Gb?"((?:[^"\\]|\\.)*)"/gcs) {        # string
    (my $t = $1) =~ s{\\u\{([0-9A-Fa-f]+)\}|\\(')|\\\n(\s*)|(\\.)|\n}{
      defined $1 ? do { my $c = chr(hex $1); utf8::encode($c); $c }
      : defined $2 ? $2                                  # \' is just '
      : defined $3 ? "\"\n$3\""                            # `\`-newline skips whitespace
      : defined $4 ? $4
      : "\\n\"\n\"" }gse;                                # literal newline
    $o .= '"' . $t . '"';
  } elsif ($s =~ /\G'(?:\\u\{[0-9A-Fa-f]+\}|\\x[0-9A-Fa-f]{2}|\\.|[^\\'\n])'/gc) {
    $o .= "' '";                                         # character literal
  } elsif ($s =~ /\G'(?=[A-Za-z_])/gc) {                 # lifetime or loop label
    $o .= ' ';
  } elsif ($s =~ /\G([A-Za-z_][A-Za-z0-9_]*)/gc) {       # identifier (not a string prefix)
    $o .= $1;
  } else {
    $s =~ /\G(.)/gcs; $o .= $1;
  }
}
$o =~ s/^([ \t]*)#/$1 /mg;                               # attributes are no directives
print $o;
PERL

for file in "${rust_files[@]}"; do
  mkdir -p "$work/src/$(dirname "$file")"
  perl -e "$rust_to_c" < "$file" > "$work/src/$file"
done

common=(
  --from-code=UTF-8
  --add-comments=Translators
  --package-name="$domain"
  --msgid-bugs-address="https://github.com/pacerapp/pacer/issues"
  --copyright-holder="The Pacer authors"
)
fresh="$work/$domain.pot"
if [ ${#rust_files[@]} -gt 0 ]; then
  # Placeholders are `{name}`; a `%` is just a per cent sign, never a C format.
  xgettext "${common[@]}" --language=C --directory="$work/src" \
    --keyword=gettext --keyword=gettext_noop --keyword=ngettext:1,2 \
    --flag=gettext:1:no-c-format --flag=gettext_noop:1:no-c-format \
    --flag=ngettext:1:no-c-format \
    --flag=ngettext:2:no-c-format \
    --output="$fresh" "${rust_files[@]}"
fi
if [ ${#other_files[@]} -gt 0 ]; then
  # Desktop files, the settings schema, metainfo and the polkit policy: xgettext picks the
  # parser (and the ITS rules) from the file name; the polkit policy's rules are the
  # project's own (po/its/).
  join=()
  [ -f "$fresh" ] && join=(--join-existing)
  GETTEXTDATADIRS=$PWD/po${GETTEXTDATADIRS:+:$GETTEXTDATADIRS} \
    xgettext "${common[@]}" "${join[@]}" --output="$fresh" "${other_files[@]}"
fi
[ -f "$fresh" ] || { echo "update-po: no messages found" >&2; exit 1; }

if [ -n "$pot_only" ]; then
  cp "$fresh" "$pot_only"
  exit 0
fi

# Keep the old template when only its creation date changed.
strip_date() { grep -v '^"POT-Creation-Date:' "$1"; }
if [ -f "po/$domain.pot" ] && cmp -s <(strip_date "po/$domain.pot") <(strip_date "$fresh"); then
  echo "update-po: po/$domain.pot is up to date" >&2
else
  cp "$fresh" "po/$domain.pot"
  echo "update-po: wrote po/$domain.pot ($(grep -c '^msgid ' "po/$domain.pot") entries, header included)" >&2
fi

status=0
while IFS= read -r lang || [ -n "$lang" ]; do
  lang="${lang%%#*}"
  lang="$(printf '%s' "$lang" | tr -d '[:space:]')"
  [ -n "$lang" ] || continue
  po="po/$lang.po"
  if [ ! -f "$po" ]; then
    msginit --no-translator --locale="$lang" --input="po/$domain.pot" --output-file="$po"
  fi
  msgmerge --quiet --update --backup=none --previous "$po" "po/$domain.pot"
  printf 'update-po: %s: ' "$lang" >&2
  if ! msgfmt -c --statistics -o /dev/null "$po"; then
    status=1
  fi
done < po/LINGUAS
exit "$status"
