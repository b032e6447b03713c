#!/bin/sh
# What help2man runs for the man page: $SCHEDLAB_BINARY itself, except that in its
# --help-all each command's name line ("run" at the start of a line) becomes a heading
# ("schedlab run:"), which help2man makes a section of its own.
if [ "$1" = --help-all ]; then
  "$SCHEDLAB_BINARY" --help-all |
    sed -E -e 's/^([a-z][a-z-]*)$/\nschedlab \1:\n/' -e 's/^( *[A-Z][a-z]*:)$/\n\1/'
else
  exec "$SCHEDLAB_BINARY" "$@"
fi
