#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks every translation in LINGUAS against the strings the sources hold
# now: extracts them as the build's tilde-pot target does, merges each
# LL.po with them, and fails when a string is untranslated or fuzzy, or
# when msgfmt --check finds a fault (a format that does not match, a bad
# header). Prints TAP.
#
#   check-translations.sh SOURCE_ROOT
set -u

root=$1
po="$root/po"
work=$(mktemp -d "${TMPDIR:-/tmp}/tilde-po-XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

languages=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$po/LINGUAS")
count=$(printf '%s\n' "$languages" | grep -c .)
echo "1..$((count + 1))"

status=0
# The keywords of meson's glib preset.
if (cd "$root" && xgettext --from-code=UTF-8 --add-comments \
      --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
      --keyword=g_dcgettext:2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
      --flag=N_:1:pass-c-format --flag=C_:2:pass-c-format --flag=NC_:2:pass-c-format \
      --package-name=tilde -f po/POTFILES.in -o "$work/tilde.pot") 2>"$work/xgettext.log"; then
  echo "ok 1 - the strings of the sources extracted"
else
  echo "not ok 1 - the strings of the sources extracted"
  status=1
  sed 's/^/# /' "$work/xgettext.log"
fi

n=1
for lang in $languages; do
  n=$((n + 1))
  if [ ! -f "$po/$lang.po" ]; then
    echo "not ok $n - $lang: po/$lang.po is missing"
    status=1
    continue
  fi
  msgmerge --quiet --no-wrap -o "$work/$lang.po" "$po/$lang.po" "$work/tilde.pot" 2>"$work/$lang.log"
  if msgfmt --check --statistics -o /dev/null "$work/$lang.po" 2>>"$work/$lang.log"; then
    stats=$(tail -n 1 "$work/$lang.log")
    case $stats in
      *fuzzy*|*untranslated*)
        echo "not ok $n - $lang: $stats"
        msgattrib --only-fuzzy --no-obsolete "$work/$lang.po" | grep '^msgid "[^"]' | sed 's/^/# fuzzy: /'
        msgattrib --untranslated --no-obsolete "$work/$lang.po" | grep '^msgid "[^"]' | sed 's/^/# untranslated: /'
        status=1 ;;
      *)
        echo "ok $n - $lang: $stats" ;;
    esac
  else
    echo "not ok $n - $lang: msgfmt --check failed"
    sed 's/^/# /' "$work/$lang.log"
    status=1
  fi
done
exit $status
