#!/bin/sh
exec /tmp/h33-ssspmem/gg-new "$@" --rows compressed
