#!/bin/sh
# What help2man runs for the man page: $SCHEDLAB_BINARY itself, except that its
# --help-all is laid out for help2man's headings (help2man(1): a line "*Name*" starts a
# section; a line ending in a colon whose next line is indented starts a sub-section):
# "Subcommands:" becomes the section COMMANDS, each command's name line ("run" at the
# start of a line) the sub-section "schedlab run:", and each nested command (`host run`,
# which --help-all only lists) a sub-section of its own with its --help, after its
# parent's. CMakeLists.txt then drops the colon from each sub-section's title. A blank
# line goes before "Positionals:", "Options:" and "Subcommands:" inside a command, so that
# each is a paragraph of its own.
if [ "$1" != --help-all ]; then
  exec "$SCHEDLAB_BINARY" "$@"
fi
"$SCHEDLAB_BINARY" --help-all |
  awk 'function nested_after() { for (i = 1; i <= n; i++) print "@@nested " parent " " kids[i]; n = 0 }
       /^[a-z][a-z-]*$/ { nested_after(); parent = $1; listing = 0
                          print ""; print "schedlab " $1 ":"; next }
       /^Subcommands:$/ { print "*Commands*"; next }
       /^  Subcommands:$/ { listing = 1; print ""; print; next }
       listing && /^    [a-z]/ { kids[++n] = $1; print; next }
       { listing = 0 }
       /^ *[A-Z][a-z]*:$/ { print ""; print; next }
       { print }
       END { nested_after() }' |
  while IFS= read -r line; do
    case "$line" in
      "@@nested "*)
        set -- $line
        printf '\nschedlab %s %s:\n' "$2" "$3"
        # its description and options, indented as --help-all indents a command's
        "$SCHEDLAB_BINARY" "$2" "$3" --help |
          sed -E -e '/^Usage:/d' -e '/^$/d' -e 's/^/  /' -e 's/^( *[A-Z][a-z]*:)$/\n\1/'
        ;;
      *) printf '%s\n' "$line" ;;
    esac
  done
